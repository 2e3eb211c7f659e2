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
import { present, rowMoney } from '../core/format.js';
import { monthSoFar } from '../core/partial-month.js';
import { moneyHealth, savingsRate, type MonthSeen } from './money-health.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const CASH_FLOW_INPUT = {
  months: z.int().min(1).max(36).optional().describe('Complete months before this one (default 6).'),
  // Default true (the tool's description says the current month is apart); each word here is paid for in every tools/list.
  complete_months_only: z.boolean().optional(),
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
function columns(ctx: InsightContext, seen: readonly MonthSeen[]): Record<string, unknown> {
  const list = (name: string, values: number[]) => ({ [name]: values, [`${name}_formatted`]: values.map((v) => formatMilliunits(v, ctx.format)) });
  const partial = seen.find((m) => m.partial)?.month;
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

export function cashFlow(ctx: InsightContext, a: InsightArgs<typeof CASH_FLOW_INPUT>): InsightResult {
  const asked = a.months ?? 6;
  const full = a.detail === 'full';
  const withCurrent = a.complete_months_only === false;
  const { current, complete, counted } = window(ctx, asked, withCurrent);
  // Rows (full detail; compact gives columns): each figure with its text, as totals and health.
  const fig = rowMoney(ctx.money, full);
  const row = (month: string): MonthSeen & { out: Record<string, unknown> } => {
    const m = ctx.view.replica.months.get(month)!;
    // Income without the opening balances YNAB's month counts in it (view.ts, monthIncome).
    const { income, opening } = ctx.view.monthIncome(month);
    const partial = month === current;
    const monthEnd = partial ? ctx.today : addDays(addMonths(month, 1), -1);
    const spending = ctx.view.spendingBetween(month, monthEnd);
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
      through: partial && full ? ctx.today : null,
    });
    return { month, income, opening, spending, netWorth, partial, out };
  };
  const seen = counted.map(row);
  const now = ctx.view.replica.months.has(current) && !withCurrent ? row(current) : null;
  const totals = { income: seen.reduce((s, m) => s + m.income, 0), spending: seen.reduce((s, m) => s + m.spending, 0) };
  const notices: string[] = [];
  const apart = setApart(ctx, now ? [...seen, now] : seen);
  if (apart) notices.push(apart);
  if (complete.length < asked) {
    const had = complete.length ? `${complete.length} (${complete[0]!.slice(0, 7)} to ${complete.at(-1)!.slice(0, 7)})` : 'none';
    notices.push(`Asked for ${asked} complete months; the budget has ${had} before this month: all it has are shown.`);
  }
  return {
    structured: {
      // Full: a row per month. Compact: the months, and their figures as columns beside their texts
      // (a year of rows, each figure with its text, would not fit 2 KB).
      ...(full ? { months: seen.map((m) => m.out) } : { months: seen.map((m) => m.month), by_month: columns(ctx, seen) }),
      ...(now ? { current_month: now.out } : {}),
      // The current month, shown or counted, is partial: its days so far beside the same days of the month before.
      ...(now || counted.includes(current) ? monthSoFar(ctx, current, 'spending', (since, until) => ctx.view.spendingBetween(since, until), full) : {}),
      totals: {
        ...ctx.money('income', totals.income),
        ...ctx.money('spending', totals.spending),
        ...(full ? ctx.money('net', totals.income - totals.spending) : {}),
      },
      health: moneyHealth(ctx, seen, totals, full),
    },
    notices,
  };
}
