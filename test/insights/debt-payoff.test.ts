/**
 * debt_payoff through a real MCP client against the demo budget, checked with arithmetic written
 * here: one loan's payoff against a standard amortization (BigInt, balance × rate / 12 rounded
 * to the cent, half up, each month, and the closed form n = −ln(1 − rB/P) / ln(1 + r)), the strategies'
 * orders from the API's raw rates and balances, and two debts paid by avalanche and snowball
 * worked out by hand. The loan terms come from the API's raw accounts (YNAB's debt fields).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { divHalfEven, simulate, type PlanDebt } from '../../src/insights/debt/debt-plan.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth } from './raw.js';

let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

/** The value in effect today in one of YNAB's date → value maps. */
function current(map: Record<string, number> | null): number | null {
  const today = new Date().toISOString().slice(0, 10);
  const starts = Object.keys(map ?? {})
    .filter((d) => d <= today)
    .sort();
  return starts.length ? map![starts.at(-1)!]! : null;
}

/** A standard amortization in BigInt: months to pay off and the interest charged. */
function amortize(balance: bigint, rate: bigint, payment: bigint): { months: number; interest: bigint } {
  let months = 0;
  let interest = 0n;
  while (balance > 0n) {
    // Interest to the cent, half up, as a lender charges it.
    const d = 12_000_000n;
    const charged = ((balance * rate + d / 2n) / d) * 10n;
    interest += charged;
    balance += charged;
    balance -= payment < balance ? payment : balance;
    months++;
  }
  return { months, interest };
}

describe('debt_payoff', () => {
  it("pays a loan off as a standard amortization of YNAB's rate and minimum payment (as_is)", async () => {
    const r = await raw(h.sb);
    const loan = r.accounts.find((a) => a.type === 'autoLoan');
    const rate = current(loan.debt_interest_rates)!;
    const payment = current(loan.debt_minimum_payments)! - (current(loan.debt_escrow_amounts) ?? 0);
    const owed = -loan.balance;
    const expected = amortize(BigInt(owed), BigInt(rate), BigInt(payment));
    // The closed form agrees on the month count (floats: only the count is compared).
    const i = rate / 1_200_000;
    expect(Math.ceil(-Math.log(1 - (i * owed) / payment) / Math.log(1 + i))).toBe(expected.months);

    const res = ok(await h.call('debt_payoff', { strategy: 'as_is', detail: 'full' }));
    const row = res.debts.find((d: any) => d.name === loan.name);
    const first = shiftMonth(thisMonth(), 1);
    expect(row.owed).toBe(owed);
    expect(row.interest_rate).toBe(`${rate / 1000}%`);
    expect(row.payoff.as_is).toBe(shiftMonth(first, expected.months - 1).slice(0, 7));
    expect(row.interest.as_is).toBe(Number(expected.interest));
    expect(res.plans).toHaveLength(1);
    expect(res.assumptions.join(' ')).toMatch(/Interest: balance × rate \/ 12 to the cent, half up/);
    expect(row.payments.as_is).toBe(expected.months);
  });

  it('orders avalanche by rate and snowball by balance, and extra money never costs months', async () => {
    const r = await raw(h.sb);
    const res = ok(await h.call('debt_payoff', { strategy: 'both', extra_per_month: 200, detail: 'full' }));
    const loans = r.accounts.filter((a) => !a.closed && a.balance < 0 && current(a.debt_interest_rates) !== null);
    const names = (sort: (a: any, b: any) => number) => [...loans].sort(sort).map((a) => a.name);
    const byPlan = Object.fromEntries(res.plans.map((p: any) => [p.strategy, p]));
    expect(byPlan.avalanche.order).toEqual(names((a, b) => current(b.debt_interest_rates)! - current(a.debt_interest_rates)!));
    expect(byPlan.snowball.order).toEqual(names((a, b) => b.balance - a.balance));
    for (const d of res.debts) for (const s of ['avalanche', 'snowball']) expect(d.months_saved[s]).toBeGreaterThanOrEqual(0);
    expect(byPlan.avalanche.interest).toBeLessThanOrEqual(byPlan.snowball.interest);
    // The monthly schedule ends at zero owed in every plan, and starts below what is owed today.
    const owedNow = loans.reduce((s, a) => s - a.balance, 0);
    for (const s of ['as_is', 'avalanche', 'snowball']) {
      const totals = res.schedule.owed[s];
      expect(totals.at(-1)).toBe(0);
      expect(totals[0]).toBeLessThan(owedNow);
    }
  });

  it('takes an APR where YNAB has none (cards), and refuses an account that is not a debt', async () => {
    const r = await raw(h.sb);
    const card = r.accounts.find((a) => a.type === 'creditCard' && !a.closed && a.balance < 0);
    const without = ok(await h.call('debt_payoff', {}));
    expect(Object.values(without.left_out).flat()).toContain(card.name);
    const withApr = ok(await h.call('debt_payoff', { apr: { [card.name]: 22.9 } }));
    expect(withApr.debts.find((d: any) => d.name === card.name)).toMatchObject({ interest_rate: '22.9%', rate_from: 'apr' });
    expect(withApr.assumptions.join(' ')).toMatch(/interest \+ 1% of balance/);
    const bad = await h.call('debt_payoff', { apr: { 'Everyday Checking': 5 } });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/apr: "Everyday Checking" is not an open debt account/);
  });

  it('answers in at most 2 KB by default', async () => {
    expect(Buffer.byteLength((await h.call('debt_payoff', {})).content[0].text)).toBeLessThanOrEqual(2048);
  });
});

describe('avalanche and snowball on two debts, by hand', () => {
  // A: $1,000 at 20%, $50 a month; B: $800 at 5%, $50 a month; $100 extra.
  const debt = (name: string, balance: number, rate: number): PlanDebt => ({ name, balance, rateIn: () => rate, minimumIn: () => 50_000 });
  const debts = [debt('A', 1_000_000, 20_000), debt('B', 800_000, 5_000)];

  it('puts the extra on the highest rate (avalanche) or the smallest balance (snowball)', () => {
    // Month one, to the cent: A is charged $1,000 × 20% / 12 = $16.666… → $16.67; B $800 × 5% / 12 = $3.333… → $3.33.
    const avalanche = simulate(debts, 'avalanche', 100_000, '2030-01-01', 600);
    expect(avalanche.order).toEqual([0, 1]);
    expect(avalanche.balances[0]).toEqual([1_016_670 - 150_000, 803_330 - 50_000]);
    const snowball = simulate(debts, 'snowball', 100_000, '2030-01-01', 600);
    expect(snowball.order).toEqual([1, 0]);
    expect(snowball.balances[0]).toEqual([1_016_670 - 50_000, 803_330 - 150_000]);
    // Aimed at B, the extra goes there first under avalanche too.
    expect(simulate(debts, 'avalanche', 100_000, '2030-01-01', 600, { target: 1 }).order).toEqual([1, 0]);
    // Snowball clears B first, avalanche clears A first; avalanche pays less interest.
    expect(snowball.payoff[1]! < snowball.payoff[0]!).toBe(true);
    expect(avalanche.payoff[0]! < avalanche.payoff[1]!).toBe(true);
    const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
    expect(sum(avalanche.interest)).toBeLessThan(sum(snowball.interest));
  });

  it('rounds half to even', () => {
    expect([divHalfEven(5n, 10n), divHalfEven(15n, 10n), divHalfEven(25n, 10n), divHalfEven(26n, 10n)]).toEqual([0n, 2n, 2n, 3n]);
  });
});

describe('debt_payoff without debts', () => {
  it('plans nothing and says why for a budget that owes nothing', async () => {
    const res = ok(await h.call('debt_payoff', { budget_id: 'Haushalt Berlin' }));
    expect(res).toMatchObject({ debts: [], plans: [] });
    expect(res.notices.join(' ')).toMatch(/No open debt account owes money/);
  });
});
