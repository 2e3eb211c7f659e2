/**
 * What spending_summary compares a period with, and the lines that say what its figures leave
 * out (issue 58 items 2 and 4): the previous equal period, the same dates a year earlier
 * (`compare: "year_ago"`), or the average month of the N months before, counting only the months
 * since the budget's first month (nothing was tracked before it, so an average over those months
 * would be an average over zeros); and an uncategorized inflow, which YNAB's month counts as
 * activity and so nets into the spending total.
 */
import * as z from 'zod';
import { monthOf, monthsBetween } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { monthsBefore, monthsOf, yearAgo, type Period } from '../core/period.js';
import type { Group } from '../core/group.js';
import type { InsightContext } from '../core/types.js';
import type { BudgetView, Line } from '../core/view.js';

export const COMPARE_ARG = z.enum(['year_ago']).optional().describe('"year_ago": same dates a year earlier.');

export interface Baseline {
  period: Period;
  /** The months an average is taken over (compare_months), since the budget's first month. */
  months?: number;
  /** Each month is compared with the month this many before it (grouped by month). */
  shift: number;
  /** Said when the average counts fewer months than were asked. */
  notice?: string;
}

const monthsText = (n: number) => `${n} ${n === 1 ? 'month' : 'months'}`;

/** The line that says an average counts only the months since the budget's first month. */
function fromFirst(first: string, counted: number, starts: string, what: string): string {
  return `Averages count ${monthsText(counted)}, from the budget's first month, ${first}: ${what} starts ${starts}, before it, when nothing was tracked.`;
}

export function baselineOf(view: BudgetView, current: Period, previous: Period, a: { compare_months?: number; compare?: 'year_ago' }): Baseline {
  if (a.compare !== undefined && a.compare_months !== undefined) {
    throw new ArgumentError('give compare ("year_ago": the same dates a year earlier) or compare_months (the average of N months before), not both');
  }
  if (a.compare === 'year_ago') return { period: yearAgo(current), shift: 12 };
  const n = a.compare_months;
  if (n === undefined) return { period: previous, shift: 1 };
  const p = monthsBefore(current, n);
  const first = view.replica.summary.first_month;
  // Wholly before the first month, nothing was tracked: beforeStart says so and the average is zero.
  if (!first || p.since >= first || p.until < first) return { period: p, months: n, shift: 1 };
  const months = monthsBetween(first, monthOf(p.until)) + 1;
  return { period: { since: first, until: p.until }, months, shift: 1, notice: fromFirst(first, months, p.since, `the ${monthsText(n)} before`) };
}

/** The months of a period an average counts: those since the budget's first month, with the line that says so when any are left out. */
export function averagedMonths(view: BudgetView, p: Period): { months: number; notice?: string } {
  const all = monthsOf(p);
  const first = view.replica.summary.first_month;
  const counted = first ? all.filter((m) => m >= first).length : all.length;
  if (counted === all.length || counted === 0) return { months: all.length };
  return { months: counted, notice: fromFirst(first!, counted, p.since, 'the period') };
}

/** One line when uncategorized money in netted into the spending total, and by how much. */
export function uncategorizedInflow(ctx: InsightContext, lines: readonly Line[]): string | undefined {
  const id = ctx.view.uncategorizedId;
  const inflows = lines.filter((l) => l.amount > 0 && ctx.view.categoryOf(l) === id);
  if (!id || !inflows.length) return undefined;
  const by = formatMilliunits(
    inflows.reduce((s, l) => s + l.amount, 0),
    ctx.format,
  );
  // Terse: a month's compact answer is near its 2 KB with this line.
  return `${inflows.length} uncategorized ${inflows.length === 1 ? 'inflow' : 'inflows'} cut spending by ${by}.`;
}

/**
 * The rows kept, as group.ts topGroups keeps them (the largest outflow first, then by net), a
 * group with spending only in the period compared with ranked by that spending among the rows
 * with none now; the rest summed apart. `earlier`: each group's outflow in that period, by key.
 */
export function keptRows(groups: Group[], earlier: ReadonlyMap<string, number>, key: (g: Group) => string, top: number): { rows: Group[]; others: Group[] } {
  const sorted = [...groups].sort(
    (a, b) => a.outflow - b.outflow || a.net - b.net || (earlier.get(key(a)) ?? 0) - (earlier.get(key(b)) ?? 0) || a.name.localeCompare(b.name),
  );
  return sorted.length <= top ? { rows: sorted, others: [] } : { rows: sorted.slice(0, top), others: sorted.slice(top) };
}
