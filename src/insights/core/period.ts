/**
 * The period an insight covers, from `month` ("current" or YYYY-MM-01) or `since_date` /
 * `until_date`, and the previous period of equal length to compare with: the month before a
 * month, as many whole months before a run of whole months, else as many days before.
 */
import { addDays, addMonths, currentMonth, daysBetween, isMonthStart, monthOf, monthsBetween } from '../../api/dates.js';
import { ArgumentError, checkDateRange } from '../../shared/argument-error.js';

export interface Period {
  since: string;
  until: string;
  /** Set when the period is one budget month. */
  month?: string;
}

const lastDayOf = (month: string) => addDays(addMonths(month, 1), -1);

/** The same date a year earlier (February 29 becomes February 28). */
function yearEarlier(date: string): string {
  const d = `${Number(date.slice(0, 4)) - 1}${date.slice(4)}`;
  return d.endsWith('-02-29') ? `${d.slice(0, 8)}28` : d;
}

/** The same period a year earlier: a month's month, else the same dates (compare: "year_ago"). */
export function yearAgo(p: Period): Period {
  if (p.month) {
    const month = addMonths(p.month, -12);
    return { since: month, until: lastDayOf(month), month };
  }
  return { since: yearEarlier(p.since), until: yearEarlier(p.until) };
}

/** The N whole months before a period's first month (the baseline an average compares with). */
export function monthsBefore(p: Period, n: number): Period {
  const first = monthOf(p.since);
  return { since: addMonths(first, -n), until: addDays(first, -1) };
}

/** Whole months from `since` (a month start) to `until` (a month end), or undefined. */
function wholeMonths(since: string, until: string): number | undefined {
  if (!isMonthStart(since) || addDays(until, 1).slice(8) !== '01') return undefined;
  return monthsBetween(since, monthOf(until)) + 1;
}

export function resolvePeriod(args: { month?: string; since_date?: string; until_date?: string }, today: string): { current: Period; previous: Period } {
  if (args.month !== undefined && (args.since_date !== undefined || args.until_date !== undefined)) {
    throw new ArgumentError('give month, or since_date/until_date, not both');
  }
  if (args.since_date === undefined && args.until_date !== undefined) {
    throw new ArgumentError('until_date needs since_date (or give month instead)');
  }
  if (args.since_date === undefined) {
    const month = !args.month || args.month === 'current' ? currentMonth(new Date(`${today}T00:00:00Z`)) : args.month;
    const previous = addMonths(month, -1);
    return { current: { since: month, until: lastDayOf(month), month }, previous: { since: previous, until: lastDayOf(previous), month: previous } };
  }
  checkDateRange(args);
  const since = args.since_date;
  const until = args.until_date ?? (today < since ? since : today);
  const months = wholeMonths(since, until);
  // Year to date (from January 1, within its year, longer than January alone) is compared with the
  // same dates a year earlier, as people compare a year so far: not with the months before it.
  if (since.slice(5) === '01-01' && until.slice(0, 4) === since.slice(0, 4) && months !== 1) {
    return { current: { since, until }, previous: { since: yearEarlier(since), until: yearEarlier(until) } };
  }
  if (months !== undefined) {
    const start = addMonths(since, -months);
    return { current: { since, until }, previous: { since: start, until: addDays(since, -1) } };
  }
  const days = daysBetween(since, until) + 1;
  return { current: { since, until }, previous: { since: addDays(since, -days), until: addDays(since, -1) } };
}

/** The budget months a period touches, first to last. */
export function monthsOf(p: Period): string[] {
  const out: string[] = [];
  for (let m = monthOf(p.since); m <= p.until; m = addMonths(m, 1)) out.push(m);
  return out;
}

export function within(date: string, p: Period): boolean {
  return date >= p.since && date <= p.until;
}
