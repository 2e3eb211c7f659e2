/**
 * targets_summary: every category with a target in a month (targets.ts reads them), what each
 * still needs this month (YNAB's underfunded figure) and is expected to ask next month, and the
 * total needed against Ready to Assign. Compact: the categories that still need money, and how
 * many need none; full: every target with its group, type, cadence, amounts and due date.
 */
import { MONTH_ARG } from '../shared/arg-schemas.js';
import { DETAIL_ARG } from './args.js';
import { present, rowMoney } from './format.js';
import { monthArg, TARGET_ASSUMPTIONS, targetRows, type TargetRow } from './targets.js';
import type { InsightArgs, InsightContext, InsightResult } from './types.js';

export const TARGETS_SUMMARY_INPUT = { month: MONTH_ARG.optional().describe('YYYY-MM-01; default current.'), ...DETAIL_ARG };

export function targetsSummary(ctx: InsightContext, a: InsightArgs<typeof TARGETS_SUMMARY_INPUT>): InsightResult {
  const r = ctx.view.replica;
  const month = monthArg(r, a.month, ctx.today);
  const full = a.detail === 'full';
  const fig = rowMoney(ctx.money, full);
  const rows = targetRows(r, month);
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
      ...fig('next_month', t.nextMonth),
      due: full ? (c.goal_target_date ?? null) : null,
      snoozed: t.snoozed ? true : null,
    });
  };
  const underfunded = rows.reduce((s, t) => s + t.underfunded, 0);
  const next = rows.reduce((s, t) => s + t.nextMonth, 0);
  const rta = r.months.get(month)?.to_be_budgeted ?? 0;
  const shown = full ? rows : rows.filter((t) => t.underfunded > 0);
  return {
    structured: {
      month,
      targets: shown.map(row),
      ...(full ? {} : { fully_funded: rows.length - shown.length }),
      totals: {
        count: rows.length,
        ...ctx.money('underfunded', underfunded),
        ...ctx.money('ready_to_assign', rta),
        ...ctx.money('short', Math.max(0, underfunded - rta)),
        ...ctx.money('next_month', next),
      },
      assumptions: TARGET_ASSUMPTIONS,
    },
  };
}
