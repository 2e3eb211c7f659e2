/** How answers show what a write touched: a transaction as a short row (names for ids, the amount formatted). */
import type { Shown, State } from './entities.js';

/** A transaction as a short row of a result. */
export function txnRow(s: Shown, id: string, t: State): Record<string, unknown> {
  const lines = (t.subtransactions as State[] | undefined) ?? [];
  return {
    id,
    date: t.date,
    amount_milliunits: t.amount,
    amount_formatted: s.money(t.amount as number),
    account_name: s.account(t.account_id),
    payee_name: s.payee(t.payee_id) ?? t.payee_name ?? null,
    category_name: lines.length ? `Split (${lines.length})` : s.category(t.category_id),
    memo: t.memo ?? null,
    cleared: t.cleared,
    approved: t.approved,
  };
}
