/**
 * What a target asks in a month the budget does not hold yet (YNAB makes a month when money is
 * assigned there, or when it comes), from the target's fields and the month's figures as
 * target-month.ts projects them. The rules are YNAB's as its help describes each target, the same
 * the sandbox computes goal_under_funded with (src/sandbox/store/goals.ts), so that a month funded
 * by fund_targets shows nothing underfunded once YNAB makes it:
 *  - TB (a balance, no date): what the available balance lacks of the target;
 *  - TBD (a balance by a date): what the carried balance lacks, spread over the months left to
 *    the date's month, less what is assigned; nothing once the date has passed;
 *  - MF and DEBT: the target less what is assigned;
 *  - NEED set aside: the target (weekly: times the month's due weekdays) less what is assigned;
 *    refill: what tops carried plus assigned up to the target;
 *  - NEED yearly or with a date: what the carried balance lacks, spread over the months to the
 *    next due date (a repeating target's date moves on by its period once passed), less assigned.
 * Spread amounts are rounded up to the currency's minor unit (`unit` milliunits: 10 for cents), as
 * YNAB never asks a fraction of a cent. A snooze holds for the month it was snoozed in only.
 */
import { addMonths, monthOf, monthsBetween } from '../../api/dates.js';
import { divCeil } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';

/** A category's figures in the month: assigned, available, and available carried in. */
export interface MonthFigures {
  budgeted: number;
  balance: number;
  carry: number;
}

/** goal_cadence and goal_cadence_frequency in words (the API's description of the two). */
export function cadenceOf(c: Pick<E.CategoryBase, 'goal_cadence' | 'goal_cadence_frequency'>): string | null {
  const cadence = c.goal_cadence ?? 0;
  const every = Math.max(1, c.goal_cadence_frequency ?? 1);
  const unit = (one: string, many: string) => (every === 1 ? one : `every ${every} ${many}`);
  if (cadence === 1) return unit('monthly', 'months');
  if (cadence === 2) return unit('weekly', 'weeks');
  if (cadence === 13) return unit('yearly', 'years');
  if (cadence >= 3 && cadence <= 12) return `every ${cadence - 1} months`;
  if (cadence === 14) return 'every 2 years';
  return null;
}

/** Months one period of a dated repeating target lasts (12 for yearly); null when it does not repeat by months. */
export function periodMonths(c: Pick<E.CategoryBase, 'goal_cadence' | 'goal_cadence_frequency'>): number | null {
  const cadence = c.goal_cadence ?? 0;
  const every = Math.max(1, c.goal_cadence_frequency ?? 1);
  if (cadence === 1) return every;
  if (cadence === 13) return 12 * every;
  if (cadence >= 3 && cadence <= 12) return cadence - 1;
  if (cadence === 14) return 24;
  return null;
}

/** How many times weekday `day` (0 = Sunday) falls in a month. */
export function weekdaysIn(month: string, day: number): number {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const firstHit = 1 + ((day - first + 7) % 7);
  return firstHit > days ? 0 : 1 + Math.floor((days - firstHit) / 7);
}

/** A NEED target's due date on or after `month` (a repeating one's date moved on by its period). */
export function nextDue(c: E.CategoryBase, month: string): string | null {
  if (!c.goal_target_date) return null;
  let due = c.goal_target_date;
  const period = periodMonths(c);
  if (c.goal_type !== 'NEED' || !period) return due;
  // Dates move by whole months, keeping the day (the 31st becomes the month's last day).
  let n = 0;
  while (monthOf(due) < month) due = shiftDate(c.goal_target_date, period * ++n);
  return due;
}

function shiftDate(date: string, months: number): string {
  const m = addMonths(monthOf(date), months);
  const last = new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).getUTCDate();
  return `${m.slice(0, 8)}${String(Math.min(Number(date.slice(8, 10)), last)).padStart(2, '0')}`;
}

/** `a` spread over `n` months, rounded up to the currency's minor unit. */
const spread = (a: number, n: number, unit: number) => divCeil(a, n * unit) * unit;

/** What the target of `c` still asks in `month`, given the month's figures `f` (the module's header says how). */
export function needOf(c: E.CategoryBase, month: string, f: MonthFigures, unit: number): number {
  if (c.goal_snoozed_at && monthOf(c.goal_snoozed_at.slice(0, 10)) === month) return 0;
  const T = c.goal_target ?? 0;
  const stillNeeded = Math.max(0, T - Math.max(0, f.carry));
  switch (c.goal_type) {
    case 'TB':
      return Math.max(0, T - Math.max(0, f.balance));
    case 'TBD': {
      const left = c.goal_target_date ? monthsBetween(month, monthOf(c.goal_target_date)) + 1 : 1;
      return left > 0 ? Math.max(0, spread(stillNeeded, left, unit) - f.budgeted) : 0;
    }
    case 'MF':
    case 'DEBT':
      return Math.max(0, T - Math.max(0, f.budgeted));
    case 'NEED': {
      if (c.goal_cadence === 13 || (c.goal_target_date && c.goal_cadence !== 2)) {
        const due = nextDue(c, month) ?? `${month.slice(0, 4)}-12-31`;
        const left = Math.max(1, monthsBetween(month, monthOf(due)) + 1);
        return Math.max(0, spread(stillNeeded, left, unit) - f.budgeted);
      }
      const monthTarget = c.goal_cadence === 2 ? T * weekdaysIn(month, c.goal_day ?? 0) : T;
      const funded = c.goal_needs_whole_amount === false ? f.carry + f.budgeted : f.budgeted;
      return Math.max(0, monthTarget - Math.max(0, funded));
    }
    default:
      return 0;
  }
}

/**
 * When a target is due in `month`, for funding in YNAB's order (soonest first): a dated target
 * its date; a monthly one its day of the month (goal_day), else the month's last day; a weekly
 * one the month's first due weekday; a balance without a date none (funded last).
 */
export function dueIn(c: E.CategoryBase, month: string): string | null {
  const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
  const day = (d: number) => `${month.slice(0, 8)}${String(Math.min(Math.max(1, d), last)).padStart(2, '0')}`;
  switch (c.goal_type) {
    case 'TB':
      return null;
    case 'TBD':
      return c.goal_target_date ?? null;
    case 'NEED':
      if (c.goal_cadence === 2) {
        const first = new Date(`${month}T00:00:00Z`).getUTCDay();
        return day(1 + (((c.goal_day ?? 0) - first + 7) % 7));
      }
      if (c.goal_target_date || c.goal_cadence === 13) return nextDue(c, month) ?? day(last);
      return day(c.goal_day ?? last);
    case 'MF':
    case 'DEBT':
      return day(c.goal_day ?? last);
    default:
      return null;
  }
}
