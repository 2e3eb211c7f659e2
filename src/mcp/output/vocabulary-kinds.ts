/** The kinds of the answer vocabulary's terms (./vocabulary.ts), and how its rows are written. */

/** money: integer milliunits with `<name>_formatted`; count: how many; number: any other figure (a rate, days, a percentage); group: an object or list of fields; args: the arguments of another tool's call, in that tool's own input names. */
export type TermKind = 'money' | 'count' | 'number' | 'date' | 'text' | 'id' | 'flag' | 'group' | 'args';

export interface Term {
  kind: TermKind;
  meaning: string;
  /** A map: its keys are names or dates, its values of `kind`. */
  keys?: 'names' | 'dates';
  /** The API's own name, found in `detail: "full"` answers of API tools only. */
  api?: true;
}

export type Row = [TermKind, string, Partial<Pick<Term, 'keys' | 'api'>>?];
export const API = { api: true } as const;
export const NAMES = { keys: 'names' } as const;
