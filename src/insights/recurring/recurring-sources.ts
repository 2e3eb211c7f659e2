/**
 * What `recurring` lists, from two sources:
 *  1. the budget's scheduled transactions, first: each repeating one (not "never") in an open
 *     on-budget account is recurring, at its frequency and amount (a split's lines summed);
 *  2. the history (./recurring-detect.ts) adds what no schedule covers (same account and payee in
 *     the same direction, or a scheduled transfer's other side). A covered item lends the schedule
 *     its price rise, if it shows one.
 * Left out: transfers between two on-budget accounts (moving money is neither a bill nor income),
 * and everyday purchases at one payee (coffee, groceries): a payee with 4+ purchases in the last
 * 90 days at amounts that vary by more than 20%, or a history series whose amounts vary at a weekly
 * or fortnightly pace or whose latest is a split of varying amount, is shopping, not a bill, and
 * so is a schedule there (a planned stock-up).
 */
import { addDays } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import { coveredBy } from './covered.js';
import { minorDigits, roundToMinor } from '../../api/money.js';
import type { PriceIncrease } from './price-increase.js';
import { PER_YEAR, detectRecurring, type Cadence, type Detected } from './recurring-detect.js';
import type { InsightContext } from '../core/types.js';
import type { BudgetView } from '../core/view.js';

export type RecurringGroup = 'subscriptions' | 'bills' | 'income';

/** A schedule's frequency as a cadence (the history's names), and how many a year beyond PER_YEAR's. */
const CADENCE: Record<Exclude<E.ScheduledTransactionSummaryBase['frequency'], 'never'>, ListCadence> = {
  daily: 'daily',
  weekly: 'weekly',
  everyOtherWeek: 'every_2_weeks',
  twiceAMonth: 'twice_a_month',
  every4Weeks: 'every_4_weeks',
  monthly: 'monthly',
  everyOtherMonth: 'every_2_months',
  every3Months: 'quarterly',
  every4Months: 'every_4_months',
  twiceAYear: 'twice_a_year',
  yearly: 'yearly',
  everyOtherYear: 'every_2_years',
};
export type ListCadence = Cadence | 'daily' | 'every_4_weeks' | 'every_2_years';
const PER_YEAR_ALL: Record<ListCadence, number> = { ...PER_YEAR, daily: 365, every_4_weeks: 13, every_2_years: 0.5 };

export interface ListedItem {
  source: 'scheduled' | 'history';
  payee_id: string | null;
  account_id: string;
  category_id: string | null;
  cadence: ListCadence;
  /** Signed milliunits: negative for a charge, positive for income. */
  amount: number;
  /** Positive milliunits in whole minor units: a year's cost, and a twelfth of it. */
  annual: number;
  monthly: number;
  next_date: string;
  last_date: string | null;
  varies: boolean;
  price_change: PriceIncrease | null;
  group: RecurringGroup;
}

const SUBSCRIPTION = /subscri|streaming|membership/i;
/** Cadences at which varying amounts at one payee are everyday shopping, not a bill. */
const EVERYDAY = new Set<Cadence>(['weekly', 'every_2_weeks', 'twice_a_month']);
/** Shopping: 4+ purchases at one payee in the last 90 days, the largest over 1.2 times the smallest (not a steady price that rose). */
const SHOPPING = { days: 90, count: 4, spreadPct: 120 };

/** The payees the household shops at: frequent outflows of varying amounts (a schedule there is a planned shop, not a bill). */
function shoppingPayees(view: BudgetView, today: string): Set<string> {
  const since = addDays(today, -SHOPPING.days);
  const sums = new Map<string, { payee: string; amount: number }>();
  for (const l of view.lines) {
    if (!l.payee_id || !l.on_budget || l.kind !== 'activity' || l.date < since || l.date > today) continue;
    const key = `${l.transaction.id}|${l.payee_id}`;
    const had = sums.get(key);
    if (had) had.amount += l.amount;
    else sums.set(key, { payee: l.payee_id, amount: l.amount });
  }
  const seen = new Map<string, { n: number; min: number; max: number }>();
  for (const { payee, amount } of sums.values()) {
    if (amount >= 0) continue;
    const a = -amount;
    const p = seen.get(payee) ?? { n: 0, min: a, max: a };
    seen.set(payee, { n: p.n + 1, min: Math.min(p.min, a), max: Math.max(p.max, a) });
  }
  return new Set([...seen].filter(([, p]) => p.n >= SHOPPING.count && p.max * 100 > p.min * SHOPPING.spreadPct).map(([id]) => id));
}

function isSubscription(view: BudgetView, categories: (string | null)[]): boolean {
  return (
    categories.length > 0 &&
    categories.every((id) => {
      const c = id ? view.replica.categories.get(id) : undefined;
      const g = c ? view.replica.categoryGroups.get(c.category_group_id) : undefined;
      return [c?.name, g?.name].some((n) => !!n && SUBSCRIPTION.test(n));
    })
  );
}

function groupOf(view: BudgetView, amount: number, categories: (string | null)[]): RecurringGroup {
  return amount > 0 ? 'income' : isSubscription(view, categories) ? 'subscriptions' : 'bills';
}

function costs(view: BudgetView, amount: number, cadence: ListCadence): { annual: number; monthly: number } {
  const digits = minorDigits(view.replica.summary.currency_format);
  // Twice the charges a year is a whole number for every cadence (every 2 years: 1), so the one
  // division rounds once, in integers.
  const annual = roundToMinor(Math.abs(amount) * PER_YEAR_ALL[cadence] * 2, 2, digits);
  return { annual, monthly: roundToMinor(annual, 12, digits) };
}

function fromSchedule(view: BudgetView, s: E.ScheduledTransactionSummaryBase, rise: PriceIncrease | null): ListedItem | undefined {
  if (s.frequency === 'never' || !view.onBudget(s.account_id) || view.replica.accounts.get(s.account_id)?.closed) return undefined;
  if (s.transfer_account_id && view.onBudget(s.transfer_account_id)) return undefined;
  const lines = view.replica.scheduledLinesOf(s.id).filter((x) => !x.deleted);
  const amount = s.amount !== 0 || !lines.length ? s.amount : lines.reduce((t, x) => t + x.amount, 0);
  if (amount === 0) return undefined;
  const cadence = CADENCE[s.frequency];
  const categories = lines.length ? lines.map((x) => x.category_id ?? null) : [s.category_id ?? null];
  // A rise the history shows beyond the schedule's amount is what comes next.
  const risen = rise && rise.new > -amount ? -rise.new : amount;
  return {
    source: 'scheduled',
    payee_id: s.payee_id ?? null,
    account_id: s.account_id,
    category_id: lines.length ? null : (s.category_id ?? null),
    cadence,
    amount: risen,
    ...costs(view, risen, cadence),
    next_date: s.date_next,
    last_date: null,
    varies: false,
    price_change: rise,
    group: groupOf(view, amount, categories),
  };
}

function fromHistory(view: BudgetView, d: Detected): ListedItem {
  return {
    source: 'history',
    payee_id: d.payee_id,
    account_id: d.account_id,
    category_id: d.category_id,
    cadence: d.cadence,
    amount: d.typical,
    ...costs(view, d.typical, d.cadence),
    next_date: d.next_date,
    last_date: d.last_date,
    varies: !d.steady,
    price_change: d.price_change,
    group: groupOf(view, d.typical, [d.category_id]),
  };
}

export interface RecurringFound {
  items: ListedItem[];
  /** Payees left out as everyday purchases (their history series or schedules). */
  everyday: string[];
}

export function recurringItems(ctx: InsightContext): RecurringFound {
  const { view, today } = ctx;
  const schedules = [...view.replica.scheduled.values()].filter((s) => !s.deleted);
  const detected = detectRecurring(view, today);
  const items: ListedItem[] = [];
  const everyday = new Set<string>();
  const shopping = shoppingPayees(view, today);
  // A price that held and then rose is a charge, not shopping.
  for (const d of detected) if (d.steady) shopping.delete(d.payee_id);
  const riseOf = new Map<string, PriceIncrease>();
  // Only a schedule recurring lists covers an item (a one-off, "never", is not listed: the history's item stays).
  const listed = schedules.filter((s) => fromSchedule(view, s, null));
  for (const d of detected) {
    const by = listed.find((s) => coveredBy(d, [s], view));
    if (by) {
      if (d.price_change) riseOf.set(by.id, d.price_change);
      continue;
    }
    if (d.transfer_account_id && view.onBudget(d.transfer_account_id)) continue;
    // Varying amounts weekly or fortnightly, or a varying split (a shop's several categories): shopping.
    if (d.typical < 0 && (shopping.has(d.payee_id) || (!d.steady && (EVERYDAY.has(d.cadence) || d.split)))) everyday.add(d.payee_id);
    else items.push(fromHistory(view, d));
  }
  for (const s of schedules) {
    const item = fromSchedule(view, s, riseOf.get(s.id) ?? null);
    if (item && item.amount < 0 && s.payee_id && shopping.has(s.payee_id)) everyday.add(s.payee_id);
    else if (item) items.push(item);
  }
  return { items, everyday: [...everyday] };
}
