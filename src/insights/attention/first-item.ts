/**
 * The overview's first item of each kind, as one line keyed by its name (the compact pattern of
 * figures keyed by a name, their text alone): which category, which account, which payee, with
 * its figure, read from the kind's compact row (./attention.ts). Ready to Assign has none: its
 * figure is the kind's own.
 */
import type { AttentionKind } from './attention.js';

type Row = Record<string, unknown>;

/** A text field of a row ('' when absent), and a nested row (a bill), read without casts. */
const t = (r: Row, k: string): string => {
  const v = r[k];
  return typeof v === 'string' ? v : '';
};
const sub = (r: Row, k: string): Row => {
  const v = r[k];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v)) : {};
};

/** Each kind's first row as [name, its figure in a few words]. */
const FIRST: Record<AttentionKind, ((r: Row) => [string, string]) | null> = {
  unapproved: (r) => [t(r, 'payee_name') || 'no payee', t(r, 'amount_formatted')],
  uncategorized: (r) => [t(r, 'payee_name') || 'no payee', t(r, 'amount_formatted')],
  overspent: (r) => [t(r, 'name'), `${t(r, 'overspent_formatted')} (${t(r, 'type')})`],
  underfunded: (r) => [t(r, 'name'), r.due ? `${t(r, 'underfunded_formatted')}, due ${t(r, 'due')}` : t(r, 'underfunded_formatted')],
  card_payment_shortfall: (r) => [t(r, 'name'), `${t(r, 'shortfall_formatted')} short`],
  // The low, then the bill that takes it below zero, with its payee (its date when not the low's).
  upcoming_shortfall: (r) => {
    const bill = sub(r, 'bill');
    const on = t(r, 'lowest_on');
    return [
      t(r, 'name'),
      `${t(r, 'lowest_balance_formatted')} on ${on} after ${t(bill, 'payee_name') || 'a bill'} ${t(bill, 'amount_formatted')}${t(bill, 'date') === on ? '' : ` on ${t(bill, 'date')}`}`,
    ];
  },
  unreconciled: (r) => [t(r, 'name'), `last ${t(r, 'last_reconciled_on')}`],
  price_increase: (r) => [t(r, 'name'), `${t(r, 'old_formatted')} to ${t(r, 'new_formatted')}`],
  ready_to_assign: null,
};

/** The same, looked up by a kind's name as the answer gives it. */
const BY_KIND = new Map(Object.entries(FIRST));

/** The kind's first item as `{ name: text }`, or nothing. */
export function firstItem(kind: string, row: Row | undefined): Record<string, string> | undefined {
  const line = row && BY_KIND.get(kind)?.(row);
  return line ? { [line[0]]: line[1] } : undefined;
}
