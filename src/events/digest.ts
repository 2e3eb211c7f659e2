/**
 * The weekly digest: when it is due (the subscriber's day and hour reached in their time zone, once
 * per ISO week) and what it says. Its week's spending is the seven days before the digest's day,
 * beside the seven days before those and the usual week (the median of the eight weeks before it: one odd week, a holiday or a car repair, moves a median little). Spending is what
 * spending_summary and cash_flow count (outflows to categories less refunds, on budget; transfers
 * and income left out), so a digest and the tool a user asks next agree to the cent.
 */
import { addDays } from '../api/dates.js';
import { toMinorUnit } from '../api/money.js';
import type { BudgetView } from '../insights/core/view.js';
import { latestMonthOf, readyToAssignFields, readyToAssignIn } from '../insights/core/ready-to-assign.js';
import { median } from '../insights/recurring/price-increase.js';
import type { DigestTime } from './digest-time.js';

/** Weeks the usual week is the median of. */
export const USUAL_WEEKS = 8;

export interface DigestDue {
  /** ISO week, `YYYY-Www`: the digest's period, one a week. */
  week: string;
  /** The digest's day this week, as a local date. */
  day: string;
}

/** The digest due at `now` (its day and hour reached this week, in its time zone), else undefined. */
export function digestDue(now: Date, digest: DigestTime): DigestDue | undefined {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: digest.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  })
    .formatToParts(now)
    .reduce<Record<string, string>>((m, p) => ((m[p.type] = p.value), m), {});
  const local = `${parts.year}-${parts.month}-${parts.day}`;
  const weekday = ((new Date(`${local}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
  const hour = Number(parts.hour);
  if (weekday < digest.day || (weekday === digest.day && hour < digest.hour)) return undefined;
  return { week: isoWeek(local), day: addDays(local, digest.day - weekday) };
}

/** The ISO 8601 week of a date, as `YYYY-Www`. */
export function isoWeek(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  const thursday = addDays(date, 4 - (((d.getUTCDay() + 6) % 7) + 1));
  const year = thursday.slice(0, 4);
  const week = Math.floor((Date.parse(`${thursday}T00:00:00Z`) - Date.parse(`${year}-01-01T00:00:00Z`)) / (7 * 86_400_000)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** What a digest says of spending: its week, the week before, and the usual week, in the currency's minor unit. */
export function digestSpending(view: BudgetView, due: DigestDue): Record<string, unknown> {
  const since = addDays(due.day, -7);
  const until = addDays(due.day, -1);
  const week = (back: number) => view.spendingBetween(addDays(since, -7 * back), addDays(until, -7 * back));
  const usual = Array.from({ length: USUAL_WEEKS }, (_, i) => week(i + 1));
  return {
    since,
    until,
    spending: week(0),
    spending_week_before: week(1),
    // A median of an even count is the mean of the middle two: rounded to the cent as YNAB shows money.
    spending_usual: toMinorUnit(median(usual), view.replica.summary.currency_format),
    usual_weeks: USUAL_WEEKS,
  };
}

/** What a digest says of Ready to Assign: the month's figure as get_month gives it, and the furthest month's when it differs (ready-to-assign.ts). */
export function digestReadyToAssign(view: BudgetView, month: string): Record<string, unknown> {
  // A month the budget does not hold yet (a clock past its last month): the furthest month's, named as that month's.
  const months = view.replica.months;
  const rta = readyToAssignIn(months, month) ?? readyToAssignIn(months, latestMonthOf(months) ?? month);
  return rta ? readyToAssignFields(rta, (name, v) => ({ [name]: v })) : {};
}
