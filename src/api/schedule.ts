/**
 * Occurrences of scheduled transactions, by the API's frequencies: the sandbox computes
 * `date_next` with them, and the insight tools expand what is due in the coming days.
 * `date_next` is the first occurrence on or after today (UTC), or after today when the register
 * already holds today's (the sandbox: store/derived.ts scheduleDates); a one-off (`never`)
 * schedule's next date is its first date.
 */
import type { ScheduledTransactionFrequency } from './schemas/common.js';
import { addDays, addMonths, daysInMonth } from './dates.js';

/** The n-th occurrence (0 = date_first) of a schedule. */
export function occurrence(first: string, frequency: ScheduledTransactionFrequency, n: number): string {
  switch (frequency) {
    case 'never':
      return first;
    case 'daily':
      return addDays(first, n);
    case 'weekly':
      return addDays(first, 7 * n);
    case 'everyOtherWeek':
      return addDays(first, 14 * n);
    case 'every4Weeks':
      return addDays(first, 28 * n);
    case 'twiceAMonth': {
      // The first date's day and the day 15 days later, every month (clamped to month end).
      const base = addMonths(first, Math.floor(n / 2));
      if (n % 2 === 0) return base;
      const year = Number(base.slice(0, 4));
      const month = Number(base.slice(5, 7));
      const day = Math.min(Number(first.slice(8, 10)) + 15, daysInMonth(year, month));
      return `${base.slice(0, 8)}${String(day).padStart(2, '0')}`;
    }
    case 'monthly':
      return addMonths(first, n);
    case 'everyOtherMonth':
      return addMonths(first, 2 * n);
    case 'every3Months':
      return addMonths(first, 3 * n);
    case 'every4Months':
      return addMonths(first, 4 * n);
    case 'twiceAYear':
      return addMonths(first, 6 * n);
    case 'yearly':
      return addMonths(first, 12 * n);
    case 'everyOtherYear':
      return addMonths(first, 24 * n);
  }
}

/** First occurrence on or after `today`. */
export function nextOccurrence(first: string, frequency: ScheduledTransactionFrequency, today: string): string {
  if (frequency === 'never' || first >= today) return first;
  // Jump close with a coarse estimate, then step; bounded because every frequency advances.
  let n = 0;
  if (frequency === 'daily') n = Math.max(0, Math.floor((Date.parse(today) - Date.parse(first)) / 86_400_000) - 1);
  let date = occurrence(first, frequency, n);
  while (date < today) {
    n += 1;
    date = occurrence(first, frequency, n);
  }
  return date;
}
