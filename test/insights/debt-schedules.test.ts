/**
 * debt_payoff to the cent, through a real MCP client: fixed loans opened in the sandbox with
 * YNAB's loan terms (a 30-year mortgage with escrow, a 5-year car loan, a peer's car loan) and a
 * card at its minimum, each checked against a reference schedule amortized in cents here (BigInt,
 * each month's interest rounded to the cent half up, as a lender rounds it), from the API's raw
 * accounts. Then the extra money: a decimal amount in the currency, questioned when it is more
 * than everything owed or than a month's income, and aimed at one debt by target_debt. On three
 * seeds and two dates (the middle of a month, the first of one: this process's clock, which the
 * server and the sandbox run in).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../src/sandbox/domain/accounts.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth, usd } from './raw.js';

const U = 1000;
let h: McpHarness;

/** The loans opened for this file: name → type, owed, yearly rate (thousandths of a percent), YNAB's minimum, escrow. */
const LOANS = {
  'Lakeside Mortgage': { type: 'mortgage', owed: 300_000_000, rate: 6_500, minimum: 2_296_210, escrow: 400_000 },
  'Civic Car Loan': { type: 'autoLoan', owed: 25_000_000, rate: 5_900, minimum: 482_160, escrow: 0 },
  'Peer Car Loan': { type: 'autoLoan', owed: 19_040_810, rate: 4_500, minimum: 400_000, escrow: 0 },
} as const;

/** A month's interest in cents, half up: balance × rate / 12, with the rate in thousandths of a percent. */
function centsInterest(balance: bigint, rate: bigint): bigint {
  const d = 1_200_000n * 10n;
  return ((balance * rate + d / 2n) / d) * 10n;
}

/** A reference amortization: payments until nothing is owed, and the interest charged. */
function amortize(owed: number, rate: number, payment: (balance: bigint, interest: bigint) => bigint) {
  let balance = BigInt(owed);
  let payments = 0;
  let interest = 0n;
  while (balance > 0n && payments < 600) {
    const charged = centsInterest(balance, BigInt(rate));
    const due = payment(balance, charged);
    interest += charged;
    balance += charged;
    balance -= due < balance ? due : balance;
    payments++;
  }
  return { payments, interest: Number(interest) };
}

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const CASES = ['debt-schedules', 'debt-schedules-b', 'debt-schedules-c'].flatMap((seed) =>
  [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)].map((date) => [seed, date] as const),
);

describe.each(CASES)('debt_payoff on seed %s, %s', (seed, date) => {
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    const store = h.sb.state.budgets.find((b) => b.rec.name === 'Demo Household')!;
    const month = thisMonth();
    store.change(() => {
      for (const [name, l] of Object.entries(LOANS))
        createAccount(store, {
          name,
          type: l.type,
          balance: -l.owed,
          date: month,
          debt: {
            debt_interest_rates: { [month]: l.rate },
            debt_minimum_payments: { [month]: l.minimum },
            debt_escrow_amounts: l.escrow ? { [month]: l.escrow } : null,
          },
        });
    });
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  describe('fixed loans against schedules amortized in cents', () => {
    it.each(Object.keys(LOANS))('%s: payments and interest to the cent', async (name) => {
      const r = await raw(h.sb);
      const a = r.accounts.find((x) => x.name === name);
      // The terms as the API sends them: the payment to the loan is the minimum less escrow.
      const rate = Object.values(a.debt_interest_rates as Record<string, number>)[0]!;
      const minimum = Object.values(a.debt_minimum_payments as Record<string, number>)[0]!;
      const escrow = Object.values((a.debt_escrow_amounts ?? {}) as Record<string, number>)[0] ?? 0;
      const ref = amortize(-a.balance, rate, () => BigInt(minimum - escrow));
      const res = ok(await h.call('debt_payoff', { strategy: 'as_is', detail: 'full' }));
      const row = res.debts.find((d: any) => d.name === name);
      expect(row.payments.as_is).toBe(ref.payments);
      expect(row.interest.as_is).toBe(ref.interest);
      expect(row.payoff.as_is).toBe(shiftMonth(shiftMonth(thisMonth(), 1), ref.payments - 1).slice(0, 7));
    });

    it("gives the peer's car loan 53 payments and $1,972.80 of interest, and the terms' lengths", async () => {
      const res = ok(await h.call('debt_payoff', { strategy: 'as_is', detail: 'full' }));
      const by = (n: string) => res.debts.find((d: any) => d.name === n);
      expect(by('Peer Car Loan')).toMatchObject({ payments: { as_is: 53 }, interest: { as_is: 1_972_800 } });
      expect(by('Lakeside Mortgage').payments.as_is).toBe(360);
      expect(by('Civic Car Loan').payments.as_is).toBe(60);
      expect(res.assumptions.join(' ')).toMatch(/to the cent, half up/);
      expect(res.plans[0].payments).toBeGreaterThanOrEqual(360);
      // Asked for alone (the Loan Planner's question) with no extra: the same 53 payments and interest, nothing saved.
      const alone = ok(await h.call('debt_payoff', { strategy: 'as_is', target_debt: 'Peer Car Loan' })).target_debt;
      expect(alone).toMatchObject({ payments: 53, interest: 1_972_800, interest_formatted: '$1,972.80', months_saved: 0, interest_saved: 0 });
    });

    it('names the minimum-payment trap of a card paid at its minimum, against a schedule in cents', async () => {
      const r = await raw(h.sb);
      const card = r.accounts.find((a) => a.type === 'creditCard' && !a.closed && a.balance < 0);
      // The stated rule for a card without YNAB's minimum: interest + 1% of the balance, at least $25.
      const onePercent = (b: bigint) => ((b + 500n) / 1000n) * 10n;
      const ref = amortize(-card.balance, 24_990, (b, i) => {
        const m = i + onePercent(b);
        return m > 25_000n ? m : 25_000n;
      });
      const res = ok(await h.call('debt_payoff', { strategy: 'as_is', apr: { [card.name]: 24.99 }, detail: 'full' }));
      const row = res.debts.find((d: any) => d.name === card.name);
      expect(row).toMatchObject({ payments: { as_is: ref.payments }, interest: { as_is: ref.interest }, trap: 'minimum barely covers interest' });
      expect(res.notices.join(' ')).toContain(`Minimum-payment trap: ${card.name}'s minimum`);
      expect(res.notices.join(' ')).toContain(`takes ${ref.payments} payments and ${usd(ref.interest)} of interest`);
      // A loan paying mostly interest early (the mortgage) is no trap.
      expect(res.debts.find((d: any) => d.name === 'Lakeside Mortgage').trap).toBeUndefined();
    });
  });

  describe('extra money', () => {
    it('takes extra_per_month as a decimal amount in the currency, or in milliunits', async () => {
      const plain = ok(await h.call('debt_payoff', { strategy: 'avalanche' }));
      const decimal = ok(await h.call('debt_payoff', { strategy: 'avalanche', extra_per_month: 200 }));
      const milli = ok(await h.call('debt_payoff', { strategy: 'avalanche', extra_per_month_milliunits: 200_000 }));
      expect(decimal.plans).toEqual(milli.plans);
      expect(decimal.assumptions.join(' ')).toContain('+ $200.00/month');
      expect(decimal.plans[1].payments).toBeLessThan(plain.plans[1].payments);
    });

    it("questions an extra larger than everything owed, or than a month's income, rather than plan it", async () => {
      const r = await raw(h.sb);
      const owed = r.accounts.filter((a) => !a.closed && a.balance < 0 && a.debt_interest_rates).reduce((s, a) => s - a.balance, 0);
      const huge = await h.call('debt_payoff', { extra_per_month: 2_000_000 });
      expect(huge.isError).toBe(true);
      expect(huge.content[0].text).toContain(`is at least all the debts planned owe (${usd(owed)})`);
      expect(huge.content[0].text).toMatch(/200 = \$200\.00/);
      // The peer's mistake: 200000 meant as milliunits is $200,000.00 a month, more than the household earns.
      const months = [1, 2, 3].map((k) => r.months.find((m: any) => m.month === shiftMonth(thisMonth(), -k))).filter(Boolean);
      const income = Math.round(months.reduce((s: number, m: any) => s + m.income, 0) / months.length / 10) * 10;
      const big = await h.call('debt_payoff', { extra_per_month: 200_000 });
      expect(big.isError).toBe(true);
      expect(big.content[0].text).toContain(`$200,000.00 a month is more than the budget's average monthly income (${usd(income)}`);
    });

    it("answers $50 extra on a card alone: each month's stated minimum plus $50, nothing rolled over, against a schedule in cents", async () => {
      const r = await raw(h.sb);
      const card = r.accounts.find((a) => a.type === 'creditCard' && !a.closed && a.balance < 0);
      const onePercent = (b: bigint) => ((b + 500n) / 1000n) * 10n;
      const minimum = (b: bigint, i: bigint) => (i + onePercent(b) > 25_000n ? i + onePercent(b) : 25_000n);
      const regular = amortize(-card.balance, 24_990, minimum);
      const alone = amortize(-card.balance, 24_990, (b, i) => minimum(b, i) + 50_000n);
      const res = ok(await h.call('debt_payoff', { apr: { [card.name]: 24.99 }, target_debt: card.name, extra_per_month: 50 }));
      expect(res.target_debt).toMatchObject({
        name: card.name,
        payments: alone.payments,
        interest: alone.interest,
        months_saved: regular.payments - alone.payments,
        interest_saved: regular.interest - alone.interest,
      });
      expect(res.debts.map((d: any) => d.name)).toEqual([card.name]);
    });

    it('aims the extra at one named debt with target_debt', async () => {
      const free = ok(await h.call('debt_payoff', { strategy: 'avalanche', extra_per_month: 300, detail: 'full' }));
      const aimed = ok(await h.call('debt_payoff', { strategy: 'avalanche', extra_per_month: 300, target_debt: 'peer car loan', detail: 'full' }));
      expect(aimed.plans[1].order[0]).toBe('Peer Car Loan');
      const peer = (x: any) => x.debts.find((d: any) => d.name === 'Peer Car Loan');
      expect(peer(aimed).payments.avalanche).toBeLessThan(peer(free).payments.avalanche);
      // Each plan says where its extra goes first, and that freed payments roll over (issue 58 item 1).
      expect(aimed.plans[1].rule).toBe('Peer Car Loan first, then highest rate; freed payments roll over');
      const bad = await h.call('debt_payoff', { extra_per_month: 300, target_debt: 'Everyday Checking' });
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toMatch(/target_debt: "Everyday Checking" is not a debt this plan pays; they are: /);
    });
  });
});
