/**
 * Goal (target) figures and currency formatting, over real HTTP, in exact milliunits:
 *  - every goal type in the demo (TB, TBD, MF, NEED set-aside, NEED refill, DEBT) has its
 *    fields present and consistent; assigning exactly the under-funded amount funds it;
 *  - PATCH /categories/{id} creates, changes and removes a target; goal_frequency rules;
 *  - the EUR budget formats amounts as "1.234,56€".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Category } from '../../src/api/schemas/entities.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { exactShape } from '../helpers/shape.js';
import { pinnedDemo, TODAY, type PinnedDemo } from './pinned-demo.js';

const CUR = '2026-11-01';

let sb: TestSandbox;
let b: string;
let eur: string;
let cat: PinnedDemo['cat'];

const GOAL_FIELDS = [
  'goal_type',
  'goal_needs_whole_amount',
  'goal_day',
  'goal_cadence',
  'goal_cadence_frequency',
  'goal_creation_month',
  'goal_target',
  'goal_target_month',
  'goal_target_date',
  'goal_percentage_complete',
  'goal_months_to_budget',
  'goal_under_funded',
  'goal_overall_funded',
  'goal_overall_left',
  'goal_snoozed_at',
];

beforeAll(async () => {
  let budgets: any[];
  ({ sb, b, budgets, cat } = await pinnedDemo());
  eur = `/budgets/${budgets.find((x: any) => x.name === 'Haushalt Berlin').id}`;
});

afterAll(() => sb.close());

async function category(name: string) {
  const res = await sb.get(`${b}/months/${CUR}/categories/${cat[name].id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.category;
}

async function assign(name: string, budgeted: number) {
  const res = await sb.call('PATCH', `${b}/months/${CUR}/categories/${cat[name].id}`, { category: { budgeted } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.category;
}

async function patchCategory(name: string, category: Record<string, unknown>) {
  return sb.call('PATCH', `${b}/categories/${cat[name].id}`, { category });
}

/** The demo's representative of each goal type. */
const REPRESENTATIVES: [string, string, boolean | null][] = [
  ['Home Maintenance', 'TB', null],
  ['Vacation', 'TBD', null],
  ['Internet', 'MF', null],
  ['Rent', 'NEED', true],
  ['Water & Sewer', 'NEED', false],
  ['Cabin Mortgage', 'DEBT', null],
];

function checkConsistent(c: any) {
  expect(exactShape(Category, c), c.name).toEqual([]);
  for (const f of GOAL_FIELDS) expect(c, f).toHaveProperty(f);
  expect(c.goal_under_funded, c.name).toBeGreaterThanOrEqual(0);
  expect(c.goal_overall_funded).toBeGreaterThanOrEqual(0);
  expect(c.goal_overall_left).toBeGreaterThanOrEqual(0);
  expect(c.goal_percentage_complete).toBeGreaterThanOrEqual(0);
  expect(c.goal_percentage_complete).toBeLessThanOrEqual(100);
  expect(Number.isInteger(c.goal_percentage_complete)).toBe(true);
  expect(c.goal_target_month).toBeNull(); // deprecated, always null
  expect(c.goal_creation_month).toMatch(/^\d{4}-\d{2}-01$/);
  expect(c.goal_needs_whole_amount === null).toBe(c.goal_type !== 'NEED');
  if (c.goal_type === 'TB' || c.goal_type === 'TBD') {
    expect(c.goal_overall_funded + c.goal_overall_left, c.name).toBe(c.goal_target);
    expect(c.goal_overall_funded).toBe(Math.min(Math.max(c.balance, 0), c.goal_target));
  }
  if (c.goal_type === 'TBD') expect(c.goal_target_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  expect(c.goal_target_formatted).toBe(`$${(c.goal_target / 1000).toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
  expect(c.goal_under_funded_currency * 1000).toBeCloseTo(c.goal_under_funded, 6);
}

describe('goal figures', () => {
  it('every goal type in the demo has its fields present and consistent', async () => {
    for (const [name, type, whole] of REPRESENTATIVES) {
      const c = await category(name);
      expect(c.goal_type, name).toBe(type);
      expect(c.goal_needs_whole_amount, name).toBe(whole);
      checkConsistent(c);
    }
    // And every category with a goal, in every month of the budget.
    const months = (await sb.get(`${b}/months`)).body.data.months.map((m: any) => m.month);
    for (const m of months.slice(-4)) {
      for (const c of (await sb.get(`${b}/months/${m}`)).body.data.month.categories) {
        if (c.goal_type === null) {
          for (const f of GOAL_FIELDS) expect(c[f], `${c.name} ${f}`).toBeNull();
        } else checkConsistent(c);
      }
    }
  });

  it('assigning exactly the under-funded amount makes it zero, for every type', async () => {
    for (const [name] of REPRESENTATIVES) {
      let c = await category(name);
      if (c.goal_under_funded === 0) {
        // Fully funded by this month's assignment: take 10.00 back and it is under-funded by that.
        c = await assign(name, c.budgeted - 10_000);
        expect(c.goal_under_funded, name).toBe(10_000);
        expect(c.goal_percentage_complete, name).toBeLessThan(100);
      }
      const under = c.goal_under_funded;
      expect(under, name).toBeGreaterThan(0);
      const funded = await assign(name, c.budgeted + under);
      expect(funded.goal_under_funded, name).toBe(0);
      expect(funded.balance - c.balance, name).toBe(under);
      checkConsistent(funded);
      if (funded.goal_type !== 'TBD') expect(funded.goal_percentage_complete, name).toBe(100);
      expect(await category(name)).toEqual(funded);
    }
  });

  it('a target balance without a date counts the available balance: spending from it is needed again now', async () => {
    let c0 = await category('Emergency Fund');
    expect(c0.goal_type).toBe('TB');
    if (c0.balance < c0.goal_target) c0 = await assign('Emergency Fund', c0.budgeted + c0.goal_target - c0.balance);
    expect([c0.goal_under_funded, c0.goal_overall_left, c0.goal_percentage_complete]).toEqual([0, 0, 100]);
    const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts;
    const checking = accounts.find((a: any) => a.name === 'Everyday Checking');
    const spend = c0.balance - c0.goal_target + 100_000; // leaves it 100.00 short
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: checking.id, date: TODAY, amount: -spend, category_id: cat['Emergency Fund'].id },
    });
    expect(res.status).toBe(201);
    const c1 = await category('Emergency Fund');
    expect([c1.balance, c1.goal_overall_funded, c1.goal_overall_left, c1.goal_under_funded]).toEqual([
      c0.goal_target - 100_000,
      c0.goal_target - 100_000,
      100_000,
      100_000,
    ]);
    expect(c1.goal_percentage_complete).toBe(99);
    const refunded = await assign('Emergency Fund', c1.budgeted + 100_000);
    expect([refunded.goal_under_funded, refunded.goal_overall_left, refunded.goal_percentage_complete]).toEqual([0, 0, 100]);
  });
});

describe('targets through PATCH /categories/{id}', () => {
  it('creates a monthly NEED target, changes it, and removes it with null', async () => {
    const before = await category('Clothing');
    expect(before.goal_type).toBeNull();
    let res = await patchCategory('Clothing', { goal_target: 100_000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const created = res.body.data.category;
    expect(created).toMatchObject({
      goal_type: 'NEED',
      goal_target: 100_000,
      goal_target_formatted: '$100.00',
      goal_needs_whole_amount: true,
      goal_cadence: 1,
      goal_cadence_frequency: 1,
      goal_creation_month: CUR,
      goal_target_date: null,
      goal_under_funded: Math.max(0, 100_000 - before.budgeted),
    });
    expect(typeof res.body.data.server_knowledge).toBe('number');

    res = await patchCategory('Clothing', { goal_target: 120_000, goal_needs_whole_amount: false });
    expect(res.body.data.category).toMatchObject({ goal_type: 'NEED', goal_target: 120_000, goal_needs_whole_amount: false, goal_creation_month: CUR });
    expect((await category('Clothing')).goal_target).toBe(120_000);

    res = await patchCategory('Clothing', { goal_target: null });
    expect(res.status).toBe(200);
    for (const f of GOAL_FIELDS) expect(res.body.data.category[f], f).toBeNull();
    expect((await sb.get(`${b}/categories/${cat['Clothing'].id}`)).body.data.category.goal_type).toBeNull();
  });

  it('sets a cadence with goal_frequency', async () => {
    let res = await patchCategory('Hobbies', { goal_target: 20_000, goal_frequency: 'weekly' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.category).toMatchObject({ goal_type: 'NEED', goal_target: 20_000, goal_cadence: 2 });
    // November 2026 has four Saturdays (the clock's weekday): four weeks of 20.00.
    expect(res.body.data.category.goal_day).toBe(new Date(`${TODAY}T00:00:00Z`).getUTCDay());
    expect(res.body.data.category.goal_overall_funded + res.body.data.category.goal_overall_left).toBe(4 * 20_000);
    res = await patchCategory('Hobbies', { goal_target: 240_000, goal_frequency: 'yearly' });
    expect(res.body.data.category).toMatchObject({ goal_type: 'NEED', goal_target: 240_000, goal_cadence: 13 });
    res = await patchCategory('Hobbies', { goal_target: 30_000, goal_frequency: 'monthly' });
    expect(res.body.data.category).toMatchObject({ goal_target: 30_000, goal_cadence: 1 });
  });

  it('refuses goal_frequency without goal_target, with goal_target_date, or on a card payment category', async () => {
    const bad = async (name: string, body: Record<string, unknown>, detail: RegExp) => {
      const res = await patchCategory(name, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.id).toBe('400');
      expect(res.body.error.detail).toMatch(detail);
    };
    await bad('Education', { goal_frequency: 'monthly' }, /requires category.goal_target/);
    await bad('Education', { goal_target: 10_000, goal_target_date: '2027-05-01', goal_frequency: 'monthly' }, /goal_target_date/);
    await bad('Visa Rewards', { goal_target: 10_000, goal_frequency: 'monthly' }, /Credit Card Payment/);
    await bad('Internet', { goal_needs_whole_amount: true }, /NEED/);
    expect((await category('Education')).goal_type).toBeNull();
  });

  it('gives a card payment category an MF target', async () => {
    const res = await patchCategory('Home Equity Line', { goal_target: 50_000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.category).toMatchObject({ goal_type: 'MF', goal_target: 50_000, goal_needs_whole_amount: null });
  });
});

describe('currency formats', () => {
  it('the EUR budget formats amounts as 1.234,56€', async () => {
    const settings = (await sb.get(`${eur}/settings`)).body.data.settings;
    expect(settings.currency_format).toMatchObject({
      iso_code: 'EUR',
      decimal_separator: ',',
      group_separator: '.',
      symbol_first: false,
      currency_symbol: '€',
    });
    const account = (await sb.get(`${eur}/accounts`)).body.data.accounts.find((a: any) => !a.closed && a.on_budget);
    const res = await sb.call('POST', `${eur}/transactions`, {
      transaction: { account_id: account.id, date: TODAY, amount: -1_234_560, payee_name: 'Möbelhaus' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.transaction).toMatchObject({ amount_formatted: '-1.234,56€', amount_currency: -1234.56 });
    const big = await sb.call('POST', `${eur}/transactions`, {
      transaction: { account_id: account.id, date: TODAY, amount: 1_234_567_890, payee_name: 'Lotto' },
    });
    expect(big.body.data.transaction.amount_formatted).toBe('1.234.567,89€');
    const small = await sb.call('POST', `${eur}/transactions`, { transaction: { account_id: account.id, date: TODAY, amount: -50, payee_name: 'Rundung' } });
    expect(small.body.data.transaction.amount_formatted).toBe('-0,05€');

    const a = (await sb.get(`${eur}/accounts/${account.id}`)).body.data.account;
    expect(a.balance_formatted).toMatch(/^-?\d{1,3}(\.\d{3})*,\d\d€$/);
    const month = (await sb.get(`${eur}/months/current`)).body.data.month;
    expect(month.income_formatted).toMatch(/^-?\d{1,3}(\.\d{3})*,\d\d€$/);
    for (const c of month.categories) expect(c.balance_formatted).toMatch(/^-?\d{1,3}(\.\d{3})*,\d\d€$/);
    // The USD budget in the same sandbox keeps its own format.
    const usd = (await sb.get(`${b}/months/current`)).body.data.month;
    expect(usd.income_formatted).toMatch(/^-?\$\d{1,3}(,\d{3})*\.\d\d$/);
  });
});
