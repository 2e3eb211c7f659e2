/**
 * How the demo "user" budgets a month, as a YNAB user does:
 *  - At the start of the month (the first payday) and on the second payday, money is assigned
 *    from targets and habits: what each category's target asks (goals.ts decides, so the demo
 *    follows the targets the API reports) and what the household usually spends there, less what
 *    the category still holds. Card payment categories get the debt they do not cover yet.
 *  - What is left goes to savings sinks; Ready to Assign is worked down to a little (`keep`).
 *    Short of money, the reserve is drawn on first, and the last categories get less.
 *  - Later in the month some overspent categories are covered by moving money from others, and
 *    some are left overspent into the next month (cash overspending then comes off next month's
 *    Ready to Assign; credit overspending stays on the card as debt).
 * The money available is what derived.ts counts: last month's Ready to Assign, less last month's
 * cash overspending, plus this month's income (figures.ts keeps these by the same month rule).
 */
import { assign, moveMoney } from '../domain/months.js';
import type { BudgetStore } from '../store/budget-store.js';
import { goalFigures } from '../store/goals.js';
import type { MonthFlows } from '../store/budget-math.js';
import type { CategoryRec } from '../store/records.js';
import type { RunningBudget } from './figures.js';
import type { Ledger } from './ledger.js';
import type { Random } from './random.js';

/**
 * cover: what the target asks, and at least what the household usually spends there;
 * goal: only what the target asks (spending beyond it overspends);
 * payment: a card payment category: the card's debt it does not cover yet.
 */
export type Policy = 'cover' | 'goal' | 'payment';

export interface BudgetItem {
  category: CategoryRec;
  policy: Policy;
  /** 1: assigned on the first payday; 2: on the second (skipped when that is still to come). */
  action: 1 | 2;
  /** Most a target may ask for in one month (a big balance target is reached over time). */
  cap?: number;
  /** What the household expects to spend here monthly, until it has a history. */
  expected?: number;
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
  /** Per credit account: its debt at the start of the month. */
  debts?: Map<string, number>;
  /**
   * Covering overspending later in the month: when, how likely for each overspent category
   * (always when it is over `always`), and from which categories, in order.
   */
  cover: { at: string; chance: number; always?: number; from: CategoryRec[] } | null;
}

const toCents = (milliunits: number) => Math.ceil(milliunits / 10) * 10;

/** Assigns one month and covers some overspending. Runs inside `change()`, after the month's transactions are posted. */
export function budgetMonth(store: BudgetStore, ledger: Ledger, running: RunningBudget, plan: MonthBudget, rng: Random): void {
  const { month } = plan;
  const flows = ledger.flows(month);
  let available = running.readyToAssign + flows.income;
  const goalNeed = (item: BudgetItem, carry: number) => {
    if (!item.category.goal) return 0;
    // As the household sees it at the start of the month (a yearly bill's due date then).
    const need = goalFigures(item.category.goal, { budgeted: 0, activity: 0, balance: carry, carry }, month, month).under_funded;
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
      const carry = running.carryOf(c);
      let need: number;
      if (item.policy === 'payment') need = (plan.debts?.get(c.linked_account_id ?? '') ?? 0) - carry;
      else if (item.policy === 'goal') need = goalNeed(item, carry);
      else need = Math.max(goalNeed(item, carry), running.habit(c, item.expected ?? 0) - carry);
      return { item, need: toCents(Math.max(0, need)) };
    });

  // Short this month: move money back out of the reserve (a negative assignment), as far as it holds.
  const shortfall = needs.reduce((sum, n) => sum + n.need, 0) - available;
  if (plan.reserve && shortfall > 0) {
    const pull = Math.min(shortfall, running.carryOf(plan.reserve));
    if (pull > 0) {
      first.set(plan.reserve.id, -pull);
      assigned.set(plan.reserve.id, -pull);
      available += pull;
    }
  }
  for (const { item, need } of needs) give(item.action, item.category, Math.min(need, Math.max(0, available)));

  if (secondAt) {
    let surplus = available - plan.keep;
    for (const sink of plan.sinks) {
      if (surplus <= 0) break;
      const held = running.carryOf(sink.category) + (assigned.get(sink.category.id) ?? 0);
      const room = sink.upTo === undefined ? surplus : Math.max(0, sink.upTo - held);
      const amount = Math.min(room, surplus);
      give(2, sink.category, amount);
      surplus -= amount;
    }
  }

  // Each call is one action: one money movement group, as a user's click on "Assign".
  assign(
    store,
    month,
    [...first].map(([categoryId, budgeted]) => ({ categoryId, budgeted })),
    firstAt,
  );
  if (secondAt && second.size) {
    const totals = [...second].map(([categoryId, amount]) => ({ categoryId, budgeted: (first.get(categoryId) ?? 0) + amount }));
    assign(store, month, totals, secondAt);
  }
  if (plan.cover) coverOverspending(store, running, plan, plan.cover, flows, rng);
}

/** Covers some of the month's overspending by moving money from the donor categories, one move each. */
function coverOverspending(
  store: BudgetStore,
  running: RunningBudget,
  plan: MonthBudget,
  cover: NonNullable<MonthBudget['cover']>,
  flows: MonthFlows,
  rng: Random,
): void {
  const figures = running.preview(store, plan.month, flows).categories;
  const balance = (c: CategoryRec) => figures.get(c.id)?.balance ?? 0;
  const left = new Map(cover.from.map((c) => [c.id, Math.max(0, balance(c))]));
  for (const { category: c, policy } of plan.items) {
    if (policy === 'payment' || balance(c) >= 0) continue;
    let short = -balance(c);
    if (short <= (cover.always ?? Infinity) && !rng.chance(cover.chance)) continue;
    for (const donor of cover.from) {
      if (short <= 0) break;
      const take = Math.min(short, left.get(donor.id) ?? 0);
      if (take <= 0) continue;
      moveMoney(store, plan.month, donor.id, c.id, take, cover.at, 'Covering overspending');
      left.set(donor.id, (left.get(donor.id) ?? 0) - take);
      short -= take;
    }
  }
}
