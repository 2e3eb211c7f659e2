/**
 * Recurring money found in the history: one module for `recurring` and `forecast`, so both see the
 * same items. A series is one payee's transactions in one on-budget account, outflows and inflows
 * apart (a transaction's lines of that payee summed). It is recurring when its recent run keeps a
 * steady interval (the rule of the price-increase check, ./price-increase.ts: three or more,
 * each gap within a few days of the usual one) that is a known cadence, and it is still going (its
 * latest less than an interval and a half ago). The typical amount is the median of the last six
 * (the new price where the price-increase rule saw one); the next dates follow the cadence from
 * the latest, on the usual day of the month for the monthly cadences.
 */
import { addDays, addMonths, daysBetween, daysInMonth, monthOf } from '../../api/dates.js';
import { minorDigits, toMinorUnit } from '../../api/money.js';
import { RECENT, median, priceIncreaseOf, steadyTail, type PriceIncrease } from './price-increase.js';
import { seriesOf, type Charge } from './series.js';
import type { BudgetView } from '../core/view.js';

export type Cadence = 'weekly' | 'every_2_weeks' | 'twice_a_month' | 'monthly' | 'every_2_months' | 'quarterly' | 'every_4_months' | 'twice_a_year' | 'yearly';

export interface RecurringItem {
  payee_id: string;
  account_id: string;
  /** The other account, when the payee is a transfer payee. */
  transfer_account_id: string | null;
  /** The category of its latest transaction (null for a split or none). */
  category_id: string | null;
  cadence: Cadence;
  /** The usual days between two (median of the run's gaps). */
  interval_days: number;
  /** Signed milliunits: negative for a charge, positive for income. */
  typical: number;
  last_date: string;
  /** The next date the cadence gives after the latest (it may be today or past: not seen yet). */
  next_date: string;
  /** How many transactions the steady run holds. */
  count: number;
  price_change: PriceIncrease | null;
  /** Every amount of the run was within 2% of the typical one (or only the price changed). */
  steady: boolean;
}

const TYPICAL_OF = 6;
const MIN_RUN = { steady: 3, varying: 6, spanDays: 90 };

/** Months between two dates of each month-based cadence, and the day bands of each. */
const BANDS: { cadence: Cadence; min: number; max: number; months?: number; days?: number }[] = [
  { cadence: 'weekly', min: 6, max: 8, days: 7 },
  { cadence: 'every_2_weeks', min: 12, max: 17, days: 14 },
  { cadence: 'monthly', min: 26, max: 35, months: 1 },
  { cadence: 'every_2_months', min: 55, max: 66, months: 2 },
  { cadence: 'quarterly', min: 84, max: 98, months: 3 },
  { cadence: 'every_4_months', min: 115, max: 128, months: 4 },
  { cadence: 'twice_a_year', min: 174, max: 191, months: 6 },
  { cadence: 'yearly', min: 355, max: 376, months: 12 },
];

/** How many a year, for annual costs. */
export const PER_YEAR: Record<Cadence, number> = {
  weekly: 52,
  every_2_weeks: 26,
  twice_a_month: 24,
  monthly: 12,
  every_2_months: 6,
  quarterly: 4,
  every_4_months: 3,
  twice_a_year: 2,
  yearly: 1,
};

/** The day `day` of a month, or its last day when shorter. */
export function dayOfMonth(month: string, day: number): string {
  const last = daysInMonth(Number(month.slice(0, 4)), Number(month.slice(5, 7)));
  return `${month.slice(0, 8)}${String(Math.min(day, last)).padStart(2, '0')}`;
}

const dom = (date: string) => Number(date.slice(8, 10));

/** Two days of the month that nearly every date falls on (a month's last day standing for a later one; one in five may be an extra, a bonus), if so. */
function twoDays(dates: string[]): [number, number] | undefined {
  const counts = new Map<number, number>();
  for (const d of dates) counts.set(dom(d), (counts.get(dom(d)) ?? 0) + 1);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 2);
  if (top.length < 2) return undefined;
  const a = Math.min(top[0]![0], top[1]![0]);
  const b = Math.max(top[0]![0], top[1]![0]);
  const fits = (d: string) => dom(d) === a || dom(d) === b || dayOfMonth(monthOf(d), b) === d;
  return dates.filter(fits).length * 5 >= dates.length * 4 ? [a, b] : undefined;
}

/** The date after `date` that an item's cadence gives. */
export function after(item: Pick<RecurringItem, 'cadence' | 'interval_days'> & { days: number[] }, date: string): string {
  const band = BANDS.find((b) => b.cadence === item.cadence);
  if (item.cadence === 'twice_a_month') {
    const [a = 1, b = 15] = item.days;
    const month = monthOf(date);
    for (const d of [dayOfMonth(month, a), dayOfMonth(month, b), dayOfMonth(addMonths(month, 1), a)]) if (d > date) return d;
  }
  if (band?.months) return dayOfMonth(addMonths(monthOf(date), band.months), item.days[0]!);
  return addDays(date, band?.days ?? item.interval_days);
}

/** A recurring item, with the days of the month its dates keep (one, or two for twice a month), and whether its latest is a split. */
export type Detected = RecurringItem & { days: number[]; split: boolean };

function detectOne(
  charges: Charge[],
  today: string,
  risen: boolean,
  digits: number,
): Omit<Detected, 'payee_id' | 'account_id' | 'transfer_account_id' | 'category_id' | 'price_change' | 'split'> | undefined {
  const steady = steadyTail(charges.slice(-RECENT));
  if (!steady) return undefined;
  const { run, interval } = steady;
  const last = run[run.length - 1]!;
  if (daysBetween(last.date, today) > interval * 1.5) return undefined;
  const band = BANDS.find((b) => interval >= b.min && interval <= b.max);
  if (!band) return undefined;
  const recent = run.slice(-TYPICAL_OF).map((c) => c.amount);
  // A median is an amount a bank could charge: whole minor units.
  const typical = toMinorUnit(median(recent), digits);
  const within = (list: number[]) => list.every((a) => Math.abs(a - median(list)) * 100 <= Math.abs(median(list)) * 2);
  const steadyAmounts = within(recent);
  // A steady price that changed with the latest charges is still a steady one (a price rise).
  const steadyBefore = steadyAmounts || risen || within(recent.slice(0, -1));
  // Purchases at a shop now and then can fall into a few steady gaps by chance: amounts that vary
  // need six in a row, and every run must span three months (a weekly one thirteen).
  if (run.length < Math.max(steadyBefore ? MIN_RUN.steady : MIN_RUN.varying, Math.ceil(MIN_RUN.spanDays / interval))) return undefined;
  let cadence = band.cadence;
  let days = [median(run.map((c) => dom(c.date)))];
  if (cadence === 'every_2_weeks') {
    const pair = twoDays(run.map((c) => c.date));
    // Twice a month on two days of the month (the 1st and 16th), not every fourteen days.
    if (pair && run.some((c, i) => i > 0 && daysBetween(run[i - 1]!.date, c.date) !== 14)) [cadence, days] = ['twice_a_month', pair];
  }
  const item = { cadence, interval_days: interval, days, typical, last_date: last.date, count: run.length, steady: steadyAmounts };
  return { ...item, next_date: after(item, last.date) };
}

/**
 * Every recurring series of the budget's on-budget accounts (closed ones left out; off-budget ones
 * too with `includeOffBudget`), by account and payee, transfers included (a card payment, a loan
 * payment): the callers pick what they count.
 */
export function detectRecurring(view: BudgetView, today: string, includeOffBudget = false): readonly Detected[] {
  // A view is built once per version of the copy: recurring, forecast and the price rises on it share one detection.
  const key = `${today}|${includeOffBudget}`;
  let cached = DETECTED.get(view);
  if (cached?.today !== today) DETECTED.set(view, (cached = { today, items: new Map() }));
  const hit = cached.items.get(key);
  if (hit) return hit;
  const items = detectAll(view, today, includeOffBudget);
  cached.items.set(key, items);
  return items;
}

const DETECTED = new WeakMap<BudgetView, { today: string; items: Map<string, readonly Detected[]> }>();

/** `payees`: only their series, uncached (the alerts' scan after a sync, for the payees it touched: events/over-lines.ts). */
export function detectAll(view: BudgetView, today: string, includeOffBudget: boolean, payees?: ReadonlySet<string>): Detected[] {
  const found: Detected[] = [];
  const digits = minorDigits(view.replica.summary.currency_format);
  for (const { account_id, payee_id, sign, charges } of seriesOf(view, includeOffBudget, payees)) {
    // The price-rise rule on the same charges as needs_attention (the latest 24 of the series).
    const transfer_account_id = view.replica.payees.get(payee_id)?.transfer_account_id ?? null;
    const risen =
      sign === '-' && !transfer_account_id
        ? priceIncreaseOf(
            charges.slice(-RECENT).map((c) => ({ date: c.date, amount: -c.amount })),
            today,
            digits,
          )
        : undefined;
    const d = detectOne(charges, today, !!risen, digits);
    if (!d) continue;
    const rise = risen ? { payee_id, ...risen } : null;
    const latest = view.replica.transactions.get(charges[charges.length - 1]!.transaction_id);
    found.push({
      ...d,
      // A price that went up: the new one is what comes next.
      typical: rise ? -rise.new : d.typical,
      steady: d.steady || !!rise,
      payee_id,
      account_id,
      transfer_account_id,
      category_id: latest?.category_id ?? null,
      split: !!latest && view.replica.linesOf(latest.id).some((x) => !x.deleted),
      price_change: rise,
    });
  }
  return found.sort((a, b) => (a.next_date < b.next_date ? -1 : a.next_date > b.next_date ? 1 : a.payee_id < b.payee_id ? -1 : 1));
}
