/**
 * The series the recurring items and the price-rise check both read, so they see the same money:
 * one payee's transactions in one account, outflows and inflows apart (a transaction's lines of
 * that payee summed), oldest first. Closed accounts and starting balances are left out; off-budget
 * accounts only when asked. One pass over the lines and one sort per series: O(n log n).
 */
import type { BudgetView } from '../core/view.js';

export interface Charge {
  /** `transaction id|payee id`: unique, and the order's tie-break. */
  id: string;
  date: string;
  /** Signed milliunits. */
  amount: number;
}

export interface Series {
  account_id: string;
  payee_id: string;
  /** '-' for outflows, '+' for inflows. */
  sign: '-' | '+';
  charges: Charge[];
}

export function seriesOf(view: BudgetView, includeOffBudget: boolean): Series[] {
  const sums = new Map<string, { account_id: string; payee_id: string; charge: Charge }>();
  for (const l of view.lines) {
    if (!l.payee_id || !(l.on_budget || includeOffBudget) || l.kind === 'starting_balance') continue;
    if (view.replica.accounts.get(l.account_id)?.closed) continue;
    const id = `${l.transaction.id}|${l.payee_id}`;
    const s = sums.get(id);
    if (s) s.charge.amount += l.amount;
    else sums.set(id, { account_id: l.account_id, payee_id: l.payee_id, charge: { id, date: l.date, amount: l.amount } });
  }
  const out = new Map<string, Series>();
  for (const { account_id, payee_id, charge } of sums.values()) {
    if (charge.amount === 0) continue;
    const sign = charge.amount < 0 ? '-' : '+';
    const k = `${account_id}|${payee_id}|${sign}`;
    const s = out.get(k) ?? { account_id, payee_id, sign, charges: [] };
    s.charges.push(charge);
    out.set(k, s);
  }
  for (const s of out.values()) s.charges.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : 1));
  return [...out.values()];
}
