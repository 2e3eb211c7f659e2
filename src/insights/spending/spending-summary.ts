/**
 * spending_summary: spending in a period by category, group, payee, account or month, each row
 * against the previous period (./period.ts) or, with `compare_months`, against the average month
 * of the N whole months before it; the largest rows kept and the rest summed as "everything else"
 * (./group.ts). A period of several months also gives its average per month, every month of the
 * range counted (a month with nothing spent counts as zero, not as missing).
 */
import * as z from 'zod';
import { addMonths, monthOf } from '../../api/dates.js';
import { divFloor, sumMilliunits } from '../../api/money.js';
import { MONTH_ARG } from '../../shared/arg-schemas.js';
import { DETAIL_ARG } from '../core/args.js';
import { lineFilter, OFF_BUDGET_ARG, SCOPE_ARGS, WINDOW_ARGS } from '../core/filter.js';
import { payeesLeftOut } from '../core/payees-left-out.js';
import { flows, present, rowMoney } from '../core/format.js';
import { combined, GROUP_BY, groupLines, sums, topGroups, type Group, type GroupBy } from '../core/group.js';
import { monthSoFar } from '../core/partial-month.js';
import { monthsOf, resolvePeriod, within, type Period } from '../core/period.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';
import type { BudgetView } from '../core/view.js';
import { averagedMonths, baselineOf, COMPARE_ARG, keptRows, uncategorizedInflow } from './compare.js';

export const SPENDING_SUMMARY_INPUT = {
  month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (default); or since_date.'),
  ...WINDOW_ARGS,
  group_by: z.enum(GROUP_BY).optional().describe('Default category.'),
  top: z.int().min(1).max(50).optional().describe('Rows kept (default 7, full 10); the rest summed as one.'),
  compare_months: z.int().min(1).max(24).optional().describe('Vs the average of N months before.'),
  compare: COMPARE_ARG,
  ...SCOPE_ARGS,
  ...OFF_BUDGET_ARG,
  ...DETAIL_ARG,
};

/** What was assigned to each category (or group) in the months a period touches. */
function assignedIn(view: BudgetView, period: Period, by: GroupBy): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of monthsOf(period)) {
    for (const c of view.replica.months.get(m)?.categories ?? []) {
      const key = by === 'category' ? c.id : c.category_group_id;
      out.set(key, (out.get(key) ?? 0) + c.budgeted);
    }
  }
  return out;
}

/**
 * A total spread over `n` months, rounded half away from zero to the currency's smallest unit
 * (a cent for 2 decimal digits), as YNAB shows money: integers only.
 */
function perMonth(total: number, n: number, digits = 2): number {
  const unit = 10 ** Math.max(0, 3 - digits);
  const d = n * unit;
  const a = Math.abs(total);
  let q = divFloor(a, d);
  if (2 * (a - q * d) >= d) q += 1;
  return q === 0 ? 0 : (total < 0 ? -q : q) * unit;
}

/** The rows of a comparison: the period's groups, and those with spending only in the period compared with (both figures said). */
function withEarlier(now: Group[], before: readonly Group[], by: GroupBy, key: (g: Group) => string): Group[] {
  if (by === 'month') return now;
  const have = new Set(now.map(key));
  return [...now, ...before.filter((g) => !have.has(key(g))).map((g) => ({ ...g, outflow: 0, inflow: 0, net: 0, count: 0 }))];
}

export function spendingSummary(ctx: InsightContext, a: InsightArgs<typeof SPENDING_SUMMARY_INPUT>): InsightResult {
  const by: GroupBy = a.group_by ?? 'category';
  const resolved = resolvePeriod(a, ctx.today);
  const current = resolved.current;
  const baseline = baselineOf(ctx.view, current, resolved.previous, a);
  const previous = baseline.period;
  // An average month of the baseline, or the previous period's figure as it stands.
  const compared = (net: number) => (baseline.months ? perMonth(net, baseline.months, ctx.digits) : net);
  const comparedName = baseline.months ? 'average_month_net' : 'previous_net';
  // The period picks dates (and the previous period's); the filter picks everything else.
  const { since_date: _since, until_date: _until, ...scope } = a;
  const lines = ctx.view.activity(a.include_off_budget).filter(lineFilter(ctx.view, scope, ctx.digits));
  const now = lines.filter((l) => within(l.date, current));
  // Month rows compare with the month before each (a year before, year_ago); other rows with the period compared with.
  const byMonth = by === 'month' && !baseline.months;
  const before = byMonth
    ? lines.filter((l) => l.date >= addMonths(monthOf(current.since), -baseline.shift) && l.date < monthOf(current.since)).concat(now)
    : lines.filter((l) => within(l.date, previous));
  const key = (g: { id: string | null; name: string }) => g.id ?? `name:${g.name}`;
  const prevNet = new Map<string, number>();
  const earlier = groupLines(ctx.view, before, by);
  for (const g of earlier) prevNet.set(byMonth ? addMonths(g.id!, baseline.shift) : key(g), g.net);
  const assigned = by === 'category' || by === 'category_group' ? assignedIn(ctx.view, current, by) : undefined;
  const full = a.detail === 'full';
  // Compact rows carry each figure's text (issue 43): seven of them fit a typical answer (2 KB).
  const groups = withEarlier(groupLines(ctx.view, now, by), earlier, by, key);
  const months = monthsOf(current).length > 1 ? averagedMonths(ctx.view, current) : undefined;
  const notices = [
    months?.notice,
    baseline.notice,
    uncategorizedInflow(ctx, now),
    ...(beforeStart(ctx.view, previous).notices ?? []),
    payeesLeftOutNote(ctx, a, current),
  ].filter((x): x is string => x !== undefined);
  // Compact: a row fewer when a line is said, so that the answer stays within 2 KB.
  const top = a.top ?? (full ? 10 : notices.length ? 6 : 7);
  const { rows: kept, others } = by === 'month' ? topGroups(groups, by, top) : keptRows(groups, new Map(earlier.map((g) => [key(g), g.outflow])), key, top);
  const fig = rowMoney(ctx.money, full);
  // Compact rows name what they are (follow-up tools take names), give outflow and inflow only
  // where they differ from the net (money went both ways) and leave what was assigned to full
  // detail: ten rows of every figure would not fit a typical answer (2 KB).
  // A group that is no entity (no payee, no category) says `id: null` in both details: its name
  // is ours, not one a tool takes. The combined "everything else" row is no group and has no id.
  const row = (g: Group, previousNet: number, assignedSum?: number, combinedRow = false): Record<string, unknown> => {
    const id = combinedRow ? undefined : g.id === null ? null : full ? g.id : undefined;
    return {
      ...(id !== undefined ? { id } : {}),
      ...present({
        name: g.name,
        ...flows(fig, g.outflow, g.inflow, full),
        ...fig('net', g.net),
        count: g.count,
        // By month, compact: a month's previous period is the row before it, so said once, in the totals.
        ...(!full && byMonth && baseline.shift === 1 ? {} : fig(comparedName, compared(previousNet))),
        ...(full && assignedSum !== undefined ? fig('assigned', assignedSum) : {}),
      }),
    };
  };
  const assignedTo = (groups: readonly Group[]) => (assigned ? sumMilliunits(groups.map((g) => (g.id ? (assigned.get(g.id) ?? 0) : 0))) : undefined);
  // With a baseline average, a month row compares with the average month (every month alike).
  const baseNet = baseline.months ? sums(before).net : 0;
  const prevOf = (g: Group) => (by === 'month' && baseline.months ? baseNet : (prevNet.get(key(g)) ?? 0));
  // A single leftover group is named, as a row of its own.
  const out = (others.length === 1 ? [...kept, ...others] : kept).map((g) => row(g, prevOf(g), assignedTo([g])));
  if (others.length > 1) {
    const previousNet = by === 'month' && baseline.months ? baseNet : sumMilliunits(others.map((g) => prevNet.get(key(g)) ?? 0));
    out.push({ ...row(combined(others, 'everything else'), previousNet, assignedTo(others), true), groups: others.length });
  }
  const total = sums(now);
  const previousTotal = sums(lines.filter((l) => within(l.date, previous)));
  return {
    structured: {
      // The month a period was asked as is its since date: said again in full detail only.
      period: present({ ...current, month: full ? current.month : null }),
      ...(baseline.months
        ? { compared_with: { since: previous.since, until: previous.until, months: baseline.months, as: 'the average month' } }
        : { previous_period: { since: previous.since, until: previous.until } }),
      // The current month is partial: its days so far beside the same days of the month before.
      ...(current.month && a.since_date === undefined
        ? monthSoFar(ctx, current.month, 'net', (since, until) => sums(lines.filter((l) => within(l.date, { since, until }))).net, full)
        : {}),
      group_by: by,
      rows: out,
      totals: {
        ...flows(ctx.money, total.outflow, total.inflow, full),
        ...ctx.money('net', total.net),
        count: total.count,
        // Every month of the range since the budget's first month counts, a month with nothing in it as zero.
        ...(months ? { months: months.months, ...ctx.money('average_month_net', perMonth(total.net, months.months, ctx.digits)) } : {}),
        ...ctx.money(comparedName, compared(previousTotal.net)),
      },
    },
    ...(notices.length ? { notices } : {}),
  };
}

/** The payees a payee filter left out although their names contain it, over the current period. */
function payeesLeftOutNote(ctx: InsightContext, a: InsightArgs<typeof SPENDING_SUMMARY_INPUT>, current: Period): string | undefined {
  const { since_date: _since, until_date: _until, ...scope } = a;
  const period = { ...scope, since_date: current.since, until_date: current.until };
  return payeesLeftOut(ctx.view, period, ctx.digits, ctx.view.activity(a.include_off_budget));
}

/** A comparison that reaches before the budget's first month says so: nothing there was tracked. */
function beforeStart(view: BudgetView, p: Period): { notices?: string[] } {
  const first = view.replica.summary.first_month;
  if (!first || p.since >= first) return {};
  if (p.until < first)
    return { notices: [`The comparison (${p.since} to ${p.until}) is before the budget's first month, ${first}: nothing was tracked then, so it shows zero.`] };
  return { notices: [`The comparison starts ${p.since}, before the budget's first month, ${first}: it counts only from ${first}.`] };
}
