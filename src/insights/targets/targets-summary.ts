/**
 * targets_summary: every category with a target in a month (targets.ts reads them; a month after
 * the budget's last is projected, target-month.ts), what each needs then (YNAB's underfunded
 * figure) and when it is due, what it is expected to ask the month after, and what YNAB's
 * Underfunded would assign on the month (underfunded.ts): the targets' need and the overspending
 * it covers, each apart, and their total, against Ready to Assign. fund_targets' underfunded
 * assigns exactly that total. Compact: the targets that still need money with their due dates,
 * the soonest named, how many need none; full: every target with its group, type, cadence,
 * amounts and due date, and each overspent category.
 */
import { MONTH_ARG } from '../../shared/arg-schemas.js';
import { DETAIL_ARG } from '../core/args.js';
import { present, rowMoney } from '../core/format.js';
import { monthArg, targetMonth } from './target-month.js';
import { TARGET_ASSUMPTIONS, targetRows, type TargetRow } from './targets.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';
import { soonest, underfundedRows } from './underfunded.js';
import { formatMilliunits } from '../../api/money.js';
import { latestMonthOf, readyToAssignFields, readyToAssignIn, readyToAssignLine } from '../core/ready-to-assign.js';

export const TARGETS_SUMMARY_INPUT = { month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (default); later months too.'), ...DETAIL_ARG };

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

export function targetsSummary(ctx: InsightContext, a: InsightArgs<typeof TARGETS_SUMMARY_INPUT>): InsightResult {
  const r = ctx.view.replica;
  const month = monthArg(r, a.month, ctx.today);
  const tm = targetMonth(r, month, ctx.today);
  // A projected month's Ready to Assign is the furthest month's (target-month.ts): named as that month's.
  const rta = readyToAssignIn(r.months, tm.projected ? (latestMonthOf(r.months) ?? month) : month) ?? { month, amount: tm.rta };
  const rtaLine = readyToAssignLine(rta, (v) => formatMilliunits(v, ctx.format));
  const full = a.detail === 'full';
  const fig = rowMoney(ctx.money, full);
  const all = underfundedRows(r, tm);
  const rows = targetRows(r, tm, all);
  const row = (t: TargetRow): Record<string, unknown> => {
    const c = t.category;
    return present({
      ...(full ? { id: c.id, group: t.group.name } : {}),
      name: c.name,
      type: t.how ? `${t.type} ${t.how}` : t.type,
      cadence: full ? t.cadence : null,
      ...(full ? fig('target', t.target) : {}),
      ...(full ? fig('assigned', c.budgeted) : {}),
      ...(full ? fig('available', c.balance) : {}),
      ...fig('underfunded', t.underfunded),
      // Compact rows leave next month to the total (2 KB); full rows give each.
      ...(full ? fig('next_month', t.nextMonth) : {}),
      due: t.row.due,
      snoozed: t.snoozed ? true : null,
    });
  };
  const need = sum(all.map((x) => x.need));
  const cover = sum(all.map((x) => x.cover));
  const overspent = all.filter((x) => x.cover > 0);
  const first = soonest(all);
  const shown = full ? rows : rows.filter((t) => t.underfunded > 0);
  return {
    structured: {
      month,
      ...(tm.projected ? { projected: true } : {}),
      targets: shown.map(row),
      ...(full ? {} : { fully_funded: rows.length - shown.length }),
      ...(first ? { soonest: { name: first.c.name, due: first.due } } : {}),
      ...(full ? { overspent_by_category: overspent.map((x) => ({ id: x.c.id, name: x.c.name, ...fig('overspent', x.cover) })) } : {}),
      totals: {
        count: rows.length,
        ...ctx.money('underfunded', need),
        ...ctx.money('overspent', cover),
        ...(full ? { overspent_categories: overspent.length } : {}),
        ...ctx.money('to_assign', need + cover),
        ...readyToAssignFields(rta, ctx.money),
        ...ctx.money('short', Math.max(0, need + cover - Math.max(0, tm.rta))),
        ...ctx.money('next_month', sum(rows.map((t) => t.nextMonth))),
      },
      // Compact answers stay within 2 KB: the assumptions are said in full detail.
      ...(full ? { assumptions: TARGET_ASSUMPTIONS } : {}),
    },
    ...(rtaLine ? { notices: [rtaLine] } : {}),
  };
}
