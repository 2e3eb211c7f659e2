/**
 * The current month, so far, beside the same days of the month before (issue 57): a month that is
 * still going on, set next to a whole previous month with no word that it is partial, reads as a
 * drop in spending. Wherever an insight compares the current month's spending with an earlier
 * month (spending_summary's month, cash_flow's current month) it gives this block, under one
 * name, `month_so_far`: the days it covers, its figure, and the same figure over the same days of
 * the month before ("Nov 1–25 (partial): $X; Oct 1–25: $Y").
 */
import { addDays, addMonths, currentMonth, daysInMonth } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import type { InsightContext } from './types.js';

const SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Nov 1–25", or "Nov 1" for one day. */
function daysLabel(since: string, until: string): string {
  const month = SHORT[Number(since.slice(5, 7)) - 1];
  const first = Number(since.slice(8));
  const last = Number(until.slice(8));
  return first === last ? `${month} ${first}` : `${month} ${first}–${last}`;
}

/** The first days of the month before `month`, as many as `days` (fewer where that month is shorter). */
export function sameDaysBefore(month: string, days: number): { since: string; until: string } {
  const before = addMonths(month, -1);
  const length = daysInMonth(Number(before.slice(0, 4)), Number(before.slice(5, 7)));
  return { since: before, until: addDays(before, Math.min(days, length) - 1) };
}

/**
 * `month_so_far` for `month` when it is the current month (undefined otherwise): `name` is the
 * figure's name in the answer ("spending", "net"), `figure` computes it over a span of dates,
 * the same way the answer's figures are computed. Full detail gives the dates and figures apart.
 */
export function monthSoFar(
  ctx: InsightContext,
  month: string,
  name: string,
  figure: (since: string, until: string) => number,
  full: boolean,
): { month_so_far: Record<string, unknown> } | undefined {
  if (month !== currentMonth(new Date(`${ctx.today}T00:00:00Z`))) return undefined;
  const days = Number(ctx.today.slice(8));
  const before = sameDaysBefore(month, days);
  const now = figure(month, ctx.today);
  const then = figure(before.since, before.until);
  const label = `${daysLabel(month, ctx.today)} (partial): ${formatMilliunits(now, ctx.format)}; ${daysLabel(before.since, before.until)}: ${formatMilliunits(then, ctx.format)}`;
  // Compact: the line alone, its figures as they are quoted (a compact answer stays within 2 KB).
  if (!full) return { month_so_far: { label } };
  return {
    month_so_far: {
      label,
      since: month,
      through: ctx.today,
      days,
      ...ctx.money(name, now),
      same_days_before: before,
      ...ctx.money(`${name}_same_days_before`, then),
    },
  };
}
