/**
 * The budget's targets in one month, as the planning tools read them: each category with a
 * target (goal), its type and cadence in words, what YNAB says it still needs this month
 * (`goal_under_funded`, YNAB's own figure) and an estimate of what it will ask next month.
 *
 * Next month is not in the budget yet (YNAB makes a month when it comes), so it is estimated from
 * the target's fields, assuming this month's underfunded amount is assigned and nothing more is
 * spent this month (what is available then carries over):
 *  - MF and DEBT ask for the target again; NEED set aside ("Set aside": goal_needs_whole_amount
 *    true) the target again, weekly the target times next month's due weekdays;
 *  - NEED refill asks what tops the carried balance up to the target;
 *  - a target with a date (TBD, NEED yearly or every few months) spreads what the carried
 *    balance still lacks over the months left until its date; once the date has passed, the
 *    target is taken as spent and a new period begins;
 *  - TB (a balance, no date) asks what the carried balance still lacks.
 * Hidden and internal categories are left out, as YNAB's Auto-Assign leaves them out.
 */
import { addMonths, monthOf, monthsBetween } from '../api/dates.js';
import { divCeil } from '../api/money.js';
import type * as E from '../api/schemas/entities.js';
import { ArgumentError } from '../shared/argument-error.js';
import type { BudgetReplica } from '../sync/replica.js';

export const TARGET_ASSUMPTIONS = [
  "underfunded is YNAB's goal_under_funded for the month",
  'next month assumes this month is funded and nothing more is spent this month',
  'hidden categories are left out',
];

export interface TargetRow {
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
function periodMonths(c: E.CategoryBase): number | null {
  const cadence = c.goal_cadence ?? 0;
  const every = Math.max(1, c.goal_cadence_frequency ?? 1);
  if (cadence === 1) return every;
  if (cadence === 13) return 12 * every;
  if (cadence >= 3 && cadence <= 12) return cadence - 1;
  if (cadence === 14) return 24;
  return null;
}

/** How many times weekday `day` (0 = Sunday) falls in a month. */
function weekdaysIn(month: string, day: number): number {
  const y = Number(month.slice(0, 4));
  const m = Number(month.slice(5, 7));
  const first = new Date(Date.UTC(y, m - 1, 1)).getUTCDay();
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const firstHit = 1 + ((day - first + 7) % 7);
  return firstHit > days ? 0 : 1 + Math.floor((days - firstHit) / 7);
}

/** What a target will ask next month (the module's header says what is assumed). */
export function nextMonthNeed(c: E.CategoryBase, month: string): number {
  const T = c.goal_target ?? 0;
  const next = addMonths(month, 1);
  const carry = Math.max(0, c.balance + Math.max(0, c.goal_under_funded ?? 0));
  const lacks = Math.max(0, T - carry);
  const dated = (due: string | null | undefined, spentThen: boolean): number => {
    if (!due) return lacks;
    let dueMonth = monthOf(due);
    let held = carry;
    if (dueMonth < next) {
      // The date is this month or past: the target is spent then, and the next period begins.
      const period = periodMonths(c);
      if (!spentThen || !period) return 0;
      held = Math.max(0, carry - T);
      while (dueMonth < next) dueMonth = addMonths(dueMonth, period);
    }
    return divCeil(Math.max(0, T - held), monthsBetween(next, dueMonth) + 1);
  };
  switch (c.goal_type) {
    case 'MF':
    case 'DEBT':
      return T;
    case 'TB':
      return lacks;
    case 'TBD':
      return dated(c.goal_target_date, false);
    case 'NEED': {
      if (c.goal_cadence === 2) return T * weekdaysIn(next, c.goal_day ?? 0);
      if (c.goal_target_date) return dated(c.goal_target_date, true);
      return c.goal_needs_whole_amount === false ? lacks : T;
    }
    default:
      return 0;
  }
}

/** Each visible category of `month` with a target, in group order. */
export function targetRows(r: BudgetReplica, month: string): TargetRow[] {
  const byId = new Map((r.months.get(month)?.categories ?? []).map((c) => [c.id, c]));
  const rows: TargetRow[] = [];
  for (const group of r.categoryGroups.values()) {
    if (group.deleted || group.hidden) continue;
    for (const base of r.categories.values()) {
      if (base.category_group_id !== group.id || base.deleted || base.hidden || base.internal) continue;
      const c = byId.get(base.id);
      if (!c?.goal_type) continue;
      const snoozed = !!c.goal_snoozed_at && monthOf(c.goal_snoozed_at.slice(0, 10)) === month;
      rows.push({
        category: c,
        group,
        type: c.goal_type,
        how: c.goal_type === 'NEED' ? (c.goal_needs_whole_amount === false ? 'refill' : 'set aside') : null,
        cadence: cadenceOf(c),
        target: c.goal_target ?? 0,
        underfunded: Math.max(0, c.goal_under_funded ?? 0),
        nextMonth: nextMonthNeed(c, month),
        snoozed,
      });
    }
  }
  return rows;
}

/** The month a `month` argument names ("current" or none: this month, UTC); one the budget has. */
export function monthArg(r: BudgetReplica, month: string | undefined, today: string): string {
  const m = !month || month === 'current' ? monthOf(today) : month;
  if (!r.months.has(m))
    throw new ArgumentError(`month ${m} is not in this budget (its months run from ${r.summary.first_month ?? '?'} to ${r.summary.last_month ?? '?'})`);
  return m;
}
