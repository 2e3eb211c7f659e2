/**
 * spending_summary: spending in a period by category, group, payee, account or month, each row
 * against the previous period (./period.ts), the largest rows kept and the rest summed as
 * "everything else" (./group.ts).
 */
import * as z from 'zod';
import { addMonths, monthOf } from '../api/dates.js';
import { sumMilliunits } from '../api/money.js';
import { MONTH_ARG } from '../shared/arg-schemas.js';
import { DETAIL_ARG } from './args.js';
import { lineFilter, OFF_BUDGET_ARG, SCOPE_ARGS, WINDOW_ARGS } from './filter.js';
import { flows, present, rowMoney } from './format.js';
import { combined, GROUP_BY, groupLines, sums, topGroups, type Group, type GroupBy } from './group.js';
import { monthsOf, resolvePeriod, within, type Period } from './period.js';
import type { InsightArgs, InsightContext, InsightResult } from './types.js';
import type { BudgetView } from './view.js';

export const SPENDING_SUMMARY_INPUT = {
  month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (the default); or give since_date.'),
  ...WINDOW_ARGS,
  group_by: z.enum(GROUP_BY).optional().describe('Default category.'),
  top: z.int().min(1).max(50).optional().describe('Rows kept (default 10); the rest are summed as "everything else".'),
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

export function spendingSummary(ctx: InsightContext, a: InsightArgs<typeof SPENDING_SUMMARY_INPUT>): InsightResult {
  const by: GroupBy = a.group_by ?? 'category';
  const { current, previous } = resolvePeriod(a, ctx.today);
  // The period picks dates (and the previous period's); the filter picks everything else.
  const { since_date: _since, until_date: _until, ...scope } = a;
  const lines = ctx.view.activity(a.include_off_budget).filter(lineFilter(ctx.view, scope, ctx.digits));
  const now = lines.filter((l) => within(l.date, current));
  // Month rows compare with the month before each; other rows with the previous equal period.
  const before =
    by === 'month'
      ? lines.filter((l) => l.date >= addMonths(monthOf(current.since), -1) && l.date < monthOf(current.since)).concat(now)
      : lines.filter((l) => within(l.date, previous));
  const key = (g: { id: string | null; name: string }) => g.id ?? `name:${g.name}`;
  const prevNet = new Map<string, number>();
  for (const g of groupLines(ctx.view, before, by)) prevNet.set(by === 'month' ? addMonths(g.id!, 1) : key(g), g.net);
  const assigned = by === 'category' || by === 'category_group' ? assignedIn(ctx.view, current, by) : undefined;
  const { rows: kept, others } = topGroups(groupLines(ctx.view, now, by), by, a.top ?? 10);
  const full = a.detail === 'full';
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
        ...fig('previous_net', previousNet),
        ...(full && assignedSum !== undefined ? fig('assigned', assignedSum) : {}),
      }),
    };
  };
  const assignedTo = (groups: readonly Group[]) => (assigned ? sumMilliunits(groups.map((g) => (g.id ? (assigned.get(g.id) ?? 0) : 0))) : undefined);
  const out = kept.map((g) => row(g, prevNet.get(key(g)) ?? 0, assignedTo([g])));
  if (others.length) {
    const previousNet = sumMilliunits(others.map((g) => prevNet.get(key(g)) ?? 0));
    out.push({ ...row(combined(others, 'everything else'), previousNet, assignedTo(others), true), groups: others.length });
  }
  const total = sums(now);
  const previousTotal = sums(lines.filter((l) => within(l.date, previous)));
  return {
    structured: {
      // The month a period was asked as is its since date: said again in full detail only.
      period: present({ ...current, month: full ? current.month : null }),
      previous_period: { since: previous.since, until: previous.until },
      group_by: by,
      rows: out,
      totals: {
        ...flows(ctx.money, total.outflow, total.inflow, full),
        ...ctx.money('net', total.net),
        count: total.count,
        ...ctx.money('previous_net', previousTotal.net),
      },
    },
  };
}
