/**
 * Query parameters of the v1 API, each declared once: its typed schema (for the client and
 * tools) and its wire form (for the sandbox, which receives strings, and the client, which sends them).
 */
import * as z from 'zod';
import { dateProblem } from './dates.js';
import { IsoDate, TransactionListType } from './schemas/common.js';

export interface QueryParam<T> {
  schema: z.ZodType<T>;
  description: string;
  toWire(value: T): string;
}

const dateParam = (description: string): QueryParam<string> => ({
  schema: IsoDate,
  description,
  toWire: (v) => v,
});

export const QUERY_PARAMS = {
  since_date: dateParam('Only transactions on or after this date (YYYY-MM-DD). Defaults to one year ago on list endpoints.'),
  until_date: dateParam('Only transactions on or before this date (YYYY-MM-DD).'),
  type: {
    schema: TransactionListType,
    description: 'Only "uncategorized" or only "unapproved" transactions.',
    toWire: (v: string) => v,
  } as QueryParam<'uncategorized' | 'unapproved'>,
  last_knowledge_of_server: {
    schema: z.int().min(0),
    description: 'Return only entities changed since this server_knowledge (delta request).',
    toWire: (v: number) => String(v),
  } as QueryParam<number>,
  include_accounts: {
    schema: z.boolean(),
    description: "Include each budget's accounts in the list.",
    toWire: (v: boolean) => String(v),
  } as QueryParam<boolean>,
} as const;

export type QueryName = keyof typeof QUERY_PARAMS;

/**
 * Parses one query value from its wire text. Returns the typed value or an error message
 * that says what was wrong and what is expected.
 */
export function parseWireQuery(name: QueryName, text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  let candidate: unknown = text;
  if (name === 'last_knowledge_of_server') {
    if (!/^\d{1,15}$/.test(text)) return { ok: false, error: `${name} must be a non-negative integer, got ${JSON.stringify(text)}` };
    candidate = Number(text);
  } else if (name === 'include_accounts') {
    if (text !== 'true' && text !== 'false') return { ok: false, error: `${name} must be true or false, got ${JSON.stringify(text)}` };
    candidate = text === 'true';
  }
  const parsed = QUERY_PARAMS[name].schema.safeParse(candidate);
  if (parsed.success) return { ok: true, value: parsed.data };
  if (name.endsWith('_date')) return { ok: false, error: `${name}: ${dateProblem(text) ?? 'not a date'}` };
  const expected = name === 'type' ? 'one of uncategorized, unapproved' : 'a valid value';
  return { ok: false, error: `${name} must be ${expected}, got ${JSON.stringify(text)}` };
}
