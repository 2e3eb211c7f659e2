/**
 * Everything the API shows that follows from the stored facts, computed in one pass:
 *  - account balances (working, cleared, uncleared);
 *  - per month and category: assigned, activity (split lines included) and available, with
 *    positive balances rolling forward and cash overspending resetting to zero and reducing
 *    the next month's Ready to Assign; credit card spending moving money into the card's
 *    payment category and payments moving it out;
 *  - per month: income (inflows to Ready to Assign), assigned, activity, Ready to Assign
 *    and age of money;
 *  - goal progress per category and month, and each scheduled transaction's next date.
 */
import { currentMonth, daysBetween, monthOf, monthRange, addMonths, addDays } from '../../api/dates.js';
import { goalFigures, type CategoryFigures, type GoalFigures } from './goals.js';
import type { BudgetRec, CategoryRec, TransactionRec } from './records.js';
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
  goal(category: CategoryRec, month: string): GoalFigures | null;
}

const CREDIT_ACCOUNT_TYPES = new Set(['creditCard', 'lineOfCredit']);

function linesOf(t: TransactionRec) {
  const subs = t.subtransactions.filter((s) => !s.deleted);
  return subs.length ? subs : [t];
}

function add(map: Map<string, number>, key: string, amount: number) {
  map.set(key, (map.get(key) ?? 0) + amount);
}

export function computeDerived(b: BudgetRec, now: Date): Derived {
  const today = now.toISOString().slice(0, 10);
  const thisMonth = currentMonth(now);

  const onBudget = new Set<string>();
  const paymentCategoryOf = new Map<string, string>();
  for (const a of b.accounts.values()) if (!a.deleted && a.on_budget) onBudget.add(a.id);
  let rta = '';
  let uncategorized = '';
  for (const c of b.categories.values()) {
    if (c.role === 'ready_to_assign') rta = c.id;
    if (c.role === 'uncategorized') uncategorized = c.id;
    if (c.role === 'credit_card_payment' && c.linked_account_id) paymentCategoryOf.set(c.linked_account_id, c.id);
  }

  const balances = new Map<string, Balances>();
  for (const a of b.accounts.values()) balances.set(a.id, { balance: 0, cleared: 0, uncleared: 0 });
  const income = new Map<string, number>();
  const monthActivity = new Map<string, number>();
  const activity = new Map<string, Map<string, number>>(); // month -> category -> amount
  const cash: { date: string; seq: number; amount: number }[] = [];
  let firstMonth = b.first_month;

  for (const t of b.transactions.values()) {
    if (t.deleted) continue;
    const bal = balances.get(t.account_id);
    if (bal) {
      bal.balance += t.amount;
      if (t.cleared === 'uncleared') bal.uncleared += t.amount;
      else bal.cleared += t.amount;
    }
    if (!onBudget.has(t.account_id)) continue;
    const m = monthOf(t.date);
    if (m < firstMonth) firstMonth = m;
    let perCategory = activity.get(m);
    if (!perCategory) activity.set(m, (perCategory = new Map()));
    const account = b.accounts.get(t.account_id);
    const payment = account && CREDIT_ACCOUNT_TYPES.has(account.type) ? paymentCategoryOf.get(account.id) : undefined;
    let budgetFlow = 0;
    for (const line of linesOf(t)) {
      const internalTransfer = line.transfer_account_id !== null && onBudget.has(line.transfer_account_id);
      if (!internalTransfer) {
        if (line.category_id === rta && rta) add(income, m, line.amount);
        else {
          add(monthActivity, m, line.amount);
          add(perCategory, line.category_id ?? uncategorized, line.amount);
        }
        budgetFlow += line.amount;
      }
      // Card spending funded from a category moves that money into the card's payment
      // category; a payment into the card (an on-budget transfer in) moves it out again. A draw
      // or cash advance (an on-budget transfer out) is new debt, not money for the payment.
      const spending = !internalTransfer && line.category_id !== null && line.category_id !== rta;
      if (payment && (spending || (internalTransfer && line.amount > 0))) {
        add(perCategory, payment, -line.amount);
      }
    }
    if (budgetFlow !== 0) cash.push({ date: t.date, seq: t.seq, amount: budgetFlow });
  }

  // Months: from the first month to the current one, or further if money was assigned ahead.
  let lastMonth = thisMonth;
  for (const rec of b.months.values()) {
    const used = rec.note !== null || Object.values(rec.budgeted).some((v) => v !== 0);
    if (used && rec.month > lastMonth) lastMonth = rec.month;
  }
  if (firstMonth > lastMonth) firstMonth = lastMonth;

  const categories = [...b.categories.values()].filter((c) => !c.deleted && c.role !== 'ready_to_assign');
  const ageOfMoney = computeAgeOfMoney(cash, monthRange(firstMonth, lastMonth), today);
  const months: MonthFigures[] = [];
  const monthIndex = new Map<string, MonthFigures>();
  const previous = new Map<string, number>();
  let toBeBudgeted = 0;
  let overspentBefore = 0;

  for (const month of monthRange(firstMonth, lastMonth)) {
    const rec = b.months.get(month);
    const perCategory = activity.get(month);
    const figures = new Map<string, CategoryFigures>();
    let budgetedTotal = 0;
    let overspent = 0;
    for (const c of categories) {
      const prev = previous.get(c.id) ?? 0;
      // Payment categories carry what is still owed; elsewhere only positive balances roll over.
      const carry = c.role === 'credit_card_payment' ? prev : Math.max(0, prev);
      const budgeted = rec?.budgeted[c.id] ?? 0;
      const act = perCategory?.get(c.id) ?? 0;
      const balance = carry + budgeted + act;
      budgetedTotal += budgeted;
      if (balance < 0 && c.role !== 'credit_card_payment') overspent += -balance;
      figures.set(c.id, { budgeted, activity: act, balance, carry });
      previous.set(c.id, balance);
    }
    const monthIncome = income.get(month) ?? 0;
    toBeBudgeted = toBeBudgeted + monthIncome - budgetedTotal - overspentBefore;
    overspentBefore = overspent;
    if (rta) figures.set(rta, { budgeted: 0, activity: monthIncome, balance: toBeBudgeted, carry: 0 });
    const mf: MonthFigures = {
      month,
      note: rec?.note ?? null,
      income: monthIncome,
      budgeted: budgetedTotal,
      activity: monthActivity.get(month) ?? 0,
      to_be_budgeted: toBeBudgeted,
      age_of_money: ageOfMoney.get(month) ?? null,
      categories: figures,
    };
    months.push(mf);
    monthIndex.set(month, mf);
  }

  const dateNext = new Map<string, string>();
  for (const s of b.scheduled_transactions.values()) {
    if (!s.deleted) dateNext.set(s.id, nextOccurrence(s.date_first, s.frequency, today));
  }

  const goalCache = new Map<string, GoalFigures | null>();
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
        goalCache.set(key, goalFigures(category.goal, f, month));
      }
      return goalCache.get(key) ?? null;
    },
  };
}

/**
 * Age of money: money is spent first-in first-out; each outflow's age is the amount-weighted
 * number of days its money sat in the budget. A month's figure is the average age of the last
 * ten outflows up to the end of that month (or today), null when nothing was spent yet.
 */
function computeAgeOfMoney(cash: { date: string; seq: number; amount: number }[], months: string[], today: string): Map<string, number> {
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
