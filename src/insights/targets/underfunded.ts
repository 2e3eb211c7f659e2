/**
 * YNAB's Underfunded (an Auto-Assign option) on a month, as its help describes it ("Underfunded:
 * A Guide", support.ynab.com): every category's target need (goal_under_funded, credit card
 * payment categories included) and the overspending it covers (what would still be below zero
 * after the need), and, when Ready to Assign cannot pay for all of it, the order it funds in
 * ("The Order Logic"): overspending first, then targets by when they are due, the soonest first
 * (target-need.ts dueIn; a balance without a date last), the last one funded in part. Only YNAB's
 * internal categories (Inflow: Ready to Assign, Uncategorized) are never funded; hidden ones only
 * when named. targets_summary shows it and fund_targets assigns it, so the two agree.
 */
import type * as E from '../../api/schemas/entities.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { dueIn } from './target-need.js';
import type { TargetMonth } from './target-month.js';

export interface UnderfundedRow {
  c: E.CategoryBase;
  group: E.CategoryGroup;
  /** What the target asks (0 without one). */
  need: number;
  /** Overspending covered: what would still be below zero after the need. */
  cover: number;
  /** When the target is due in the month; null: no date (or no target). */
  due: string | null;
}

export interface Scope {
  category_group_id?: string;
  category_id?: string;
}

/** The month's categories a call is about, in group order: visible ones, or those of the group or the category named. */
export function scopedCategories(r: BudgetReplica, tm: TargetMonth, scope: Scope = {}): { c: E.CategoryBase; group: E.CategoryGroup }[] {
  const out: { c: E.CategoryBase; group: E.CategoryGroup }[] = [];
  for (const group of r.categoryGroups.values()) {
    if (group.deleted || (scope.category_group_id ? group.id !== scope.category_group_id : group.hidden && !scope.category_id)) continue;
    for (const base of r.categories.values()) {
      if (base.category_group_id !== group.id || base.deleted || base.internal) continue;
      if (scope.category_id ? base.id !== scope.category_id : base.hidden) continue;
      const c = tm.categories.get(base.id);
      if (c) out.push({ c, group });
    }
  }
  return out;
}

/** Each category of the scope with what Underfunded gives it: its target's need and the overspending it covers. */
export function underfundedRows(r: BudgetReplica, tm: TargetMonth, scope: Scope = {}): UnderfundedRow[] {
  return scopedCategories(r, tm, scope).map(({ c, group }) => {
    const need = Math.max(0, c.goal_under_funded ?? 0);
    return { c, group, need, cover: Math.max(0, -(c.balance + need)), due: c.goal_type ? dueIn(c, tm.month) : null };
  });
}

export interface Funded {
  /** What each category is given, by id (only those given something). */
  given: Map<string, number>;
  /** The rows not given all they ask, in funding order. */
  short: UnderfundedRow[];
  total: number;
}

/** The rows' needs in YNAB's order (overspending, then targets soonest due first), paid from `money` while it lasts. */
export function fundInOrder(rows: readonly UnderfundedRow[], money: number): Funded {
  const steps: { row: UnderfundedRow; amount: number }[] = [
    ...rows.filter((x) => x.cover > 0).map((row) => ({ row, amount: row.cover })),
    ...rows
      .map((row, i) => ({ row, i }))
      .filter((x) => x.row.need > 0)
      .sort((a, b) => (a.row.due ?? '9999').localeCompare(b.row.due ?? '9999') || a.i - b.i)
      .map(({ row }) => ({ row, amount: row.need })),
  ];
  const given = new Map<string, number>();
  const short = new Set<UnderfundedRow>();
  let left = Math.max(0, money);
  let total = 0;
  for (const { row, amount } of steps) {
    const give = Math.min(amount, left);
    if (give < amount) short.add(row);
    if (give <= 0) continue;
    left -= give;
    total += give;
    given.set(row.c.id, (given.get(row.c.id) ?? 0) + give);
  }
  return { given, short: [...short], total };
}

/** The soonest-due target among rows that still need money. */
export function soonest(rows: readonly UnderfundedRow[]): UnderfundedRow | undefined {
  return rows.filter((x) => x.need > 0 && x.due).sort((a, b) => a.due!.localeCompare(b.due!))[0];
}
