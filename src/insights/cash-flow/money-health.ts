/**
 * Money health, as cash_flow answers it beside its months: the savings rate (income kept, of
 * income, to a tenth of a percent), YNAB's own age of money, the runway (how many months of the
 * average complete month's spending the cash in budget accounts covers, with its basis said) and
 * the net worth change over the window, with the opening balances of accounts added in the
 * window apart ("accounts added": they are not money earned or lost). Every computed amount is in
 * the currency's minor unit (api/money.ts roundToMinor).
 */
import { addDays } from '../../api/dates.js';
import { roundToMinor } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import type { InsightContext } from '../core/types.js';
import { CREDIT_TYPES } from '../core/view.js';

export interface MonthSeen {
  month: string;
  /** YNAB's month income less its opening balances (view.ts, monthIncome). */
  income: number;
  /** The opening balances set apart from YNAB's month income. */
  opening: number;
  spending: number;
  netWorth: number;
  partial: boolean;
}

/** part / whole × 100 to one decimal, half away from zero (BigInt: exact); null when whole ≤ 0. */
function tenths(part: number, whole: number): number | null {
  if (whole <= 0) return null;
  const n = BigInt(part) * 1000n;
  const d = BigInt(whole);
  const abs = n < 0n ? -n : n;
  const q = (2n * abs + d) / (2n * d);
  return Number(n < 0n ? -q : q) / 10;
}

/** Percent of income not spent, one decimal (40.9); null without income. */
export function savingsRate(income: number, spending: number): number | null {
  return tenths(income - spending, income);
}

/** Accounts whose starting balance falls in the window: their names and opening balances' sum. */
function accountsAdded(ctx: InsightContext, since: string): { names: string[]; opening: number } {
  const r = ctx.view.replica;
  const names: string[] = [];
  let opening = 0;
  for (const t of r.transactions.values()) {
    if (t.deleted || t.date < since || t.date > ctx.today || !t.payee_id || !ctx.view.startingPayees.has(t.payee_id)) continue;
    const a = r.accounts.get(t.account_id);
    if (!a || a.deleted) continue;
    if (!names.includes(a.name)) names.push(a.name);
    opening += t.amount;
  }
  return { names: names.sort(), opening };
}

/** The accounts net worth sums: every one not deleted, on and off budget, closed ones too (named in full detail: a compact year of months stays in 2 KB). */
function worthAccounts(accounts: Iterable<E.Account>, full: boolean): string {
  const all = [...accounts].filter((a) => !a.deleted);
  const names = all.map((a) => (a.closed ? `${a.name} (closed)` : a.name)).sort();
  return full ? `all ${all.length} accounts, on and off budget: ${names.join(', ')}` : `all ${all.length} accounts`;
}

/** The complete months' average income and spending, each rounded to the currency's minor unit; undefined with no complete month. */
export function averages(ctx: InsightContext, months: readonly MonthSeen[]): { months: number; income: number; spending: number } | undefined {
  const whole = months.filter((m) => !m.partial);
  if (!whole.length) return undefined;
  const sum = (k: 'income' | 'spending') => whole.reduce((s, m) => s + m[k], 0);
  return {
    months: whole.length,
    income: roundToMinor(sum('income'), whole.length, ctx.format),
    spending: roundToMinor(sum('spending'), whole.length, ctx.format),
  };
}

/** `start`: the first day the answer covers (a date range's since; else the first month's first day). */
export function moneyHealth(
  ctx: InsightContext,
  months: readonly MonthSeen[],
  totals: { income: number; spending: number },
  full: boolean,
  start?: string,
): Record<string, unknown> {
  const r = ctx.view.replica;
  const money = (m: number) => ctx.money('x', m).x_formatted;
  // Cash: what the open budget accounts that are not credit hold today.
  let cash = 0;
  for (const a of r.accounts.values()) if (a.on_budget && !a.closed && !a.deleted && !CREDIT_TYPES.has(a.type)) cash += a.balance;
  const whole = months.filter((m) => !m.partial);
  const average = averages(ctx, months)?.spending ?? 0;
  const runway = average > 0 ? tenths(cash, average * 100) : null;
  const span = whole.length ? `${whole[0]!.month.slice(0, 7)} to ${whole.at(-1)!.month.slice(0, 7)}` : 'no complete month';
  const first = months[0];
  const out: Record<string, unknown> = {
    savings_rate_pct: savingsRate(totals.income, totals.spending),
    // YNAB's figure of today (the current month's), not a rate: the current month is not left out of it.
    age_of_money: r.months.get(`${ctx.today.slice(0, 7)}-01`)?.age_of_money ?? null,
    runway_months: runway,
    // The average is cash_flow's totals.average_spending (said once: a year of months stays in 2 KB).
    runway_basis: runway === null ? `no spending to divide by in ${span}` : `cash ${money(cash)} / totals.average_spending`,
  };
  if (full) Object.assign(out, ctx.money('cash', cash), ctx.money('average_spending', average));
  if (!first) return out;
  // Today's net worth; its change from the day before the first day covered, accounts opened since apart.
  const from = start ?? first.month;
  const before = addDays(from, -1);
  const added = accountsAdded(ctx, from);
  const worth = ctx.view.netWorthOn(ctx.today);
  const change = worth - ctx.view.netWorthOn(before);
  Object.assign(out, ctx.money('net_worth', worth), ctx.money('net_worth_change', change - added.opening));
  if (added.names.length) out.accounts_added = { names: added.names.join(', '), ...ctx.money('opening_balances', added.opening) };
  out.net_worth_covers = worthAccounts(r.accounts.values(), full);
  if (full) out.net_worth_change_from = before;
  if (full) out.cash_is = 'open budget accounts, not cards';
  return out;
}
