/**
 * Money health, as cash_flow answers it beside its months: the savings rate (income kept, of
 * income), YNAB's own age of money (the current month's figure), the runway (how many months of
 * the average full month's spending the cash in budget accounts covers) and the net worth trend
 * over the months shown. Each figure says what it assumed, in one short line.
 */
import { rowMoney } from './format.js';
import { CREDIT_TYPES } from './view.js';
import type { InsightContext } from './types.js';

/** Whole percent of income not spent; null without income. */
export function savingsRate(income: number, spending: number): number | null {
  return income > 0 ? Math.round(((income - spending) * 100) / income) : null;
}

interface MonthSeen {
  month: string;
  spending: number;
  netWorth: number;
  partial: boolean;
}

export function moneyHealth(
  ctx: InsightContext,
  months: readonly MonthSeen[],
  totals: { income: number; spending: number },
  full: boolean,
): Record<string, unknown> {
  const fig = rowMoney(ctx.money, full);
  const r = ctx.view.replica;
  // Cash: what the open budget accounts that are not credit hold today.
  let cash = 0;
  for (const a of r.accounts.values()) if (a.on_budget && !a.closed && !a.deleted && !CREDIT_TYPES.has(a.type)) cash += a.balance;
  const whole = months.filter((m) => !m.partial);
  const spent = whole.reduce((s, m) => s + m.spending, 0);
  // Runway in tenths of a month, from integer milliunits (a month's average spending is spent / n).
  const runway = whole.length && spent > 0 ? Math.round((cash * whole.length * 10) / spent) / 10 : null;
  const first = months[0];
  const last = months[months.length - 1];
  // Compact: the four figures (the description says what runway is); full: the cash and every assumption too.
  return {
    savings_rate_pct: savingsRate(totals.income, totals.spending),
    age_of_money: (last && r.months.get(last.month)?.age_of_money) ?? null,
    runway_months: runway,
    ...(first && last ? fig('net_worth_change', last.netWorth - first.netWorth) : {}),
    ...(full
      ? {
          ...fig('cash', cash),
          assumes: `runway: cash in open budget accounts (not cards) / average spending of the ${whole.length} full months shown; net worth change: end of ${first?.month.slice(0, 7) ?? '-'} to today`,
        }
      : {}),
  };
}
