/**
 * debt_payoff's answer to YNAB's Loan Planner question (issue 58 item 1), through a real MCP
 * client on the demo household: "an extra amount on this one debt, nothing else changes". The
 * regular payment plus the extra on that debt alone, nothing rolled over from other debts,
 * checked against a schedule amortized here in cents (BigInt, each payment's interest rounded to
 * the cent half up, as a lender rounds it) from the API's raw account: its balance, its rates by
 * date, its minimum payment less escrow. Also each debt's payments left in the compact answer,
 * the plans' line that freed payments roll over, and the full answer for one debt. On three
 * seeds and two dates (the middle of a month, the first of one: this process's clock, which the
 * server and the sandbox run in).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth, usd, type Raw } from './raw.js';

const MORTGAGE = 'Lake Cabin Mortgage';
/** The $100 a month of the issue, in milliunits. */
const EXTRA = 100_000;

/** The value in effect on `date` in one of YNAB's date → value maps (null without one). */
function valueOn(map: Record<string, number> | null, date: string): number | null {
  const starts = Object.keys(map ?? {})
    .filter((d) => d <= date)
    .sort();
  return starts.length ? map![starts.at(-1)!]! : null;
}

/** A month's interest in cents, half up: balance × rate / 12, with the rate in thousandths of a percent. */
function centsInterest(balance: bigint, rate: bigint): bigint {
  const d = 12_000_000n;
  return ((balance * rate + d / 2n) / d) * 10n;
}

/**
 * A loan's schedule from the API's raw account, payments from next month: each month's rate and
 * payment (minimum less escrow, plus `extra`) as YNAB's maps give them for that month (today's
 * for this month and before). Payments, interest, and the balance after each payment.
 */
function amortize(a: any, extra: number, today: string) {
  let balance = BigInt(-a.balance);
  let month = shiftMonth(thisMonth(), 1);
  let interest = 0n;
  const balances: number[] = [];
  while (balance > 0n && balances.length < 600) {
    const on = month > today ? month : today;
    const charged = centsInterest(balance, BigInt(valueOn(a.debt_interest_rates, on)!));
    const payment = BigInt(valueOn(a.debt_minimum_payments, on)! - (valueOn(a.debt_escrow_amounts, on) ?? 0) + extra);
    interest += charged;
    balance += charged;
    balance -= payment < balance ? payment : balance;
    balances.push(Number(balance));
    month = shiftMonth(month, 1);
  }
  return { payments: balances.length, interest: Number(interest), balances };
}

/** The month of the n-th payment (the first is next month's). */
const paymentMonth = (n: number) => shiftMonth(shiftMonth(thisMonth(), 1), n - 1).slice(0, 7);

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const CASES = ['debt-alone', 'debt-alone-b', 'debt-alone-c'].flatMap((seed) =>
  [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)].map((date) => [seed, date] as const),
);

describe.each(CASES)('debt_payoff on seed %s, %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('answers $100 extra on the mortgage alone as the Loan Planner does: payments, payoff, interest and what it saves, in cents', async () => {
    const a = r.accounts.find((x) => x.name === MORTGAGE);
    const regular = amortize(a, 0, date);
    const alone = amortize(a, EXTRA, date);
    const res = ok(await h.call('debt_payoff', { extra_per_month: 100, target_debt: 'lake cabin mortgage' }));
    const t = res.target_debt;
    expect(t).toMatchObject({
      name: MORTGAGE,
      payment: valueOn(a.debt_minimum_payments, date)! - valueOn(a.debt_escrow_amounts, date)! + EXTRA,
      payoff: paymentMonth(alone.payments),
      payments: alone.payments,
      interest: alone.interest,
      interest_formatted: usd(alone.interest),
      months_saved: regular.payments - alone.payments,
      interest_saved: regular.interest - alone.interest,
      interest_saved_formatted: usd(regular.interest - alone.interest),
    });
    expect(t.rule).toMatch(/\$100\.00 on Lake Cabin Mortgage alone, nothing rolled over/);
    // Against the regular payment: the debt's own row at minimums (as_is) is the same schedule.
    const row = res.debts.find((d: any) => d.name === MORTGAGE);
    expect(row.payments.as_is).toBe(regular.payments);
    expect(row.payoff.as_is).toBe(paymentMonth(regular.payments));
    expect(row.interest_formatted.as_is).toBe(usd(regular.interest));
    // The figures, on the demo household as it stands in the middle of a month.
    if (date.endsWith('-15')) expect([alone.payments, regular.interest - alone.interest]).toEqual([206, 18_484_450]);
  });

  it('gives each debt its payments left in the compact answer, and each plan says that freed payments roll over', async () => {
    const res = ok(await h.call('debt_payoff', {}));
    const loans = r.accounts.filter((x) => !x.closed && x.balance < 0 && valueOn(x.debt_interest_rates, date) !== null);
    expect(res.debts.map((d: any) => d.name).sort()).toEqual(loans.map((x) => x.name).sort());
    for (const a of loans) {
      const row = res.debts.find((d: any) => d.name === a.name);
      expect(row.payments.as_is).toBe(amortize(a, 0, date).payments);
      // Every plan's payments and payoff month are one figure: the payoff is the last payment's month.
      for (const p of res.plans) expect(row.payoff[p.strategy]).toBe(paymentMonth(row.payments[p.strategy]));
    }
    const rules = Object.fromEntries(res.plans.map((p: any) => [p.strategy, p.rule]));
    expect(rules.as_is).toBeUndefined();
    expect(rules.avalanche).toBe('freed payments roll over');
    expect(rules.snowball).toBe('freed payments roll over');
  });

  it('gives the full answer for one debt: its row and its month-by-month balances only', async () => {
    const a = r.accounts.find((x) => x.name === MORTGAGE);
    const alone = amortize(a, EXTRA, date);
    const regular = amortize(a, 0, date);
    // The Loan Planner's schedule: the regular payment (as_is) against the extra alone, for that debt only.
    const one = await h.call('debt_payoff', { extra_per_month: 100, target_debt: MORTGAGE, strategy: 'as_is', detail: 'full' });
    const every = await h.call('debt_payoff', { extra_per_month: 100, detail: 'full' });
    const res = ok(one);
    expect(res.debts.map((d: any) => d.name)).toEqual([MORTGAGE]);
    expect(res.schedule.debt).toBe(MORTGAGE);
    expect(Object.keys(res.schedule.owed)).toEqual(['as_is', 'target_debt']);
    expect(res.schedule.owed.target_debt).toEqual(alone.balances);
    expect(res.schedule.owed.as_is).toEqual(regular.balances);
    expect(res.schedule.owed_formatted.target_debt.at(-1)).toBe('$0.00');
    expect(res.schedule.months).toHaveLength(regular.payments);
    expect(res.notices.join(' ')).toContain('debts and schedule: Lake Cabin Mortgage only (target_debt)');
    // Nothing of another debt in it, and less than half the size of the full answer for every debt.
    const others = r.accounts.filter((x) => !x.closed && x.balance < 0 && x.name !== MORTGAGE && valueOn(x.debt_interest_rates, date) !== null);
    expect(others.length).toBeGreaterThan(0);
    for (const o of others) expect(one.content[0].text).not.toContain(o.name);
    expect(Buffer.byteLength(one.content[0].text)).toBeLessThan(Buffer.byteLength(every.content[0].text) / 2);
    // With the plans beside it, that debt's balances under each plan (the totals of every debt are left out).
    const plans = ok(await h.call('debt_payoff', { extra_per_month: 100, target_debt: MORTGAGE, detail: 'full' }));
    expect(Object.keys(plans.schedule.owed)).toEqual(['as_is', 'avalanche', 'snowball', 'target_debt']);
    expect(plans.schedule.debts).toBeUndefined();
  });
});
