/**
 * The budget's month-end figures, kept while generating: closed month by month with the month
 * rule of budget-math.ts (the one derived.ts uses), from the assignments in the store and the
 * flows the ledger gathered. The generator decides each month's assignments from these, so it
 * need not recompute the whole budget (O(transactions)) between months: large demos then fit in
 * a few `change()` calls. It also remembers what each category spent lately: the household's
 * habits, which it budgets by.
 */
import type { BudgetStore } from '../store/budget-store.js';
import { closeMonth, emptyStart, type ClosedMonth, type MonthFlows, type MonthStart } from '../store/budget-math.js';
import type { CategoryRec } from '../store/records.js';

/** How many past months a habit is the average of, and how many are remembered. */
const HABIT_MONTHS = 3;
const KEPT_MONTHS = 12;

export class RunningBudget {
  /** Where the month being planned starts (the last closed month's end). */
  start: MonthStart = emptyStart();
  /** Net spending per category in the last closed months, newest last. */
  private readonly spent: Map<string, number>[] = [];

  /** What a category brings into the month being planned. */
  carryOf(c: CategoryRec): number {
    return Math.max(0, this.start.balances.get(c.id) ?? 0);
  }

  /** Ready to Assign at the start of the month being planned: last month's, less its cash overspending. */
  get readyToAssign(): number {
    return this.start.cumulative - this.start.overspent;
  }

  /** What the household usually spends in a category each month; `fallback` until it has a history. */
  habit(c: CategoryRec, fallback = 0): number {
    return this.average(c, HABIT_MONTHS, fallback);
  }

  /** What a category spent monthly on average over the last `months` closed months (at most 12). */
  average(c: CategoryRec, months: number, fallback = 0): number {
    const recent = this.spent.slice(-months);
    if (!recent.length) return fallback;
    return Math.round(recent.reduce((sum, m) => sum + (m.get(c.id) ?? 0), 0) / recent.length);
  }

  /** The month's figures with the assignments made so far (nothing is closed). */
  preview(store: BudgetStore, month: string, flows: MonthFlows): ClosedMonth {
    return closeMonth(categoriesOf(store), this.start, flows, store.rec.months.get(month)?.budgeted ?? {});
  }

  /** Closes `month`: its figures become the next month's start. */
  close(store: BudgetStore, month: string, flows: MonthFlows): ClosedMonth {
    const closed = this.preview(store, month, flows);
    this.start = closed.next;
    const spent = new Map<string, number>();
    for (const [id, amount] of flows.activity) spent.set(id, -amount);
    this.spent.push(spent);
    if (this.spent.length > KEPT_MONTHS) this.spent.shift();
    return closed;
  }
}

/** The categories a month is closed over: live, Ready to Assign aside, in record order. */
function categoriesOf(store: BudgetStore): CategoryRec[] {
  return [...store.rec.categories.values()].filter((c) => !c.deleted && c.role !== 'ready_to_assign');
}
