/**
 * cash_flow: income, spending and net worth for each recent month, as YNAB's month figures have
 * them (the current month partial), with their totals, and the budget's health: savings rate,
 * YNAB's age of money, runway and the net worth trend (money-health.ts). Spending is the budget
 * activity of the view's lines (view.ts), the one definition spending_summary counts with too.
 */
import * as z from 'zod';
import { addDays, addMonths, currentMonth } from '../api/dates.js';
import { DETAIL_ARG } from './args.js';
import { present, rowMoney } from './format.js';
import { moneyHealth, savingsRate } from './money-health.js';
import type { InsightArgs, InsightContext, InsightResult } from './types.js';

export const CASH_FLOW_INPUT = { months: z.int().min(1).max(36).optional().describe('How many months, up to this one (default 6).'), ...DETAIL_ARG };

export function cashFlow(ctx: InsightContext, a: InsightArgs<typeof CASH_FLOW_INPUT>): InsightResult {
  const last = currentMonth(new Date(`${ctx.today}T00:00:00Z`));
  const out: Record<string, unknown>[] = [];
  const totals = { income: 0, spending: 0 };
  const full = a.detail === 'full';
  const fig = rowMoney(ctx.money, full);
  const seen: { month: string; spending: number; netWorth: number; partial: boolean }[] = [];
  for (let i = (a.months ?? 6) - 1; i >= 0; i--) {
    const month = addMonths(last, -i);
    const m = ctx.view.replica.months.get(month);
    if (!m) continue;
    const monthEnd = month === last ? ctx.today : addDays(addMonths(month, 1), -1);
    const spending = ctx.view.spendingBetween(month, monthEnd);
    const netWorth = ctx.view.netWorthOn(monthEnd);
    totals.income += m.income;
    totals.spending += spending;
    seen.push({ month, spending, netWorth, partial: month === last });
    out.push(
      present({
        month,
        ...fig('income', m.income),
        ...fig('spending', spending),
        // The net is income minus spending: said in full detail, left to the reader in compact.
        ...(full ? fig('net', m.income - spending) : {}),
        ...fig('net_worth', netWorth),
        // Per month in full detail; compact gives them once, in health.
        savings_rate_pct: full ? savingsRate(m.income, spending) : null,
        age_of_money: full ? (m.age_of_money ?? null) : null,
        partial: month === last ? true : null,
      }),
    );
  }
  return {
    structured: {
      months: out,
      totals: {
        ...ctx.money('income', totals.income),
        ...ctx.money('spending', totals.spending),
        ...(full ? ctx.money('net', totals.income - totals.spending) : {}),
      },
      health: moneyHealth(ctx, seen, totals, full),
    },
  };
}
