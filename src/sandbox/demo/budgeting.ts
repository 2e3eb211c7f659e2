/**
 * How the demo "user" assigns money each month: what is available (last month's Ready to
 * Assign, this month's income, less last month's overspending, as derived.ts counts them)
 * goes to categories in priority order, by what their goals ask (goals.ts decides, so the
 * demo follows the same targets the API reports) and by what was actually spent. Whatever is
 * left goes to savings sinks, keeping a little in Ready to Assign. When money runs short, the
 * last categories get less and overspend: realistic, and it exercises the arithmetic.
 */
import { assign } from '../domain/months.js';
import type { BudgetStore } from '../store/budget-store.js';
import { goalFigures } from '../store/goals.js';
import type { CategoryRec } from '../store/records.js';
import type { RunningBudget } from './figures.js';
import type { Ledger } from './ledger.js';

/**
 * cover: what the goal asks, and at least what was spent beyond what was left;
 * goal: only what the goal asks (spending beyond it overspends);
 * payment: a credit payment category: the payments made that it did not already hold.
 */
export type Policy = 'cover' | 'goal' | 'payment';

export interface BudgetItem {
  category: CategoryRec;
  policy: Policy;
  /** 1: assigned on the first payday; 2: on the second (skipped when that is still to come). */
  action: 1 | 2;
  /** Most a goal may ask for in one month (a big balance target is reached over time). */
  cap?: number;
}

export interface MonthBudget {
  month: string;
  items: BudgetItem[];
  /** Where money left over goes, in order, each up to an available balance of `upTo`. */
  sinks: { category: CategoryRec; upTo?: number }[];
  /** Timestamps of the two assign actions; the second is null when it is still to come. */
  moments: [string, string | null];
  /** Left unassigned in Ready to Assign. */
  keep: number;
  /** Savings to draw on (by assigning a negative amount) when the month's needs exceed the money. */
  reserve?: CategoryRec;
}

const toCents = (milliunits: number) => Math.ceil(milliunits / 10) * 10;

/** Assigns one month. `last` holds the figures through the previous month. Runs inside `change()`. */
export function budgetMonth(store: BudgetStore, ledger: Ledger, last: RunningBudget, plan: MonthBudget): void {
  const { month } = plan;
  let available = last.toBeBudgeted + ledger.income - last.overspent;
  const carryOf = (c: CategoryRec) => last.carryOf(c);
  const goalNeed = (item: BudgetItem, carry: number) => {
    if (!item.category.goal) return 0;
    const need = goalFigures(item.category.goal, { budgeted: 0, activity: 0, balance: carry, carry }, month).under_funded;
    return item.cap === undefined ? need : Math.min(need, item.cap);
  };

  const [firstAt, secondAt] = plan.moments;
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  const assigned = new Map<string, number>();
  const give = (action: 1 | 2, c: CategoryRec, amount: number) => {
    if (amount <= 0) return;
    const target = action === 1 ? first : second;
    target.set(c.id, (target.get(c.id) ?? 0) + amount);
    assigned.set(c.id, (assigned.get(c.id) ?? 0) + amount);
    available -= amount;
  };

  const needs = plan.items
    .filter((item) => item.action === 1 || secondAt)
    .map((item) => {
      const c = item.category;
      const carry = carryOf(c);
      let need: number;
      if (item.policy === 'payment') {
        need = (ledger.paymentsInto.get(c.linked_account_id ?? '') ?? 0) - carry;
      } else {
        const spent = -(ledger.activity.get(c.id) ?? 0);
        need = item.policy === 'cover' ? Math.max(goalNeed(item, carry), spent - carry) : goalNeed(item, carry);
      }
      return { item, need: toCents(Math.max(0, need)) };
    });

  // Short this month: move money back out of the reserve (a negative assignment), as far as it holds.
  const shortfall = needs.reduce((sum, n) => sum + n.need, 0) - available;
  if (plan.reserve && shortfall > 0) {
    const pull = Math.min(shortfall, Math.max(0, carryOf(plan.reserve)));
    if (pull > 0) {
      first.set(plan.reserve.id, -pull);
      assigned.set(plan.reserve.id, -pull);
      available += pull;
    }
  }
  for (const { item, need } of needs) give(item.action, item.category, Math.min(need, available));

  if (secondAt) {
    let surplus = available - plan.keep;
    for (const sink of plan.sinks) {
      if (surplus <= 0) break;
      const held = carryOf(sink.category) + (assigned.get(sink.category.id) ?? 0);
      const room = sink.upTo === undefined ? surplus : Math.max(0, sink.upTo - held);
      const amount = Math.min(room, surplus);
      give(2, sink.category, amount);
      surplus -= amount;
    }
  }

  // Each call is one action: one money movement group, as a user's click on "Assign".
  assign(store, month, [...first].map(([categoryId, budgeted]) => ({ categoryId, budgeted })), firstAt);
  if (secondAt && second.size) {
    const totals = [...second].map(([categoryId, amount]) => ({ categoryId, budgeted: (first.get(categoryId) ?? 0) + amount }));
    assign(store, month, totals, secondAt);
  }
}
