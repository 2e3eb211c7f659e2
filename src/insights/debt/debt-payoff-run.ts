/**
 * debt_payoff's computation (its arguments and the tool's file are ./debt-payoff.ts, which loads
 * this with the tool's first call): the debts and their terms, the plans (./debt-plan.ts), and
 * the answer with its assumptions.
 */
import { addMonths, currentMonth } from '../../api/dates.js';
import { ratePercent, valueOn } from '../../api/debt-terms.js';
import { formatMilliunits, minorDigits, roundToMinor } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import { aloneAnswer, planAlone } from './debt-alone.js';
import { aprByAccount, extraOf, questionExtra, targetOf } from './debt-args.js';
import { oneSchedule, schedule } from './debt-schedule.js';
import { monthlyInterest, monthsTo, simulate, type PlanDebt, type PlanResult, type Strategy } from './debt-plan.js';
import { keyedMoney, present, rowMoney } from '../core/format.js';
import type { InsightContext, InsightResult } from '../core/types.js';
import { CREDIT_TYPES } from '../core/view.js';

/** The arguments, as debt-payoff.ts declares them (written out here: that file loads this one). */
export interface DebtPayoffArgs {
  strategy?: 'both' | 'avalanche' | 'snowball' | 'as_is';
  extra_per_month?: number;
  extra_per_month_milliunits?: number;
  target_debt?: string;
  apr?: Record<string, number>;
  detail?: 'compact' | 'full';
}

/** Debt accounts with YNAB's loan terms; credit accounts and other liabilities take an APR. */
const LOAN_TYPES = new Set(['mortgage', 'autoLoan', 'studentLoan', 'personalLoan', 'medicalDebt', 'otherDebt']);
const DEBT_TYPES = new Set([...LOAN_TYPES, ...CREDIT_TYPES, 'otherLiability']);
/** 50 years of months: a debt its payment never catches up with stops here. */
const HORIZON = 600;

interface Debt extends PlanDebt {
  account: E.Account;
  rateFrom: 'ynab' | 'apr';
  /** True when the minimum is the stated rule, not YNAB's. */
  ruleMinimum: boolean;
}

/** The debts the plan can pay, and those it cannot (no rate, no payment) with why. */
function debtsOf(ctx: InsightContext, apr: Map<string, number>, unit: number, digits: number) {
  const debts: Debt[] = [];
  // Why a debt is left out → the debts left out for it.
  const leftOut: Record<string, string[]> = {};
  const leave = (reason: string, name: string) => (leftOut[reason] ??= []).push(name);
  const on = (month: string) => (month > ctx.today ? month : ctx.today);
  const open = [...ctx.view.replica.accounts.values()].filter((a) => !a.deleted && !a.closed && DEBT_TYPES.has(a.type) && a.balance < 0);
  for (const a of open.sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const given = apr.get(a.id);
    if (given === undefined && valueOn(a.debt_interest_rates, ctx.today) === null) {
      leave('no rate: give apr', a.name);
      continue;
    }
    const hasMinimum = valueOn(a.debt_minimum_payments, ctx.today) !== null;
    if (!hasMinimum && LOAN_TYPES.has(a.type)) {
      leave('no minimum payment', a.name);
      continue;
    }
    debts.push({
      account: a,
      name: a.name,
      balance: -a.balance,
      rateFrom: given === undefined ? 'ynab' : 'apr',
      ruleMinimum: !hasMinimum,
      rateIn: (m) => given ?? valueOn(a.debt_interest_rates, on(m)) ?? 0,
      // YNAB's minimum less escrow (escrow pays taxes and insurance, not the loan); else interest + 1%, at least 25.
      minimumIn: hasMinimum
        ? (m) => (valueOn(a.debt_minimum_payments, on(m)) ?? 0) - (valueOn(a.debt_escrow_amounts, on(m)) ?? 0)
        : (_m, balance, interest) => Math.max(25 * unit, interest + roundToMinor(balance, 100, digits)),
    });
  }
  return { debts, leftOut };
}

/** Months saved per strategy (null: never paid off); null without other strategies. */
function savings(entries: (readonly [string, number | null])[]): Record<string, number | null> | null {
  return entries.length ? Object.fromEntries(entries) : null;
}

const PLANS: Record<string, Strategy[]> = {
  as_is: ['as_is'],
  avalanche: ['as_is', 'avalanche'],
  snowball: ['as_is', 'snowball'],
  both: ['as_is', 'avalanche', 'snowball'],
};

/** The plans, from the arguments checked against the budget. */
function plan(ctx: InsightContext, a: DebtPayoffArgs) {
  const digits = minorDigits(ctx.format);
  const extra = extraOf(ctx, a);
  const accounts = [...ctx.view.replica.accounts.values()].filter((x) => !x.deleted && !x.closed && DEBT_TYPES.has(x.type));
  const { debts, leftOut } = debtsOf(ctx, aprByAccount(accounts, a.apr), 10 ** 3, digits);
  const first = addMonths(currentMonth(new Date(`${ctx.today}T00:00:00Z`)), 1);
  const none: PlanResult[] = [];
  if (!debts.length) return { debts, leftOut, first, extra, digits, plans: none };
  questionExtra(
    ctx,
    extra,
    debts.reduce((s, d) => s + d.balance, 0),
  );
  const target = targetOf(debts, a.target_debt);
  const plans = PLANS[a.strategy ?? 'both']!.map((s) => simulate(debts, s, extra, first, HORIZON, { digits, target }));
  // The Loan Planner's question: the extra on the target alone, nothing rolled over (./debt-alone.ts).
  const alone = target === undefined ? undefined : planAlone(debts[target]!, extra, first, HORIZON, digits);
  return { debts, leftOut, first, extra, digits, plans, target, alone };
}

/**
 * A plan's rule in one line: that freed payments roll over (what target_debt's own answer does
 * not do), and the debt its extra goes to first when target_debt names one (otherwise the
 * strategy's order, as its name and the tool's argument say). as_is, minimums only, has none.
 */
function ruleOf(p: PlanResult, debts: Debt[], target: number | undefined): string | null {
  if (p.strategy === 'as_is') return null;
  const order = p.strategy === 'avalanche' ? 'highest rate' : 'smallest balance';
  return `${target === undefined ? '' : `${debts[target]!.name} first, then ${order}; `}freed payments roll over`;
}

export function debtPayoffRun(ctx: InsightContext, a: DebtPayoffArgs): InsightResult {
  const full = a.detail === 'full';
  const planned = plan(ctx, a);
  const { debts, leftOut, first, extra, digits, plans, target, alone } = planned;
  // Nothing to plan: no plans (a "debt-free" month would say something that was never planned).
  if (!debts.length) {
    const none = Object.keys(leftOut).length ? 'No debt can be planned: see left_out.' : 'No open debt account owes money.';
    return { structured: { as_of: ctx.today, debts: [], plans: [], ...(Object.keys(leftOut).length ? { left_out: leftOut } : {}) }, notices: [none] };
  }
  const base = plans[0]!;
  const debtFree = (p: PlanResult) => (p.payoff.includes(null) ? null : p.payoff.reduce((x, y) => (y! > x! ? y : x), first));
  const traps = trapped(ctx, debts, base, first, digits);
  const one = target === undefined ? undefined : debts[target]!;
  return {
    structured: {
      as_of: ctx.today,
      // With target_debt, that debt's row only (the plans' totals still cover every debt; a notice says so).
      debts: debts.flatMap((d, i) => (target !== undefined && i !== target ? [] : [debtRow(ctx, planned, full, traps, i)])),
      plans: plans.map((p) => {
        const total = p.interest.reduce((x, y) => x + y, 0);
        const end = debtFree(p);
        return present({
          strategy: p.strategy,
          rule: ruleOf(p, debts, target),
          debt_free: end?.slice(0, 7) ?? null,
          payments: monthsTo(first, end),
          // Compact, the text alone, as the debts' interest by strategy (full: the number beside it).
          ...(full ? ctx.money('interest', total) : { interest_formatted: formatMilliunits(total, ctx.format) }),
          months_saved: p === base || !full ? null : end && debtFree(base) ? monthsTo(first, debtFree(base))! - monthsTo(first, end)! : null,
          order: full && p.order.length ? p.order.map((i) => debts[i]!.name) : null,
        });
      }),
      ...(one && alone
        ? {
            target_debt: aloneAnswer(ctx.money, ctx.format, {
              debt: one,
              extra,
              first,
              digits,
              alone,
              regular: { payoff: base.payoff[target!]!, interest: base.interest[target!]! },
            }),
          }
        : {}),
      // Balances over time in full detail (the view's chart): months of them say more than 2 KB.
      ...(full ? { schedule: one && alone ? oneSchedule(ctx.format, plans, alone, one.name, target!) : schedule(ctx.format, plans, debts) } : {}),
      assumptions: assumptions(ctx, debts, extra, first),
      ...(Object.keys(leftOut).length ? { left_out: leftOut } : {}),
    },
    notices: [
      ...(one ? [`debts${full ? ' and schedule' : ''}: ${one.name} only (target_debt); plans: every debt. Leave out target_debt for every debt.`] : []),
      ...(plans.some((p) => p.payoff.includes(null)) ? ['Some debt is not paid off within 50 years at these payments (its payoff is null).'] : []),
      ...[...traps.values()],
    ],
  };
}

/** One debt's row: what it owes, its rate, and by strategy its payoff month, payments left and interest. */
function debtRow(ctx: InsightContext, { debts, plans, first, digits }: ReturnType<typeof plan>, full: boolean, traps: Map<number, string>, i: number) {
  const d = debts[i]!;
  const row = rowMoney(ctx.money, full);
  const base = plans[0]!;
  const saved = (p: PlanResult) => {
    const was = monthsTo(first, base.payoff[i]!);
    const now = monthsTo(first, p.payoff[i]!);
    return was === null || now === null ? null : was - now;
  };
  return present({
    name: d.name,
    type: full ? d.account.type : null,
    ...row('owed', d.balance),
    interest_rate: ratePercent(d.rateIn(first)),
    rate_from: d.rateFrom === 'apr' ? 'apr' : null,
    // The payment the plans start from (the assumptions say whose); compact answers leave it to them.
    ...(full ? row('payment', d.minimumIn(first, d.balance, monthlyInterest(d.balance, d.rateIn(first), digits))) : {}),
    payoff: Object.fromEntries(plans.map((p) => [p.strategy, p.payoff[i]?.slice(0, 7) ?? null])),
    // Payments left, the first in `first` (null: not paid off within 50 years).
    payments: Object.fromEntries(plans.map((p) => [p.strategy, monthsTo(first, p.payoff[i]!)])),
    // Each plan's interest on this debt, by strategy: full, the numbers and beside them their
    // texts (`interest`, `interest_formatted`); compact, the texts (keyedMoney).
    ...keyedMoney(ctx.format, 'interest', Object.fromEntries(plans.map((p) => [p.strategy, p.interest[i]!])), full),
    // Full detail only: compact answers give the payments, of which this is the difference.
    months_saved: full ? savings(plans.slice(1).map((p) => [p.strategy, saved(p)] as const)) : null,
    trap: traps.has(i) ? 'minimum barely covers interest' : null,
  });
}

/**
 * The minimum-payment trap: a card (or a debt paid by the stated rule) whose first minimum pays
 * less off what is owed than it pays in interest. Loans are left out: an early mortgage payment
 * is mostly interest by design, and its term ends it. Index → the notice that names it.
 */
function trapped(ctx: InsightContext, debts: Debt[], base: PlanResult, first: string, digits: number): Map<number, string> {
  const out = new Map<number, string>();
  const money = (m: number) => formatMilliunits(m, ctx.format);
  debts.forEach((d, i) => {
    if (LOAN_TYPES.has(d.account.type)) return;
    const interest = monthlyInterest(d.balance, d.rateIn(first), digits);
    const minimum = d.minimumIn(first, d.balance, interest);
    if (minimum - interest >= interest) return;
    const n = monthsTo(first, base.payoff[i]!);
    const how = n === null ? 'is never paid off' : `takes ${n} payments and ${money(base.interest[i]!)} of interest`;
    out.set(i, `Minimum-payment trap: ${d.name}'s minimum (${money(minimum)}) barely covers its interest (${money(interest)} a month); at minimums it ${how}.`);
  });
  return out;
}

/** What the answer rests on, said once each (each plan's order, and that freed payments roll over, are its `rule`). */
function assumptions(ctx: InsightContext, debts: Debt[], extra: number, first: string): string[] {
  const money = (m: number) => formatMilliunits(m, ctx.format);
  const out = [
    `Paid monthly from ${first.slice(0, 7)}; nothing new borrowed.`,
    `Interest: balance × rate / 12 to the ${minorDigits(ctx.format) === 2 ? 'cent' : 'minor unit'}, half up, before payment.`,
  ];
  if (extra > 0) out.push(`Extra: minimums + ${money(extra)}/month.`);
  if (debts.some((d) => !d.ruleMinimum)) out.push("Loans: YNAB's minimum less escrow, its rates by date.");
  if (debts.some((d) => d.ruleMinimum)) out.push(`No YNAB minimum: interest + 1% of balance, at least ${money(25_000)}.`);
  if (debts.some((d) => d.rateFrom === 'apr')) out.push('apr rates stay fixed.');
  return out;
}
