/**
 * debt_payoff's answer to YNAB's Loan Planner question (issue 58 item 1): the extra on the one
 * debt `target_debt` names, nothing else changes. That debt pays its regular payment plus the
 * extra each month, and nothing is rolled over from other debts (the avalanche and snowball plans
 * roll freed payments over; this does not). Its figures come from the same month arithmetic as
 * the plans (./debt-plan.ts: interest rounded to the cent per payment, integer milliunits), set
 * against the same debt at its regular payment, the `as_is` plan.
 */
import { formatMilliunits } from '../../api/money.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';
import type { Money } from '../core/format.js';
import { monthlyInterest, monthsTo, simulate, type PlanDebt, type PlanResult } from './debt-plan.js';

/** The debt alone at its regular payment plus `extra` each month: the as_is plan of it with the extra added to its payment. */
export function planAlone(debt: PlanDebt, extra: number, first: string, horizon: number, digits: number): PlanResult {
  const paying: PlanDebt = { ...debt, minimumIn: (m, balance, interest) => debt.minimumIn(m, balance, interest) + extra };
  return simulate([paying], 'as_is', 0, first, horizon, { digits });
}

/** What the answer says of the debt alone: its payment, payoff, payments, interest, and what the extra saves against `as_is`. */
export function aloneAnswer(
  money: Money,
  format: CurrencyFormat | null,
  a: { debt: PlanDebt; extra: number; first: string; digits: number; alone: PlanResult; regular: { payoff: string | null; interest: number } },
): Record<string, unknown> {
  const { debt, extra, first, alone, regular } = a;
  const payment = debt.minimumIn(first, debt.balance, monthlyInterest(debt.balance, debt.rateIn(first), a.digits));
  const payments = monthsTo(first, alone.payoff[0]!);
  const regularPayments = monthsTo(first, regular.payoff);
  // A debt never paid off at one of the two payments has no saving to quote (its payoff is null).
  const paidBoth = payments !== null && regularPayments !== null;
  const text = (m: number) => formatMilliunits(m, format);
  return {
    name: debt.name,
    rule: `regular payment ${text(payment)} + ${text(extra)} on ${debt.name} alone, nothing rolled over; saved: against as_is`,
    ...money('payment', payment + extra),
    payoff: alone.payoff[0]?.slice(0, 7) ?? null,
    payments,
    ...money('interest', alone.interest[0]!),
    ...(paidBoth ? { months_saved: regularPayments - payments, ...money('interest_saved', regular.interest - alone.interest[0]!) } : {}),
  };
}
