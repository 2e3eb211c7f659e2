/**
 * debt_payoff's arguments read against the budget: the APR argument's accounts, the extra money
 * (a decimal amount in the currency, or milliunits, as every amount argument) and the debt it is
 * aimed at. An extra larger than everything owed, or than a month's income, is questioned (an
 * error that asks) rather than planned: it is most often an amount given in the wrong unit.
 */
import { addMonths, currentMonth } from '../../api/dates.js';
import { percentToRate } from '../../api/debt-terms.js';
import { formatMilliunits, roundToMinor } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { optionalMoney } from '../../shared/money-args.js';
import { foldText } from '../../shared/text.js';
import type { InsightContext } from '../core/types.js';

/** An account by id or name (folded), among `accounts`. */
function accountNamed(accounts: readonly E.Account[], key: string): E.Account | undefined {
  return accounts.find((x) => x.id === key) ?? accounts.find((x) => foldText(x.name) === foldText(key));
}

/** The APR argument's keys matched to debt accounts (by id or name); an unknown key is refused. */
export function aprByAccount(accounts: E.Account[], apr: Record<string, number> | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, percent] of Object.entries(apr ?? {})) {
    if (!(percent >= 0 && percent <= 100))
      throw new ArgumentError(`apr: ${JSON.stringify(key)} is ${percent}; give a yearly rate in percent, 0 to 100 (22.9 for 22.9%)`);
    const a = accountNamed(accounts, key);
    if (!a) throw new ArgumentError(`apr: ${JSON.stringify(key)} is not an open debt account; they are: ${accounts.map((x) => x.name).join(', ') || 'none'}`);
    out.set(a.id, percentToRate(percent));
  }
  return out;
}

/** The extra per month in milliunits (0 when not given); below zero is refused. */
export function extraOf(ctx: InsightContext, args: { extra_per_month?: number; extra_per_month_milliunits?: number }): number {
  const extra = optionalMoney(args, 'extra_per_month', { digits: ctx.digits }) ?? 0;
  if (extra < 0) throw new ArgumentError(`extra_per_month is ${formatMilliunits(extra, ctx.format)}; give an amount of at least 0`);
  return extra;
}

/** Average income of the last three complete months of the budget (null without any). */
function monthlyIncome(ctx: InsightContext): { average: number; months: number } | null {
  const now = currentMonth(new Date(`${ctx.today}T00:00:00Z`));
  const seen = [1, 2, 3].map((k) => addMonths(now, -k)).filter((m) => ctx.view.replica.months.has(m));
  if (!seen.length) return null;
  return {
    // Opening balances are not income (view.ts, monthIncome).
    average: roundToMinor(
      seen.reduce((s, m) => s + ctx.view.monthIncome(m).income, 0),
      seen.length,
      ctx.format,
    ),
    months: seen.length,
  };
}

/** Refuses an extra that would pay every debt at once, or that is more than a month's income. */
export function questionExtra(ctx: InsightContext, extra: number, owed: number): void {
  if (extra === 0) return;
  const money = (m: number) => formatMilliunits(m, ctx.format);
  const unit = `extra_per_month is a decimal amount in the budget's currency (200 = ${money(200_000)}); give extra_per_month_milliunits for milliunits`;
  if (extra >= owed)
    throw new ArgumentError(`extra_per_month ${money(extra)} a month is at least all the debts planned owe (${money(owed)}): not planned. ${unit}.`);
  const income = monthlyIncome(ctx);
  if (income && extra > income.average)
    throw new ArgumentError(
      `extra_per_month ${money(extra)} a month is more than the budget's average monthly income (${money(income.average)}, last ${income.months} full months): not planned. ${unit}.`,
    );
}

/** The index among `debts` of the debt `target_debt` names; an unknown or unplanned one is refused. */
export function targetOf(debts: readonly { account: E.Account }[], target: string | undefined): number | undefined {
  if (target === undefined) return undefined;
  const a = accountNamed(
    debts.map((d) => d.account),
    target,
  );
  if (!a)
    throw new ArgumentError(`target_debt: ${JSON.stringify(target)} is not a debt this plan pays; they are: ${debts.map((d) => d.account.name).join(', ')}`);
  return debts.findIndex((d) => d.account.id === a.id);
}
