/** How answers show what a write touched: a transaction as a short row (names for ids, the amount formatted). */
import type * as E from '../../api/schemas/entities.js';
import type { Shown, State } from './entities.js';

/** A transaction as a short row of a result. */
export function txnRow(s: Shown, id: string, t: State): Record<string, unknown> {
  const lines = (t.subtransactions as State[] | undefined) ?? [];
  return {
    id,
    date: t.date,
    amount: t.amount,
    amount_formatted: s.money(t.amount as number),
    account_name: s.account(t.account_id),
    payee_name: s.payee(t.payee_id) ?? t.payee_name ?? null,
    category_name: lines.length ? `Split (${lines.length})` : s.category(t.category_id),
    memo: t.memo ?? null,
    cleared: t.cleared,
    approved: t.approved,
  };
}

/** A split's lines as the write's answer gave them, each as a short row. */
export function lineRows(s: Shown, lines: readonly E.SubTransaction[]): Record<string, unknown>[] {
  return lines
    .filter((x) => !x.deleted)
    .map((x) => ({
      id: x.id,
      amount: x.amount,
      amount_formatted: s.money(x.amount),
      category_id: x.category_id ?? null,
      category_name: s.category(x.category_id) ?? x.category_name ?? null,
      payee_name: s.payee(x.payee_id) ?? x.payee_name ?? null,
      memo: x.memo ?? null,
      ...(x.transfer_account_id ? { transfer_account_id: x.transfer_account_id } : {}),
    }));
}
