/**
 * A month's targets as targets_summary and fund_targets read them: the month as YNAB has it, or,
 * for a month after the budget's last (YNAB makes a month when money is assigned there, and lets
 * money be assigned to any later month), the month projected here from the last one it has:
 *  - each category carries in what it has at the end of the month before: the last month's
 *    available, less the scheduled transactions in its category dated after today and before the
 *    month (nothing else is assumed spent); what is below zero at a month's end does not carry (YNAB takes overspending from Ready to Assign, or it
 *    becomes card debt);
 *  - nothing is assigned or spent in it yet; each target's goal_under_funded is what it asks then
 *    (target-need.ts);
 *  - Ready to Assign is the last month's (YNAB's Ready to Assign is one pot for the current month
 *    and those after it).
 */
import { addDays, addMonths, monthOf } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { datesOf } from '../core/schedule.js';
import { needOf, nextDue } from './target-need.js';

export interface TargetMonth {
  month: string;
  /** True when the budget does not hold the month yet and it is projected here. */
  projected: boolean;
  /** Ready to Assign in the month. */
  rta: number;
  /** The month's categories by id (goal_under_funded: what each target asks then). */
  categories: Map<string, E.CategoryBase>;
}

/** The currency's minor unit in milliunits: 10 for cents. */
export const minorUnit = (r: BudgetReplica) => 10 ** Math.max(0, 3 - (r.summary.currency_format?.decimal_digits ?? 2));

const lastMonthOf = (r: BudgetReplica) => [...r.months.keys()].reduce((a, b) => (b > a ? b : a), '');

/**
 * The month a `month` argument names ("current" or none: this month, UTC): one the budget has, or
 * any later month (projected); a month before the budget's first is refused.
 */
export function monthArg(r: BudgetReplica, month: string | undefined, today: string): string {
  const m = !month || month === 'current' ? monthOf(today) : month;
  const first = [...r.months.keys()].reduce((a, b) => (!a || b < a ? b : a), '');
  if (!r.months.has(m) && (!first || m < first))
    throw new ArgumentError(
      `month ${m} is before this budget's first month (${first || '?'}); its months run from ${first || '?'} on, and later months can be funded ahead`,
    );
  return m;
}

/** What the scheduled transactions take from (or bring to) each category in [from, until], by month. */
function scheduledByMonth(r: BudgetReplica, from: string, until: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  if (from > until) return out;
  const add = (month: string, id: string | null | undefined, amount: number) => {
    if (!id) return;
    let m = out.get(month);
    if (!m) out.set(month, (m = new Map()));
    m.set(id, (m.get(id) ?? 0) + amount);
  };
  for (const s of r.scheduled.values()) {
    if (s.deleted || !r.accounts.get(s.account_id)?.on_budget) continue;
    const lines = r.scheduledLinesOf(s.id).filter((l) => !l.deleted);
    for (const date of datesOf(s, from, until)) {
      if (lines.length) for (const l of lines) add(monthOf(date), l.category_id, l.amount);
      else add(monthOf(date), s.category_id, s.amount);
    }
  }
  return out;
}

/** The month's targets: YNAB's month, or the month projected from the last one the budget has (the header says how). */
export function targetMonth(r: BudgetReplica, month: string, today: string): TargetMonth {
  const held = r.months.get(month);
  if (held) return { month, projected: false, rta: held.to_be_budgeted, categories: new Map(held.categories.map((c) => [c.id, c])) };
  const last = lastMonthOf(r);
  const base = r.months.get(last);
  if (!base) return { month, projected: true, rta: 0, categories: new Map() };
  const scheduled = scheduledByMonth(r, addDays(today, 1), addDays(month, -1));
  const unit = minorUnit(r);
  const categories = new Map<string, E.CategoryBase>();
  for (const c of base.categories) {
    let balance = c.balance;
    for (let k = last; k < month; k = addMonths(k, 1)) {
      if (k > last) balance = Math.max(0, balance);
      balance += scheduled.get(k)?.get(c.id) ?? 0;
    }
    const carry = Math.max(0, balance);
    const projected: E.CategoryBase = { ...c, budgeted: 0, activity: 0, balance: carry };
    if (c.goal_type) {
      projected.goal_under_funded = needOf(c, month, { budgeted: 0, balance: carry, carry }, unit);
      if (c.goal_type === 'NEED' && c.goal_target_date) projected.goal_target_date = nextDue(c, month);
    }
    categories.set(c.id, projected);
  }
  return { month, projected: true, rta: base.to_be_budgeted, categories };
}

/** What a target asks the month after `c`'s month, if this month's need is assigned and nothing more is spent (targets_summary's next_month). */
export function nextMonthNeed(c: E.CategoryBase, month: string, unit: number): number {
  let carry = Math.max(0, c.balance + Math.max(0, c.goal_under_funded ?? 0));
  const next = addMonths(month, 1);
  // A dated NEED target due by this month is spent then; the next period starts from what is left.
  const due = c.goal_type === 'NEED' && c.goal_target_date ? c.goal_target_date : null;
  if (due && monthOf(due) < next) carry = Math.max(0, carry - (c.goal_target ?? 0));
  const shown = c.goal_type === 'NEED' && due ? { ...c, goal_target_date: nextDue(c, next) } : c;
  return needOf({ ...shown, goal_snoozed_at: null }, next, { budgeted: 0, balance: carry, carry }, unit);
}
