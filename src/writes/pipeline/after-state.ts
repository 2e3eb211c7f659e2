/**
 * What a write's answer says about the budget as the write left it, so that no read is needed to
 * report it: the accounts' balances, the approval queue, where recategorized money now sits. Each
 * is computed from the budget's copy with the write's answer merged in (no request of its own):
 * an account's balances as the sums of its transactions (the copy's account figures wait for the
 * next sync), the queue as review_transactions counts it.
 */
import { uncategorizedLine } from '../../insights/attention/attention.js';
import { queueFacts } from '../../insights/attention/queue-count.js';
import { BudgetView } from '../../insights/core/view.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { Shown } from './entities.js';

/** A figure as every write answer gives it: milliunits and the budget's formatted text. */
export function moneyOf(s: Shown, name: string, milliunits: number): Record<string, number | string> {
  return { [`${name}_milliunits`]: milliunits, [`${name}_formatted`]: s.money(milliunits) };
}

/**
 * Each account's balances after the write: working (every transaction), cleared (cleared and
 * reconciled ones) and uncleared, as YNAB adds them up.
 */
export function accountBalances(r: BudgetReplica, s: Shown, accountIds: readonly string[]): Record<string, unknown>[] {
  const ids = [...new Set(accountIds)];
  const sums = new Map(ids.map((id) => [id, { balance: 0, cleared: 0 }]));
  for (const t of r.transactions.values()) {
    const sum = sums.get(t.account_id);
    if (!sum || t.deleted) continue;
    sum.balance += t.amount;
    if (t.cleared !== 'uncleared') sum.cleared += t.amount;
  }
  return ids.map((id) => {
    const sum = sums.get(id)!;
    return {
      account_id: id,
      account_name: s.account(id),
      ...moneyOf(s, 'balance', sum.balance),
      ...moneyOf(s, 'cleared_balance', sum.cleared),
      ...moneyOf(s, 'uncleared_balance', sum.balance - sum.cleared),
    };
  });
}

/**
 * Whether the copy lacks a transfer's other side in one of these accounts (our own write made the
 * transfer and the copy has not synced since): their sums would be short of it.
 */
export function missesTransferSides(r: BudgetReplica, accountIds: readonly string[]): boolean {
  const ids = new Set(accountIds);
  // The other side of a transfer from a split's line is that line (its id is a line's).
  let lineIds: Set<string> | undefined;
  const has = (id: string) => r.transactions.has(id) || (lineIds ??= new Set([...r.lines.values()].flatMap((m) => [...m.keys()]))).has(id);
  for (const t of r.transactions.values())
    if (!t.deleted && t.transfer_account_id && ids.has(t.transfer_account_id) && t.transfer_transaction_id && !has(t.transfer_transaction_id)) return true;
  for (const m of r.lines.values())
    for (const x of m.values())
      if (!x.deleted && x.transfer_account_id && ids.has(x.transfer_account_id) && x.transfer_transaction_id && !r.transactions.has(x.transfer_transaction_id))
        return true;
  return false;
}

/**
 * The approval queue after the write: how many transactions still wait for approval, how many of
 * those have no category (as review_transactions and needs_attention count them), and how many
 * of them are the two sides of one transfer (each counted in its own account; queue-count.ts).
 */
export function approvalQueue(r: BudgetReplica): Record<string, number | string> {
  const view = BudgetView.of(r);
  const list = [...r.transactions.values()].filter((t) => !t.deleted && !t.approved);
  const waiting = new Set(list.map((t) => t.id));
  const uncategorized = new Set(view.lines.filter((l) => waiting.has(l.transaction.id) && uncategorizedLine(view, l)).map((l) => l.transaction.id));
  const f = queueFacts(view, list);
  const sides = f.transferSides
    ? `, of which ${f.transferSides} ${f.transferSides === 2 * f.transfers ? `are the two sides of ${f.transfers === 1 ? 'one transfer' : `${f.transfers} transfers`}` : `are sides of ${f.transfers} transfers`}`
    : '';
  return {
    unapproved_left: waiting.size,
    unapproved_uncategorized: uncategorized.size,
    unapproved_transfer_sides: f.transferSides,
    ...(sides ? { unapproved_note: `${waiting.size} left unapproved${sides}; ${uncategorized.size} without a category.` } : {}),
  };
}

/** Transactions grouped by a category: how many, and their total. */
export function byCategory(s: Shown, items: readonly { category_id: string | null; amount: number }[]): Record<string, unknown>[] {
  const groups = new Map<string | null, { count: number; total: number }>();
  for (const x of items) {
    const g = groups.get(x.category_id) ?? { count: 0, total: 0 };
    g.count += 1;
    g.total += x.amount;
    groups.set(x.category_id, g);
  }
  return [...groups].map(([id, g]) => ({ category_id: id, category_name: s.category(id), count: g.count, ...moneyOf(s, 'total', g.total) }));
}
