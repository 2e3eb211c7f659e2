/**
 * The month-by-month payoff of a set of debts under one strategy, in integer milliunits. Each
 * month, on every debt still owed: interest = balance × annual rate / 12, rounded to the
 * currency's minor unit half away from zero as a lender rounds it (api/money.ts roundToMinor,
 * BigInt, so nothing is rounded twice), is charged, then the month's payments are made. `as_is`
 * pays each debt its minimum and nothing more; `avalanche` and `snowball` pay the same minimums
 * plus the extra, and the whole of what the minimums came to at the start keeps being paid: what
 * a paid-off debt no longer needs goes to the next debt in the strategy's order (after the
 * target debt, when one is named).
 */
import { roundToMinor } from '../../api/money.js';

export type Strategy = 'as_is' | 'avalanche' | 'snowball';

export interface PlanDebt {
  name: string;
  /** What is owed, above zero. */
  balance: number;
  /** The annual rate (thousandths of a percent) in effect in a month (YYYY-MM-01). */
  rateIn(month: string): number;
  /** The month's payment to the debt itself (escrow left out), before capping at what is owed. */
  minimumIn(month: string, balance: number, interest: number): number;
}

export interface PlanResult {
  strategy: Strategy;
  /** The debts' indices in the order extra money goes to them (empty for as_is). */
  order: number[];
  /** Per debt: the month of its last payment (null if not within the horizon), and the interest it was charged. */
  payoff: (string | null)[];
  interest: number[];
  /** Each month's end balances per debt, from the first month of payments. */
  months: string[];
  balances: number[][];
}

/** n / d rounded half to even (n ≥ 0, d > 0). */
export function divHalfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const twice = 2n * (n % d);
  return twice > d || (twice === d && q % 2n === 1n) ? q + 1n : q;
}

/** A month's interest on `balance` at `rate` thousandths of a percent a year, in the currency's minor unit (`digits`, 2 for cents). */
export function monthlyInterest(balance: number, rate: number, digits = 2): number {
  return roundToMinor(BigInt(balance) * BigInt(rate), 1_200_000n, digits);
}

/** Which debt extra money goes to first: the target (when given), then highest rate (avalanche) or smallest balance (snowball), ties by name. */
export function payoffOrder(debts: readonly PlanDebt[], strategy: Strategy, first: string, target?: number): number[] {
  if (strategy === 'as_is') return [];
  const order = payoffOrderBy(debts, strategy, first);
  return target === undefined ? order : [target, ...order.filter((i) => i !== target)];
}

function payoffOrderBy(debts: readonly PlanDebt[], strategy: Strategy, first: string): number[] {
  const byName = (a: number, b: number) => (debts[a]!.name < debts[b]!.name ? -1 : debts[a]!.name > debts[b]!.name ? 1 : a - b);
  return debts
    .map((_, i) => i)
    .sort((a, b) =>
      strategy === 'avalanche'
        ? debts[b]!.rateIn(first) - debts[a]!.rateIn(first) || debts[a]!.balance - debts[b]!.balance || byName(a, b)
        : debts[a]!.balance - debts[b]!.balance || debts[b]!.rateIn(first) - debts[a]!.rateIn(first) || byName(a, b),
    );
}

/** Months from the first payment (`first`) to `month`, inclusive: the payments made (null stays null). */
export const monthsTo = (first: string, month: string | null) =>
  month === null ? null : (Number(month.slice(0, 4)) - Number(first.slice(0, 4))) * 12 + Number(month.slice(5, 7)) - Number(first.slice(5, 7)) + 1;

/** Adds `n` months to a YYYY-MM-01 month. */
function monthAfter(month: string, n: number): string {
  const total = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + n;
  return `${String(Math.floor(total / 12)).padStart(4, '0')}-${String((total % 12) + 1).padStart(2, '0')}-01`;
}

/** How a plan rounds and where its extra goes first. */
export interface PlanOptions {
  /** Decimal digits of the currency's minor unit (default 2). */
  digits?: number;
  /** The index of the debt extra money goes to first. */
  target?: number;
}

/** The payoff under `strategy`, payments from `first` (YYYY-MM-01) for at most `horizon` months. */
export function simulate(debts: readonly PlanDebt[], strategy: Strategy, extra: number, first: string, horizon: number, o: PlanOptions = {}): PlanResult {
  const order = payoffOrder(debts, strategy, first, o.target);
  const interestOn = (b: number, rate: number) => monthlyInterest(b, rate, o.digits);
  const balance = debts.map((d) => d.balance);
  const interest = debts.map(() => 0);
  const payoff: (string | null)[] = debts.map(() => null);
  const result: PlanResult = { strategy, order, payoff, interest, months: [], balances: [] };
  // What is paid each month under a strategy: the minimums as they were at the start, and the extra.
  let budget = extra;
  if (strategy !== 'as_is') for (const d of debts) budget += d.minimumIn(first, d.balance, interestOn(d.balance, d.rateIn(first)));
  for (let k = 0; k < horizon && balance.some((b) => b > 0); k++) {
    const month = monthAfter(first, k);
    let left = budget;
    for (let i = 0; i < debts.length; i++) {
      if (balance[i]! <= 0) continue;
      const d = debts[i]!;
      const charged = interestOn(balance[i]!, d.rateIn(month));
      const due = Math.min(Math.max(0, d.minimumIn(month, balance[i]!, charged)), balance[i]! + charged);
      balance[i] = balance[i]! + charged - due;
      interest[i] = interest[i]! + charged;
      left -= due;
    }
    // The rest of the month's budget, in the strategy's order.
    for (const i of order) {
      if (left <= 0) break;
      const paid = Math.min(left, balance[i]!);
      balance[i] = balance[i]! - paid;
      left -= paid;
    }
    for (let i = 0; i < debts.length; i++) if (balance[i]! <= 0 && payoff[i] === null) payoff[i] = month;
    result.months.push(month);
    result.balances.push([...balance]);
  }
  return result;
}
