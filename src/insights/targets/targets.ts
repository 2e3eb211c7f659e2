/**
 * The budget's targets in one month, as the planning tools read them: each category with a
 * target (goal), its type and cadence in words, what it needs in the month (YNAB's
 * goal_under_funded for a month the budget holds, else projected: target-month.ts), when it is
 * due, and an estimate of what it will ask the month after, assuming this month's need is assigned
 * and nothing more is spent this month (what is available then carries over; target-month.ts
 * nextMonthNeed). Hidden and internal categories are left out, as YNAB's Underfunded leaves them
 * out; credit card payment categories are in.
 */
import type * as E from '../../api/schemas/entities.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { cadenceOf } from './target-need.js';
import { minorUnit, nextMonthNeed, type TargetMonth } from './target-month.js';
import { underfundedRows, type UnderfundedRow } from './underfunded.js';

export const TARGET_ASSUMPTIONS = [
  "underfunded is YNAB's goal_under_funded for the month",
  "a month after the budget's last is projected: what is available now, less what is scheduled before it, nothing assigned yet",
  'next_month assumes this month is funded and nothing more is spent this month',
  'hidden categories are left out',
];

export interface TargetRow {
  row: UnderfundedRow;
  category: E.CategoryBase;
  group: E.CategoryGroup;
  /** TB, TBD, MF, NEED or DEBT. */
  type: string;
  /** "refill" or "set aside" (NEED only). */
  how: string | null;
  /** The due date's cadence in words ("monthly", "every 3 months", "yearly"); null when none. */
  cadence: string | null;
  target: number;
  underfunded: number;
  nextMonth: number;
  snoozed: boolean;
}

/** Each visible category of the month with a target, in group order. */
export function targetRows(r: BudgetReplica, tm: TargetMonth, rows = underfundedRows(r, tm)): TargetRow[] {
  const unit = minorUnit(r);
  return rows
    .filter((x) => x.c.goal_type)
    .map((x) => {
      const c = x.c;
      return {
        row: x,
        category: c,
        group: x.group,
        type: c.goal_type!,
        how: c.goal_type === 'NEED' ? (c.goal_needs_whole_amount === false ? 'refill' : 'set aside') : null,
        cadence: cadenceOf(c),
        target: c.goal_target ?? 0,
        underfunded: x.need,
        nextMonth: nextMonthNeed(c, tm.month, unit),
        snoozed: !!c.goal_snoozed_at && c.goal_snoozed_at.slice(0, 7) === tm.month.slice(0, 7),
      };
    });
}
