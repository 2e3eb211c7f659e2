/**
 * What each of YNAB's Auto-Assign options would make a category's assigned amount in a month, as
 * YNAB's help describes them ("Auto-Assign: A Guide", support.ynab.com):
 *  - underfunded: what the target still needs this month (YNAB's goal_under_funded), and then
 *    what would still be overspent (available below zero), added to what is assigned, credit card
 *    payment categories included (../insights/targets/underfunded.ts, which also says the order it funds
 *    in when Ready to Assign is short); YNAB also funds upcoming scheduled transactions of
 *    categories without a target, which this server leaves out;
 *  - assigned_last_month: what was assigned the month before;
 *  - spent_last_month: what was spent the month before (outflows less refunds, at least zero);
 *  - average_assigned / average_spent: the average over up to 12 months before this one,
 *    counted from the first of them with money assigned (spent) there, rounded to the currency;
 *  - reset_available: available back to zero (assigned less what is available);
 *  - reset_assigned: nothing assigned.
 * Integer milliunits throughout.
 */
import * as z from 'zod';
import { addMonths } from '../../api/dates.js';
import { divFloor } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import { MONTH_ARG, NameOrId } from '../../shared/arg-schemas.js';
import type { BudgetReplica } from '../../sync/replica.js';

export const AUTO_ASSIGN = [
  'underfunded',
  'assigned_last_month',
  'spent_last_month',
  'average_assigned',
  'average_spent',
  'reset_available',
  'reset_assigned',
] as const;
export type AutoAssign = (typeof AUTO_ASSIGN)[number];

/** fund_targets' arguments (fund-targets.ts), here so that its plan, loaded on demand, takes their type from below. */
export const FUND_TARGETS_INPUT = {
  option: z
    .enum(AUTO_ASSIGN)
    .describe(
      "Each category's assigned becomes: underfunded: what its target needs (and overspending); assigned_last_month / spent_last_month: last month's; average_assigned / average_spent: the 12-month average; reset_available: so available is 0; reset_assigned: 0.",
    ),
  month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (default).'),
  category_group_id: NameOrId.optional(),
  category_id: NameOrId.optional(),
};

const spentOf = (c: E.CategoryBase | undefined) => Math.max(0, -(c?.activity ?? 0));

/** The average of up to 12 months before `month`, from the first with a non-zero figure; null when none has one. */
function average(r: BudgetReplica, month: string, id: string, figure: (c: E.CategoryBase | undefined) => number, unit: number): number | null {
  const values: number[] = [];
  for (let i = 12; i >= 1; i--) {
    const v = figure(r.monthCategory(addMonths(month, -i), id));
    if (values.length || v !== 0) values.push(v);
  }
  if (!values.length) return null;
  const sum = values.reduce((s, v) => s + v, 0);
  // Rounded half up to the currency's smallest unit: floor((2 sum + n unit) / (2 n unit)) units.
  return divFloor(2 * sum + values.length * unit, 2 * values.length * unit) * unit;
}

/**
 * The assigned amount an option gives category `c` in `month`, or null when it has nothing to
 * say (no history to average). `unit`: the currency's smallest amount in milliunits (10 for cents).
 */
export function assignedBy(option: AutoAssign, r: BudgetReplica, month: string, c: E.CategoryBase, unit: number): number | null {
  const before = r.monthCategory(addMonths(month, -1), c.id);
  switch (option) {
    case 'underfunded': {
      // The target's need first; then whatever would still be overspent after it (a target that
      // already asks for the month's spending is not paid twice).
      const need = Math.max(0, c.goal_under_funded ?? 0);
      return c.budgeted + need + Math.max(0, -(c.balance + need));
    }
    case 'assigned_last_month':
      return before?.budgeted ?? 0;
    case 'spent_last_month':
      return spentOf(before);
    case 'average_assigned':
      return average(r, month, c.id, (x) => x?.budgeted ?? 0, unit);
    case 'average_spent':
      return average(r, month, c.id, spentOf, unit);
    case 'reset_available':
      return c.budgeted - c.balance;
    case 'reset_assigned':
      return 0;
  }
}
