/**
 * Everything the API shows that follows from the stored facts, computed in one pass:
 *  - account balances (working, cleared, uncleared);
 *  - per month and category: assigned, activity (split lines included) and available, by the
 *    month rule of budget-math.ts (carry-over, cash and credit overspending, the money card
 *    spending moves into payment categories, payments and draws);
 *  - per month: income (inflows to Ready to Assign), assigned, activity, Ready to Assign (a past
 *    month as it closed; the current and future months less what is assigned after them, as
 *    "assigned in future" does in the app, down to zero: see readyToAssign) and age of money;
 *  - goal progress per category and month, and each scheduled transaction's next date
 *    (scheduleDates).
 */
import { currentMonth, daysBetween, monthOf, monthRange, addMonths, addDays } from '../../api/dates.js';
import { budgetShape, closeMonth, collectFlows, emptyStart, type CashMove, type ClosedMonth } from './budget-math.js';
import { withExportFigures } from './export-figures.js';
import { goalFigures, type CategoryFigures, type GoalFigures, type GoalView } from './goals.js';
import type { BudgetRec, CategoryRec } from './records.js';
import { nextOccurrence } from '../../api/schedule.js';

export interface Balances {
  balance: number;
  cleared: number;
  uncleared: number;
}

export interface MonthFigures {
  month: string;
  note: string | null;
  income: number;
  budgeted: number;
  activity: number;
  to_be_budgeted: number;
  age_of_money: number | null;
  categories: Map<string, CategoryFigures>;
}

export interface Derived {
  today: string;
  currentMonth: string;
  firstMonth: string;
  lastMonth: string;
  balances: Map<string, Balances>;
  months: MonthFigures[];
  monthIndex: Map<string, MonthFigures>;
  dateNext: Map<string, string>;
  goal(category: CategoryRec, month: string): GoalView | null;
}

export type { GoalView };

/** The figures the API shows: the sandbox's own, or for a budget loaded from an export, YNAB's (export-figures.ts). */
export function computeDerived(b: BudgetRec, now: Date): Derived {
  const own = computeOwn(b, now);
  return b.export_figures ? withExportFigures(own, b.export_figures) : own;
}

/** The sandbox's own arithmetic over the budget's facts. */
export function computeOwn(b: BudgetRec, now: Date): Derived {
  const today = now.toISOString().slice(0, 10);
  const thisMonth = currentMonth(now);

  const balances = new Map<string, Balances>();
  for (const a of b.accounts.values()) balances.set(a.id, { balance: 0, cleared: 0, uncleared: 0 });
  let firstMonth = b.first_month;
  const shape = budgetShape(b);
  for (const t of b.transactions.values()) {
    if (t.deleted) continue;
    const bal = balances.get(t.account_id);
    if (bal) {
      bal.balance += t.amount;
      if (t.cleared === 'uncleared') bal.uncleared += t.amount;
      else bal.cleared += t.amount;
    }
    if (shape.onBudget.has(t.account_id) && t.date < firstMonth) firstMonth = monthOf(t.date);
  }
  const flows = collectFlows(b, shape);

  // Months: from the first month to the current one, or further if money was assigned ahead.
  let lastMonth = thisMonth;
  for (const rec of b.months.values()) {
    const used = rec.note !== null || Object.values(rec.budgeted).some((v) => v !== 0);
    if (used && rec.month > lastMonth) lastMonth = rec.month;
  }
  if (firstMonth > lastMonth) firstMonth = lastMonth;

  const categories = [...b.categories.values()].filter((c) => !c.deleted && c.role !== 'ready_to_assign');
  const range = monthRange(firstMonth, lastMonth);
  const ageOfMoney = computeAgeOfMoney(flows.cashMoves, range, today);
  const closed: ClosedMonth[] = [];
  let start = emptyStart();
  for (const month of range) {
    const c = closeMonth(categories, start, flows.months.get(month), b.months.get(month)?.budgeted ?? {});
    closed.push(c);
    start = c.next;
  }
  // What is assigned after each month, for the current and future months' Ready to Assign.
  const assignedAfter: number[] = new Array(range.length).fill(0);
  for (let i = range.length - 2; i >= 0; i--) assignedAfter[i] = assignedAfter[i + 1]! + closed[i + 1]!.budgeted;

  const months: MonthFigures[] = [];
  const monthIndex = new Map<string, MonthFigures>();
  range.forEach((month, i) => {
    const c = closed[i]!;
    const toBeBudgeted = month < thisMonth ? c.cumulative : readyToAssign(c.cumulative, assignedAfter[i]!);
    if (shape.rta) c.categories.set(shape.rta, { budgeted: 0, activity: c.income, balance: toBeBudgeted, carry: 0 });
    const rec = b.months.get(month);
    const mf: MonthFigures = {
      month,
      note: rec?.note ?? null,
      income: c.income,
      budgeted: c.budgeted,
      activity: c.activity,
      to_be_budgeted: toBeBudgeted,
      age_of_money: ageOfMoney.get(month) ?? null,
      categories: c.categories,
    };
    months.push(mf);
    monthIndex.set(month, mf);
  });

  const dateNext = scheduleDates(b, today);

  const goalCache = new Map<string, GoalFigures | null>();
  // The currency's minor unit in milliunits (10 for cents): targets ask whole units of it.
  const unit = 10 ** Math.max(0, 3 - (b.currency_format?.decimal_digits ?? 2));
  return {
    today,
    currentMonth: thisMonth,
    firstMonth,
    lastMonth,
    balances,
    months,
    monthIndex,
    dateNext,
    goal(category, month) {
      if (!category.goal) return null;
      const key = `${category.id}:${month}`;
      if (!goalCache.has(key)) {
        const f = monthIndex.get(month)?.categories.get(category.id) ?? { budgeted: 0, activity: 0, balance: 0, carry: 0 };
        goalCache.set(key, goalFigures(category.goal, f, month, undefined, unit));
      }
      return goalCache.get(key) ?? null;
    },
  };
}

/**
 * Ready to Assign of the current or a future month: what the month has to assign (`own`: income
 * less assignments and cash overspending through it) less what later months took from it. Later
 * months can take only what the month holds: assigning more in a future month than Ready to
 * Assign holds leaves this month at 0.00 and that future month negative, YNAB's help "Assigning
 * Money in Future Months" (https://docs.youneedabudget.com/article/230-future-budgeting: "Ready to
 * Assign will remain $0.00 in the current month—and the $200 will be taken from the future month's
 * Ready to Assign") and "When Ready to Assign is Negative: An Overview"
 * (https://support.ynab.com/en_us/when-ready-to-assign-is-negative-an-overview-HylZA0zCc: "you may
 * not see a negative Ready to Assign in the current month due to overassigning in the future").
 * A month overassigned by itself stays negative.
 */
export function readyToAssign(own: number, assignedAfter: number): number {
  return own - Math.min(assignedAfter, Math.max(own, 0));
}

/**
 * Age of money: money is spent first-in first-out; each outflow's age is the amount-weighted
 * number of days its money sat in the budget. A month's figure is the average age of the last
 * ten outflows up to the end of that month (or today), null when nothing was spent yet.
 */
function computeAgeOfMoney(cash: CashMove[], months: string[], today: string): Map<string, number> {
  cash.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.seq - b.seq));
  const inflows: { date: string; left: number }[] = [];
  let head = 0;
  const ages: { date: string; age: number }[] = [];
  for (const c of cash) {
    if (c.amount > 0) {
      inflows.push({ date: c.date, left: c.amount });
      continue;
    }
    let need = -c.amount;
    let weighted = 0;
    let covered = 0;
    while (need > 0 && head < inflows.length) {
      const inflow = inflows[head]!;
      const take = Math.min(need, inflow.left);
      // Ages are days, not money: a float weighted mean is fine here.
      weighted += take * daysBetween(inflow.date, c.date);
      covered += take;
      inflow.left -= take;
      need -= take;
      if (inflow.left === 0) head += 1;
    }
    ages.push({ date: c.date, age: covered > 0 ? Math.round(weighted / covered) : 0 });
  }
  const result = new Map<string, number>();
  let i = 0;
  const window: number[] = [];
  for (const month of months) {
    const endOfMonth = addDays(addMonths(month, 1), -1);
    const cutoff = endOfMonth < today ? endOfMonth : today;
    while (i < ages.length && ages[i]!.date <= cutoff) {
      window.push(ages[i]!.age);
      if (window.length > 10) window.shift();
      i += 1;
    }
    if (window.length) result.set(month, Math.round(window.reduce((s, a) => s + a, 0) / window.length));
  }
  return result;
}

/**
 * Each scheduled transaction's next date: its first occurrence on or after today, except that an
 * occurrence today already in the register (a transaction today in the schedule's account, to its
 * payee, of its amount) is past: YNAB enters a scheduled transaction on its day and moves the next
 * date on, so its state never has a payment both entered and still scheduled. The demo's history
 * enters its bills and paychecks up to today, and a budget loaded from an export holds what YNAB
 * entered: on the 1st, the demo's rent and payroll were both entered and scheduled for the day,
 * and a projection from the API counted them twice. An occurrence today that nothing entered (the
 * sandbox does not enter schedules itself) stays scheduled for today, as in YNAB before it enters
 * it. A one-time schedule keeps its date.
 */
export function scheduleDates(b: BudgetRec, today: string): Map<string, string> {
  const enteredToday = new Set<string>();
  for (const t of b.transactions.values()) if (!t.deleted && t.date === today) enteredToday.add(`${t.account_id} ${t.payee_id} ${t.amount}`);
  const dates = new Map<string, string>();
  for (const s of b.scheduled_transactions.values()) {
    if (s.deleted) continue;
    const next = nextOccurrence(s.date_first, s.frequency, today);
    const entered = next === today && s.frequency !== 'never' && enteredToday.has(`${s.account_id} ${s.payee_id} ${s.amount}`);
    dates.set(s.id, entered ? nextOccurrence(s.date_first, s.frequency, addDays(today, 1)) : next);
  }
  return dates;
}
