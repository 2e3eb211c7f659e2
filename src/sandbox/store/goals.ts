/**
 * Goal (target) progress of a category in one month, per goal type, in integer milliunits.
 * The service does not publish its formulas; these follow what the product shows:
 *  - TB   "have a balance of X": progress is the available balance toward X.
 *  - TBD  "have X by date": X spread over the months left until the target month.
 *  - MF   "assign X monthly": progress is this month's assignment.
 *  - NEED "need X for spending" per period (monthly, weekly or yearly/by date); set-aside asks
 *         for the whole amount each period, refill asks only what tops the balance up to X.
 *  - DEBT "pay X monthly toward a debt": progress is this month's assignment.
 */
import { addMonths, daysInMonth, monthOf, monthsBetween } from '../../api/dates.js';
import { divCeil, percentOf } from '../../api/money.js';
import type { GoalRec } from './records.js';

export interface CategoryFigures {
  budgeted: number;
  activity: number;
  balance: number;
  /** Available carried in from the previous month. */
  carry: number;
}

export interface GoalFigures {
  percentage_complete: number;
  months_to_budget: number | null;
  under_funded: number;
  overall_funded: number;
  overall_left: number;
}

/** A target's figures as answered: a budget loaded from an export may show none (null) for some. */
export type GoalView = { [K in keyof GoalFigures]: GoalFigures[K] | null };

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);

/** How many times weekday `day` (0 = Sunday) occurs in a month. */
export function weekdaysInMonth(month: string, day: number): number {
  const year = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  const firstWeekday = new Date(Date.UTC(year, m - 1, 1)).getUTCDay();
  const days = daysInMonth(year, m);
  const firstHit = 1 + ((day - firstWeekday + 7) % 7);
  return firstHit > days ? 0 : 1 + Math.floor((days - firstHit) / 7);
}

/** Months one period of a repeating target lasts (goal_cadence, goal_cadence_frequency); null when it does not repeat by months. */
function periodOf(goal: GoalRec): number | null {
  const every = Math.max(1, goal.cadence_frequency ?? 1);
  const cadence = goal.cadence ?? 0;
  if (cadence === 1) return every;
  if (cadence === 13) return 12 * every;
  if (cadence >= 3 && cadence <= 12) return cadence - 1;
  if (cadence === 14) return 24;
  return null;
}

/** Months from `month` through the month of the next due date (inclusive), at least 1: a repeating target's date moves on by its period. */
function monthsUntilDue(month: string, dueDate: string, period: number | null): number {
  let due = monthOf(dueDate);
  if (period) while (due < month) due = addMonths(due, period);
  return Math.max(1, monthsBetween(month, due) + 1);
}

/** `a` spread over `n` months, rounded up to the currency's minor unit (YNAB asks whole cents). */
const spread = (a: number, n: number, unit: number) => divCeil(a, n * unit) * unit;

/** The same day a year before (28 February for a 29th). */
function yearEarlier(date: string): string {
  const day = date.slice(5) === '02-29' ? '02-28' : date.slice(5);
  return `${Number(date.slice(0, 4)) - 1}-${day}`;
}

function byPeriod(target: number, funded: number, monthsToBudget: number | null, monthTarget = target): GoalFigures {
  const left = Math.max(0, monthTarget - funded);
  return {
    percentage_complete: percentOf(funded, monthTarget),
    months_to_budget: monthsToBudget,
    under_funded: left,
    overall_funded: funded,
    overall_left: left,
  };
}

/**
 * `asOf` (a date) is for looking back: a repeating yearly target's due date then was the first of
 * its yearly dates on or after that day, not the one it shows now (the demo's households budget
 * each past month with the due date they saw at its start). Without it, the goal's own date.
 */
export function goalFigures(goal: GoalRec, f: CategoryFigures, month: string, asOf?: string, unit = 10): GoalFigures {
  const T = goal.target;
  const snoozed = goal.snoozed_at !== null && monthOf(goal.snoozed_at.slice(0, 10)) === month;
  const result = compute();
  return snoozed ? { ...result, under_funded: 0 } : result;

  function compute(): GoalFigures {
    switch (goal.type) {
      case 'TB': {
        // No date: whatever the available balance lacks is needed now (spending from it counts).
        const funded = clamp(f.balance, 0, T);
        return {
          percentage_complete: percentOf(funded, T),
          months_to_budget: null,
          under_funded: T - funded,
          overall_funded: funded,
          overall_left: T - funded,
        };
      }
      case 'TBD': {
        const due = goal.target_date ?? month;
        const monthsLeft = Math.max(0, monthsBetween(month, monthOf(due)) + 1);
        const funded = clamp(f.balance, 0, T);
        const stillNeeded = Math.max(0, T - Math.max(0, f.carry));
        const needThisMonth = monthsLeft > 0 ? spread(stillNeeded, monthsLeft, unit) : 0;
        return {
          percentage_complete: percentOf(funded, T),
          months_to_budget: monthsLeft,
          under_funded: Math.max(0, needThisMonth - f.budgeted),
          overall_funded: funded,
          overall_left: T - funded,
        };
      }
      case 'MF':
      case 'DEBT':
        return byPeriod(T, clamp(f.budgeted, 0, T), null);
      case 'NEED': {
        if (goal.cadence === 13 || (goal.target_date !== null && goal.cadence !== 2)) {
          // Yearly or by a date: spread what is still missing over the months until it is due.
          const yearly = goal.cadence === 13;
          let due = goal.target_date ?? `${month.slice(0, 4)}-12-31`;
          if (yearly && asOf) while (yearEarlier(due) >= asOf) due = yearEarlier(due);
          const monthsLeft = monthsUntilDue(month, due, periodOf(goal));
          const funded = clamp(f.carry + f.budgeted, 0, T);
          const stillNeeded = Math.max(0, T - Math.max(0, f.carry));
          const needThisMonth = spread(stillNeeded, monthsLeft, unit);
          return {
            percentage_complete: percentOf(funded, T),
            months_to_budget: monthsLeft,
            under_funded: Math.max(0, needThisMonth - f.budgeted),
            overall_funded: funded,
            overall_left: T - funded,
          };
        }
        const monthTarget = goal.cadence === 2 ? T * weekdaysInMonth(month, goal.day ?? 0) : T;
        const funded =
          goal.needs_whole_amount === false
            ? clamp(f.carry + f.budgeted, 0, monthTarget) // refill up to the target
            : clamp(f.budgeted, 0, monthTarget); // set aside the whole target again
        return byPeriod(T, funded, 1, monthTarget);
      }
    }
  }
}
