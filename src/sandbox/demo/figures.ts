/**
 * The budget's month-end figures, kept while generating: each category's available balance and
 * Ready to Assign, closed month by month by the same rules as derived.ts (positive balances roll
 * over, a payment category carries what it holds, cash overspending comes off the next month's
 * Ready to Assign). The generator decides each month's assignments from these, so it need not
 * recompute the whole budget (O(transactions)) between months: large demos then fit in a few
 * `change()` calls. The tests check that the resulting Ready to Assign stays plausible in
 * derived.ts's own figures, month by month.
 */
import type { BudgetStore } from '../store/budget-store.js';
import type { CategoryRec } from '../store/records.js';
import type { Ledger } from './ledger.js';

export class RunningBudget {
  /** Available per category at the end of the last closed month. */
  private readonly balances = new Map<string, number>();
  /** Ready to Assign at the end of the last closed month. */
  toBeBudgeted = 0;
  /** The last closed month's cash overspending, taken from the next month's Ready to Assign. */
  overspent = 0;

  /** What a category brings into the next month. */
  carryOf(c: CategoryRec): number {
    const balance = this.balances.get(c.id) ?? 0;
    return c.role === 'credit_card_payment' ? balance : Math.max(0, balance);
  }

  /** Closes `month` with its assignments (in the store) and its activity and income (in the ledger). */
  close(store: BudgetStore, month: string, ledger: Ledger): void {
    const budgeted = store.rec.months.get(month)?.budgeted ?? {};
    let assigned = 0;
    let overspent = 0;
    for (const c of store.rec.categories.values()) {
      if (c.deleted || c.role === 'ready_to_assign') continue;
      const amount = budgeted[c.id] ?? 0;
      const balance = this.carryOf(c) + amount + (ledger.activity.get(c.id) ?? 0);
      assigned += amount;
      if (balance < 0 && c.role !== 'credit_card_payment') overspent -= balance;
      this.balances.set(c.id, balance);
    }
    this.toBeBudgeted += ledger.income - assigned - this.overspent;
    this.overspent = overspent;
  }
}
