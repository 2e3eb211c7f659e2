/**
 * What forecast counts as coming: each a dated amount in one chosen account, from
 *  - scheduled transactions (every occurrence up to the horizon, both sides of a transfer, as
 *    upcoming projects them: ./schedule.ts);
 *  - recurring items the history shows (./recurring-detect.ts), except one a schedule already
 *    covers (same account and payee, or the two sides of a scheduled transfer, in the same
 *    direction): a recurring item that is also scheduled counts once, as scheduled;
 *  - optionally the month's assigned money still to spend, per category: this month what is
 *    assigned and not yet spent, later months their assigned amounts (the current month's where a
 *    month has none yet), less what scheduled and recurring items of that category already take,
 *    spent on the month's first day (today for this month) from the main account. Card payments
 *    are then left out of the recurring items: the assigned money stands for the card's spending.
 *    Money assigned to savings targets (TB, TBD, and NEED with a date ahead) stays in the bank.
 * Overdue scheduled occurrences (past their date, not entered) are counted today, marked so. A
 * recurring income whose amounts vary is left out unless `include` names "irregular_income"
 * (isIrregularIncome): it is not counted before it arrives.
 */
import { addMonths, monthOf } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import { after, detectRecurring, type Detected } from '../recurring/recurring-detect.js';
import { coveredBy } from '../recurring/covered.js';
import { datesOf, overdue } from '../core/schedule.js';
import type { BudgetView } from '../core/view.js';

export type Source = 'scheduled' | 'recurring' | 'assigned';
/** What `include` may name: the sources, and income that varies (not counted before it arrives unless named). */
export type Included = Source | 'irregular_income';

export interface FlowEvent {
  date: string;
  account_id: string;
  amount: number;
  source: Source;
  payee_id: string | null;
  category_id: string | null;
  /** Money coming in from outside the chosen accounts (pay, not a transfer). */
  income: boolean;
  /** A recurring income whose amounts vary (item 9 of issue 57): never payday. */
  irregular?: true;
  /** A scheduled occurrence past its date and not entered: its due date (it is counted today). */
  overdue?: string;
  /** The schedule, for a scheduled occurrence. */
  scheduled_id?: string;
}

export interface EventInput {
  view: BudgetView;
  today: string;
  until: string;
  accounts: ReadonlySet<string>;
  include: ReadonlySet<Included>;
  /** The account the assigned spending comes from. */
  main: string;
}

const sign = (n: number) => (n > 0 ? 1 : n < 0 ? -1 : 0);

function scheduledEvents(input: EventInput): FlowEvent[] {
  const { view, today, until } = input;
  const out: FlowEvent[] = [];
  for (const s of view.replica.scheduled.values()) for (const date of datesOf(s, today, until)) out.push(...occurrenceEvents(input, s, date));
  // Past their date and not entered (YNAB moves the next date on once one is): still owed, so counted today.
  for (const o of overdue(view, today)) for (const e of occurrenceEvents(input, o.scheduled, today)) out.push({ ...e, overdue: o.date });
  return out;
}

/** One occurrence of a schedule on `date`, in each chosen account it moves (both sides of a transfer). */
function occurrenceEvents(input: EventInput, s: E.ScheduledTransactionSummaryBase, date: string): FlowEvent[] {
  const { view, accounts } = input;
  const out: FlowEvent[] = [];
  const lines = view.replica.scheduledLinesOf(s.id).filter((x) => !x.deleted);
  const base = { date, source: 'scheduled' as const, payee_id: s.payee_id ?? null, scheduled_id: s.id };
  if (accounts.has(s.account_id)) {
    const income = s.amount > 0 && !s.transfer_account_id;
    if (lines.length) for (const x of lines) out.push({ ...base, account_id: s.account_id, amount: x.amount, category_id: x.category_id ?? null, income });
    else out.push({ ...base, account_id: s.account_id, amount: s.amount, category_id: s.category_id ?? null, income });
  }
  if (s.transfer_account_id && accounts.has(s.transfer_account_id))
    out.push({ ...base, account_id: s.transfer_account_id, amount: -s.amount, category_id: null, income: false });
  for (const x of lines)
    if (x.transfer_account_id && accounts.has(x.transfer_account_id))
      out.push({ ...base, account_id: x.transfer_account_id, amount: -x.amount, category_id: null, income: false });
  return out;
}

/** The recurring items forecast counts, with why the others are left out. */
export function recurringUsed(input: EventInput): { used: Detected[]; covered: Detected[] } {
  const { view, today, accounts, include } = input;
  const schedules = include.has('scheduled') ? [...view.replica.scheduled.values()] : [];
  const used: Detected[] = [];
  const covered: Detected[] = [];
  for (const item of detectRecurring(view, today)) {
    if (!accounts.has(item.account_id)) continue;
    if (include.has('assigned') && item.transfer_account_id && view.isCredit(item.transfer_account_id)) continue;
    (coveredBy(item, schedules, view) ? covered : used).push(item);
  }
  return { used, covered };
}

/**
 * A recurring income whose amounts vary (a freelance client's payments): no one can say when or
 * how much, so it is never payday, and it is counted only when `include` names "irregular_income".
 */
export function isIrregularIncome(item: Detected): boolean {
  return item.typical > 0 && !item.transfer_account_id && !item.steady;
}

function recurringEvents(input: EventInput, items: readonly Detected[]): FlowEvent[] {
  const out: FlowEvent[] = [];
  for (const item of items) {
    const income = item.typical > 0 && !item.transfer_account_id;
    const irregular = isIrregularIncome(item);
    if (irregular && !input.include.has('irregular_income')) continue;
    // Due and not seen yet: counted today.
    for (let d = item.next_date, n = 0; d <= input.until && n < 2000; d = after(item, d), n++)
      out.push({
        date: d < input.today ? input.today : d,
        account_id: item.account_id,
        amount: item.typical,
        source: 'recurring',
        payee_id: item.payee_id,
        category_id: item.category_id,
        income,
        ...(irregular ? { irregular: true as const } : {}),
      });
  }
  return out;
}

/** Each month's assigned money still to spend, less what scheduled and recurring items of its categories take. */
function assignedEvents(input: EventInput, taken: readonly FlowEvent[]): FlowEvent[] {
  const { view, today, until, main } = input;
  const r = view.replica;
  const thisMonth = monthOf(today);
  const current = r.months.get(thisMonth);
  if (!current) return [];
  const takes = new Map<string, number>();
  for (const e of taken)
    if (e.category_id && e.amount < 0) takes.set(`${monthOf(e.date)}|${e.category_id}`, (takes.get(`${monthOf(e.date)}|${e.category_id}`) ?? 0) - e.amount);
  const out: FlowEvent[] = [];
  for (let month = thisMonth; month <= until; month = addMonths(month, 1)) {
    const m = r.months.get(month);
    const cats = m && m.categories.some((c) => c.budgeted !== 0) ? m.categories : current.categories;
    for (const c of cats) {
      if (c.deleted || r.categories.get(c.id)?.internal || view.isPaymentCategory(c.id) || c.id === view.readyToAssignId) continue;
      // Money assigned to a savings target stays in the bank: it is not spending.
      if (isSavingsTarget(r.categories.get(c.id), today)) continue;
      // This month: what is assigned and not yet spent (cats are this month's categories then).
      const left = Math.max(0, month === thisMonth ? c.budgeted + c.activity : c.budgeted);
      const amount = left - (takes.get(`${month}|${c.id}`) ?? 0);
      if (amount > 0)
        out.push({
          date: month === thisMonth ? today : month,
          account_id: main,
          amount: -amount,
          source: 'assigned',
          payee_id: null,
          category_id: c.id,
          income: false,
        });
    }
  }
  return out;
}

/** A savings target: a balance to build (TB, TBD), or a need with a date still ahead. */
export function isSavingsTarget(c: E.Category | undefined, today: string): boolean {
  if (!c?.goal_type) return false;
  if (c.goal_type === 'TB' || c.goal_type === 'TBD') return true;
  const due = c.goal_target_date ?? c.goal_target_month;
  return c.goal_type === 'NEED' && !!due && due > today;
}

/** Every event up to the horizon, in the order they are counted: by date, outflows before inflows on a day. */
export function forecastEvents(input: EventInput): { events: FlowEvent[]; used: Detected[]; covered: Detected[] } {
  const events = input.include.has('scheduled') ? scheduledEvents(input) : [];
  const { used, covered } = input.include.has('recurring') ? recurringUsed(input) : { used: [], covered: [] };
  events.push(...recurringEvents(input, used));
  if (input.include.has('assigned')) events.push(...assignedEvents(input, events));
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.amount - b.amount));
  return { events, used, covered };
}
