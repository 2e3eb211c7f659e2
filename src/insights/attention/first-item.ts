/**
 * The overview's first item of each kind, as one line keyed by its name (the compact pattern of
 * figures keyed by a name, their text alone): which category, which account, which payee, with
 * its figure, read from the kind's compact row (./attention.ts). Ready to Assign has none: its
 * figure is the kind's own.
 */
import type { AttentionKind } from './attention.js';

type Row = Record<string, any>;

/** Each kind's first row as [name, its figure in a few words]. */
const FIRST: Record<AttentionKind, ((r: Row) => [string, string]) | null> = {
  unapproved: (r) => [r.payee_name ?? 'no payee', r.amount_formatted],
  uncategorized: (r) => [r.payee_name ?? 'no payee', r.amount_formatted],
  overspent: (r) => [r.name, `${r.overspent_formatted} (${r.type})`],
  underfunded: (r) => [r.name, r.due ? `${r.underfunded_formatted}, due ${r.due}` : r.underfunded_formatted],
  card_payment_shortfall: (r) => [r.name, `${r.shortfall_formatted} short`],
  // The low, then the bill that takes it below zero, with its payee (its date when not the low's).
  upcoming_shortfall: (r) => [
    r.name,
    `${r.lowest_balance_formatted} on ${r.lowest_on} after ${r.bill.payee_name ?? 'a bill'} ${r.bill.amount_formatted}${r.bill.date === r.lowest_on ? '' : ` on ${r.bill.date}`}`,
  ],
  unreconciled: (r) => [r.name, `last ${r.last_reconciled_on}`],
  price_increase: (r) => [r.name, `${r.old_formatted} to ${r.new_formatted}`],
  ready_to_assign: null,
};

/** The kind's first item as `{ name: text }`, or nothing. */
export function firstItem(kind: string, row: Row | undefined): Record<string, string> | undefined {
  const line = row && FIRST[kind as AttentionKind]?.(row);
  return line ? { [line[0]]: line[1] } : undefined;
}
