/**
 * cash_flow: income, spending and net worth for each recent month, as YNAB's month figures have
 * them, with their totals, and the budget's health: savings rate, YNAB's age of money, runway and
 * the net worth trend (money-health.ts). Income is YNAB's month income less the opening balances
 * in it (view.ts, monthIncome: never income), and a notice says how much was set apart and why.
 * Rates and averages count complete months only by
 * default: the current, partial month is shown apart (`current_month`). Asked for more months
 * than the budget has, it says how many it had. Spending is the budget activity of the view's
 * lines (view.ts), the one definition spending_summary counts with too.
 */
import * as z from 'zod';
import { addDays, addMonths, currentMonth } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import { DETAIL_ARG } from '../core/args.js';
import { WINDOW_ARGS } from '../core/filter.js';
import { present, rowMoney } from '../core/format.js';
import { monthSoFar } from '../core/partial-month.js';
import { averages, moneyHealth, savingsRate, type MonthSeen } from './money-health.js';
import { RANGE_SINCE, rangeOf, type Range } from './range.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const CASH_FLOW_INPUT = {
  months: z.int().min(1).max(36).optional().describe('Complete months before this one (default 6).'),
  // Default true (the tool's description says the current month is apart); each word here is paid for in every tools/list.
  complete_months_only: z.boolean().optional(),
  since_date: RANGE_SINCE,
  until_date: WINDOW_ARGS.until_date,
  ...DETAIL_ARG,
};

/** The months asked for that the budget has, oldest first, the current one last when it is counted. */
function window(ctx: InsightContext, asked: number, withCurrent: boolean) {
  const current = currentMonth(new Date(`${ctx.today}T00:00:00Z`));
  const months = ctx.view.replica.months;
  const complete: string[] = [];
  for (let i = asked; i >= 1; i--) if (months.has(addMonths(current, -i))) complete.push(addMonths(current, -i));
  return { current, complete, counted: withCurrent && months.has(current) ? [...complete, current] : complete };
}

/** Compact months as columns: income and spending, each list beside the same list formatted; the month this one is, when partial. */
function columns(ctx: InsightContext, seen: readonly MonthSeen[], markPartial: boolean): Record<string, unknown> {
  const list = (name: string, values: number[]) => ({ [name]: values, [`${name}_formatted`]: values.map((v) => formatMilliunits(v, ctx.format)) });
  // A range's partial months are its first and last, which its period says.
  const partial = markPartial ? seen.find((m) => m.partial)?.month : undefined;
  return {
    ...list(
      'income',
      seen.map((m) => m.income),
    ),
    ...list(
      'spending',
      seen.map((m) => m.spending),
    ),
    ...(partial ? { partial_month: partial } : {}),
  };
}

/** The one line that says how much income leaves out as opening balances, and why (none when nothing was). */
function setApart(ctx: InsightContext, months: readonly MonthSeen[]): string | undefined {
  const with_ = months.filter((m) => m.opening !== 0);
  if (!with_.length) return undefined;
  const total = with_.reduce((s, m) => s + m.opening, 0);
  const where = with_.map((m) => m.month.slice(0, 7)).join(', ');
  return `Income leaves out ${formatMilliunits(total, ctx.format)} of opening balances (${where}): YNAB's month counts an account's starting balance as income, but it is money the account already held, not money earned, so it is not in income or the savings rate.`;
}

/** A month's income and its opening balances set apart: YNAB's month's (view.ts, monthIncome), or a range's days of it. */
function incomeOf(ctx: InsightContext, month: string, days: { since: string; until: string } | undefined) {
  if (!days) return ctx.view.monthIncome(month);
  return { income: ctx.view.incomeBetween(days.since, days.until), opening: ctx.view.openingBetween(days.since, days.until) };
}

export function cashFlow(ctx: InsightContext, a: InsightArgs<typeof CASH_FLOW_INPUT>): InsightResult {
  const range: Range | undefined = rangeOf(ctx, a);
  const asked = a.months ?? 6;
  const full = a.detail === 'full';
  const withCurrent = a.complete_months_only === false || range !== undefined;
  const { current, complete, counted } = range ?? window(ctx, asked, withCurrent);
  // Rows (full detail; compact gives columns): each figure with its text, as totals and health.
  const fig = rowMoney(ctx.money, full);
  const row = (month: string): MonthSeen & { out: Record<string, unknown> } => {
    const m = ctx.view.replica.months.get(month)!;
    const lastDay = addDays(addMonths(month, 1), -1);
    // A range's first and last months count its days only; partial: not a whole month, or not over.
    const days = range ? { since: month < range.since ? range.since : month, until: lastDay > range.until ? range.until : lastDay } : undefined;
    const partial = days ? days.since !== month || days.until !== lastDay || lastDay >= ctx.today : month === current;
    // Income without the opening balances YNAB's month counts in it (view.ts, monthIncome).
    const { income, opening } = incomeOf(ctx, month, days && (days.since !== month || days.until !== lastDay) ? days : undefined);
    const monthEnd = days ? days.until : partial ? ctx.today : lastDay;
    const spending = ctx.view.spendingBetween(days?.since ?? month, monthEnd);
    const netWorth = ctx.view.netWorthOn(monthEnd);
    const out = present({
      month,
      ...fig('income', income),
      ...fig('spending', spending),
      // The net is income minus spending: said in full detail, left to the reader in compact.
      ...(full ? fig('net', income - spending) : {}),
      // Each month's net worth in full detail (compact: its change, in health; a year of rows stays in 2 KB).
      ...(full ? fig('net_worth', netWorth) : {}),
      // Per month in full detail; compact gives them once, in health.
      savings_rate_pct: full ? savingsRate(income, spending) : null,
      age_of_money: full ? (m.age_of_money ?? null) : null,
      // Compact: current_month says it (the rows before it are complete).
      partial: partial && (full || withCurrent) ? true : null,
      through: partial && full ? monthEnd : null,
    });
    return { month, income, opening, spending, netWorth, partial, out };
  };
  const seen = counted.map(row);
  const now = ctx.view.replica.months.has(current) && !withCurrent ? row(current) : null;
  const totals = { income: seen.reduce((s, m) => s + m.income, 0), spending: seen.reduce((s, m) => s + m.spending, 0) };
  const notices: string[] = range?.notice ? [range.notice] : [];
  const apart = setApart(ctx, now ? [...seen, now] : seen);
  if (apart) notices.push(apart);
  const avg = averages(ctx, seen);
  if (!range && complete.length < asked) {
    const had = complete.length ? `${complete.length} (${complete[0]!.slice(0, 7)} to ${complete.at(-1)!.slice(0, 7)})` : 'none';
    notices.push(`Asked for ${asked} complete months; the budget has ${had} before this month: all it has are shown.`);
  }
  return {
    structured: {
      // Full: a row per month. Compact: the months, and their figures as columns beside their texts
      // (a year of rows, each figure with its text, would not fit 2 KB).
      ...(range ? { period: { since: range.since, until: range.until } } : {}),
      ...(full ? { months: seen.map((m) => m.out) } : { months: seen.map((m) => m.month), by_month: columns(ctx, seen, !range) }),
      ...(now ? { current_month: now.out } : {}),
      // The current month, shown or counted, is partial: its days so far beside the same days of the month before (a range compares nothing).
      ...(!range && (now || counted.includes(current))
        ? monthSoFar(ctx, current, 'spending', (since, until) => ctx.view.spendingBetween(since, until), full)
        : {}),
      totals: {
        ...ctx.money('income', totals.income),
        ...ctx.money('spending', totals.spending),
        // A range answers "how much have we saved": said in compact too.
        ...(range ? ctx.money('saved', totals.income - totals.spending) : full ? ctx.money('net', totals.income - totals.spending) : {}),
        // Per complete month (a partial one would pull them down).
        ...(avg
          ? {
              // Said when a partial month is left out of them (else they are over every month shown).
              ...(avg.months < seen.length ? { averaged_months: avg.months } : {}),
              ...ctx.money('average_income', avg.income),
              ...ctx.money('average_spending', avg.spending),
            }
          : {}),
      },
      health: moneyHealth(ctx, seen, totals, full, range?.since),
    },
    notices,
  };
}
