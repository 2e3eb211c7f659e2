/**
 * The small demo (`demo: 'small'`, for benchmarks of many users: bench/hosted-watch.ts): one
 * "Demo Household" a user over six months and about 300 transactions, of the same shape as the
 * full one (checking, a credit card, the category groups, money assigned every month), and a
 * consistent budget: what the API reports for accounts, categories and months is recomputed here
 * from the API's own transactions, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const NOW = new Date('2026-11-14T12:00:00.000Z');
const MONTHS = ['2026-05-01', '2026-06-01', '2026-07-01', '2026-08-01', '2026-09-01', '2026-10-01', '2026-11-01'];

let sb: TestSandbox;
let plans: any[];
let b: string;
let accounts: any[];
let transactions: any[];

beforeAll(async () => {
  sb = await testSandbox({ users: 2, demo: 'small', rateLimit: 1_000_000, clock: () => NOW });
  plans = (await sb.get('/plans')).body.data.plans;
  b = `/plans/${plans[0].id}`;
  accounts = (await sb.get(`${b}/accounts`)).body.data.accounts;
  transactions = (await sb.get(`${b}/transactions`)).body.data.transactions;
});

afterAll(() => sb.close());

const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);

describe('small demo: shape', () => {
  it('gives each user one Demo Household of six months and about 300 transactions', async () => {
    expect(plans.map((p) => [p.name, p.first_month, p.last_month])).toEqual([['Demo Household', MONTHS[0], expect.any(String)]]);
    // Transfers are two records each; the count aims at 300 (demo/index.ts, SMALL_TRANSACTIONS).
    expect(transactions.length).toBeGreaterThanOrEqual(270);
    expect(transactions.length).toBeLessThanOrEqual(330);
    expect(Math.min(...transactions.map((t) => Date.parse(t.date)))).toBeGreaterThanOrEqual(Date.parse(MONTHS[0]!));
  });

  it('has a checking account and a credit card with spending on them, and splits', () => {
    const open = accounts.filter((a) => !a.closed && !a.deleted);
    for (const type of ['checking', 'creditCard', 'savings', 'cash']) expect(open.map((a) => a.type)).toContain(type);
    const card = open.find((a) => a.type === 'creditCard')!;
    expect(transactions.filter((t) => t.account_id === card.id && t.amount < 0).length).toBeGreaterThan(5);
    expect(transactions.some((t) => t.subtransactions.length > 1)).toBe(true);
  });

  it('leaves a category overspent this month, as the full demo does (what category.overspent watches)', async () => {
    const m = (await sb.get(`${b}/months/current`)).body.data.month;
    const spent = (id: string) => sum(transactions.filter((t) => t.category_id === id && t.date >= '2026-11-01').map((t) => t.amount));
    const over = m.categories.filter((c: any) => c.balance < 0 && c.category_group_name !== 'Credit Card Payments');
    expect(over.length).toBeGreaterThan(0);
    for (const c of over) expect(spent(c.id)).toBeLessThan(0);
  });

  it('gives the second user a budget of their own (other ids)', async () => {
    const token = sb.announcement().users[1]!.access_token;
    const other = (await sb.get('/plans', token)).body.data.plans;
    expect(other).toHaveLength(1);
    expect(other[0].id).not.toBe(plans[0].id);
    expect((await sb.get(`${b}/accounts`, token)).status).toBe(404);
  });
});

describe('small demo: the figures add up', () => {
  it('gives account balances (cleared and uncleared) that are the sums of their transactions', () => {
    for (const a of accounts.filter((x) => !x.deleted)) {
      const own = transactions.filter((t) => t.account_id === a.id && !t.deleted);
      const cleared = sum(own.filter((t) => t.cleared !== 'uncleared').map((t) => t.amount));
      const uncleared = sum(own.filter((t) => t.cleared === 'uncleared').map((t) => t.amount));
      expect([a.name, a.cleared_balance, a.uncleared_balance, a.balance]).toEqual([a.name, cleared, uncleared, cleared + uncleared]);
    }
  });

  it('gives each month activity per category that is the sum of its transactions and split lines', async () => {
    const onBudget = new Set(accounts.filter((a) => a.on_budget).map((a) => a.id));
    for (const month of MONTHS) {
      const next = MONTHS[MONTHS.indexOf(month) + 1] ?? '2026-12-01';
      const inMonth = transactions.filter((t) => !t.deleted && onBudget.has(t.account_id) && t.date >= month && t.date < next);
      const lines = inMonth.flatMap((t) => (t.subtransactions.length ? t.subtransactions : [t]));
      const m = (await sb.get(`${b}/months/${month}`)).body.data.month;
      let checked = 0;
      for (const c of m.categories) {
        // Payment categories also take the card's spending moved to them; income goes to Ready to Assign.
        if (c.category_group_name === 'Credit Card Payments' || c.category_group_name === 'Internal Master Category') continue;
        expect([month, c.name, c.activity]).toEqual([month, c.name, sum(lines.filter((l) => l.category_id === c.id).map((l) => l.amount))]);
        checked += 1;
      }
      expect(checked).toBeGreaterThan(20);
      // The month's activity: its spending, not income (Ready to Assign) nor moves between budget accounts.
      const rta = m.categories.find((c: any) => c.name === 'Inflow: Ready to Assign').id;
      const spending = lines.filter((l) => l.category_id !== rta && !onBudget.has(l.transfer_account_id));
      expect([month, m.activity]).toEqual([month, sum(spending.map((l) => l.amount))]);
      expect(m.budgeted).toBe(sum(m.categories.map((c: any) => c.budgeted)));
    }
  });

  it('carries each category over: available = last month available (if positive) + budgeted + activity', async () => {
    const months = await Promise.all(MONTHS.map(async (m) => (await sb.get(`${b}/months/${m}`)).body.data.month));
    let checked = 0;
    for (let i = 1; i < months.length; i++) {
      const before = new Map(months[i - 1].categories.map((c: any) => [c.id, c]));
      for (const c of months[i].categories) {
        const prev: any = before.get(c.id);
        // Card payment categories and Ready to Assign follow other rules (arithmetic-credit.test.ts).
        if (!prev || c.category_group_name === 'Credit Card Payments' || c.category_group_name === 'Internal Master Category') continue;
        // A negative balance from cash spending is not carried (YNAB resets it); card overspending
        // is carried as debt on the card, not in the category, so both start the month at zero.
        const carried = Math.max(prev.balance, 0);
        expect([months[i].month, c.name, c.balance]).toEqual([months[i].month, c.name, carried + c.budgeted + c.activity]);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
