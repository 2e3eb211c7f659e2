/**
 * Budget arithmetic after writes, over real HTTP, in exact milliunits: account balances from
 * transactions; category activity (split lines included) and available; assigning money
 * (budgeted, available, Ready to Assign, money movements); carry-over of positive balances;
 * cash overspending resetting and reducing next month's Ready to Assign; month income and
 * activity; credit card spending and payments moving money through the payment category (the
 * credit rules in full are in arithmetic-credit.test.ts, future months in arithmetic-months).
 *
 * The sandbox runs on a clock anchored mid-month so the months are the same every day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MoneyMovement } from '../../src/api/schemas/entities.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { exactShape } from '../helpers/shape.js';
import { pinnedDemo, TODAY, type PinnedDemo } from './pinned-demo.js';

const PREV = '2026-10-01';
const CUR = '2026-11-01';
const NEXT = '2026-12-01';
const AFTER = '2027-01-01';

let sb: TestSandbox;
let b: string;
let acc: PinnedDemo['accounts'];
let cat: PinnedDemo['cat'];

beforeAll(async () => {
  ({ sb, b, accounts: acc, cat } = await pinnedDemo());
});

afterAll(() => sb.close());

async function account(name: string) {
  const res = await sb.get(`${b}/accounts/${acc[name].id}`);
  expect(res.status).toBe(200);
  const a = res.body.data.account;
  expect(a.balance).toBe(a.cleared_balance + a.uncleared_balance);
  return a;
}

async function category(name: string, month = CUR) {
  const res = await sb.get(`${b}/months/${month}/categories/${cat[name].id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.category;
}

async function month(m: string) {
  const res = await sb.get(`${b}/months/${m}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.month;
}

async function create(t: Record<string, unknown>): Promise<any> {
  const res = await sb.call('POST', `${b}/transactions`, { transaction: { account_id: acc['Everyday Checking'].id, date: TODAY, approved: true, ...t } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.transaction;
}

async function assign(name: string, m: string, budgeted: number) {
  const res = await sb.call('PATCH', `${b}/months/${m}/categories/${cat[name].id}`, { category: { budgeted } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('account balances', () => {
  it('follow from uncleared and cleared transactions, updates and deletes', async () => {
    const before = await account('Everyday Checking');
    const u = await create({ amount: -12_340, cleared: 'uncleared' });
    let a = await account('Everyday Checking');
    expect([a.balance - before.balance, a.cleared_balance - before.cleared_balance, a.uncleared_balance - before.uncleared_balance]).toEqual([
      -12_340, 0, -12_340,
    ]);
    await create({ amount: 5_670, cleared: 'cleared' });
    await create({ amount: -1_000, cleared: 'reconciled' });
    a = await account('Everyday Checking');
    expect([a.balance - before.balance, a.cleared_balance - before.cleared_balance, a.uncleared_balance - before.uncleared_balance]).toEqual([
      -7_670, 4_670, -12_340,
    ]);
    expect(a.balance_formatted).toMatch(/^-?\$[\d,]+\.\d\d$/);
    expect(a.balance_currency * 1000).toBeCloseTo(a.balance, 6);

    await sb.call('PUT', `${b}/transactions/${u.id}`, { transaction: { cleared: 'cleared', amount: -12_000 } });
    a = await account('Everyday Checking');
    expect([a.balance - before.balance, a.cleared_balance - before.cleared_balance, a.uncleared_balance - before.uncleared_balance]).toEqual([
      -7_330, -7_330, 0,
    ]);
    await sb.call('DELETE', `${b}/transactions/${u.id}`);
    a = await account('Everyday Checking');
    expect([a.balance - before.balance, a.cleared_balance - before.cleared_balance, a.uncleared_balance - before.uncleared_balance]).toEqual([4_670, 4_670, 0]);
  });

  it('move on both accounts of a transfer', async () => {
    const c0 = await account('Everyday Checking');
    const s0 = await account('Rainy Day Savings');
    await create({ amount: -250_000, payee_id: acc['Rainy Day Savings'].transfer_payee_id, cleared: 'cleared' });
    expect((await account('Everyday Checking')).balance - c0.balance).toBe(-250_000);
    const s1 = await account('Rainy Day Savings');
    expect(s1.balance - s0.balance).toBe(250_000);
    // The other side is entered uncleared.
    expect(s1.uncleared_balance - s0.uncleared_balance).toBe(250_000);
  });
});

describe('new accounts', () => {
  it("start with their balance, cleared; on budget cash is an inflow to Ready to Assign, a card's debt is not; a card gets a payment category", async () => {
    const m0 = await month(CUR);
    const post = async (account: Record<string, unknown>) => {
      const res = await sb.call('POST', `${b}/accounts`, { account });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.account;
    };
    const savings = await post({ name: 'Test Savings', type: 'savings', balance: 1_000_000 });
    expect(savings).toMatchObject({ on_budget: true, balance: 1_000_000, cleared_balance: 1_000_000, uncleared_balance: 0, balance_formatted: '$1,000.00' });
    const asset = await post({ name: 'Test Boat', type: 'otherAsset', balance: 7_500_000 });
    expect(asset).toMatchObject({ on_budget: false, balance: 7_500_000 });
    const card = await post({ name: 'Test Card', type: 'creditCard', balance: -250_000 });
    expect(card).toMatchObject({ on_budget: true, balance: -250_000 });
    const m1 = await month(CUR);
    // Cash starting balances are inflows to Ready to Assign; a card's opening debt is only debt.
    expect([m1.income - m0.income, m1.to_be_budgeted - m0.to_be_budgeted, m1.activity - m0.activity]).toEqual([1_000_000, 1_000_000, 0]);
    const groups = (await sb.get(`${b}/categories`)).body.data.category_groups;
    const payments = groups.find((g: any) => g.name === 'Credit Card Payments').categories;
    expect(payments.find((c: any) => c.name === 'Test Card')).toMatchObject({
      budgeted: 0,
      activity: 0,
      balance: 0,
      goal_type: 'MF',
      goal_under_funded: 250_000,
    });
    const starting = (await sb.get(`${b}/accounts/${card.id}/transactions`)).body.data.transactions;
    expect(starting.map((t: any) => [t.amount, t.payee_name, t.category_name, t.cleared])).toEqual([
      [-250_000, 'Starting Balance', 'Inflow: Ready to Assign', 'cleared'],
    ]);
  });
});

describe('category figures', () => {
  it('activity changes by exactly a new transaction, split lines included; available = carried in + assigned + activity', async () => {
    const g0 = await category('Groceries');
    const h0 = await category('Household Supplies');
    await create({ amount: -23_450, category_id: cat['Groceries'].id });
    await create({
      amount: -30_000,
      subtransactions: [
        { amount: -18_000, category_id: cat['Groceries'].id },
        { amount: -12_000, category_id: cat['Household Supplies'].id },
      ],
    });
    const g1 = await category('Groceries');
    const h1 = await category('Household Supplies');
    expect([g1.activity - g0.activity, g1.balance - g0.balance, g1.budgeted - g0.budgeted]).toEqual([-41_450, -41_450, 0]);
    expect([h1.activity - h0.activity, h1.balance - h0.balance]).toEqual([-12_000, -12_000]);
    expect(g1.activity_formatted).toMatch(/^-\$/);
    for (const name of ['Groceries', 'Household Supplies', 'Dining Out', 'Rent', 'Emergency Fund']) {
      const prev = await category(name, PREV);
      const cur = await category(name);
      expect(cur.balance, name).toBe(Math.max(0, prev.balance) + cur.budgeted + cur.activity);
    }
    // /categories carries the current month's figures.
    const listed = (await sb.get(`${b}/categories/${cat['Groceries'].id}`)).body.data.category;
    expect([listed.budgeted, listed.activity, listed.balance]).toEqual([g1.budgeted, g1.activity, g1.balance]);
  });

  it('assigning changes budgeted, available and Ready to Assign by exactly the difference, and records a money movement', async () => {
    const c0 = await category('Fun Money');
    const m0 = await month(CUR);
    const res = await assign('Fun Money', 'current', c0.budgeted + 25_000);
    expect(res.category).toMatchObject({ id: cat['Fun Money'].id, budgeted: c0.budgeted + 25_000, balance: c0.balance + 25_000, activity: c0.activity });
    expect(typeof res.server_knowledge).toBe('number');
    const m1 = await month(CUR);
    expect([m1.budgeted - m0.budgeted, m1.to_be_budgeted - m0.to_be_budgeted, m1.activity - m0.activity, m1.income - m0.income]).toEqual([
      25_000, -25_000, 0, 0,
    ]);
    const rta = m1.categories.find((c: any) => c.name === 'Inflow: Ready to Assign');
    expect(rta.balance).toBe(m1.to_be_budgeted);

    const moves = (await sb.get(`${b}/money_movements`)).body.data.money_movements;
    const move = moves.at(-1);
    expect(exactShape(MoneyMovement, move)).toEqual([]);
    expect(move).toMatchObject({ month: CUR, from_category_id: null, to_category_id: cat['Fun Money'].id, amount: 25_000, amount_formatted: '$25.00' });
    const groups = (await sb.get(`${b}/months/${CUR}/money_movement_groups`)).body.data.money_movement_groups;
    expect(groups.map((g: any) => g.id)).toContain(move.money_movement_group_id);
    const byMonth = (await sb.get(`${b}/months/${CUR}/money_movements`)).body.data.money_movements;
    expect(byMonth.at(-1)).toEqual(move);

    // Taking money back moves it from the category to Ready to Assign.
    await assign('Fun Money', CUR, c0.budgeted + 10_000);
    expect((await month(CUR)).to_be_budgeted - m0.to_be_budgeted).toBe(-10_000);
    const back = (await sb.get(`${b}/money_movements`)).body.data.money_movements.at(-1);
    expect(back).toMatchObject({ from_category_id: cat['Fun Money'].id, to_category_id: null, amount: 15_000 });
    // Assigning the same amount again is not a movement.
    const count = (await sb.get(`${b}/money_movements`)).body.data.money_movements.length;
    await assign('Fun Money', CUR, c0.budgeted + 10_000);
    expect((await sb.get(`${b}/money_movements`)).body.data.money_movements).toHaveLength(count);
  });
});

describe('months', () => {
  it('carry a positive balance into the next month', async () => {
    const nov = await category('Clothing');
    await assign('Clothing', NEXT, 45_000);
    await assign('Hobbies', AFTER, 5_000); // makes January exist
    const dec = await category('Clothing', NEXT);
    expect([dec.budgeted, dec.activity, dec.balance]).toEqual([45_000, 0, Math.max(0, nov.balance) + 45_000]);
    const jan = await category('Clothing', AFTER);
    expect([jan.budgeted, jan.activity, jan.balance]).toEqual([0, 0, dec.balance]);
    const decMonth = await month(NEXT);
    const janMonth = await month(AFTER);
    // December's Ready to Assign already leaves out what January holds ("assigned in future"),
    // and nothing is overspent in December: January's is the same.
    expect(janMonth.to_be_budgeted).toBe(decMonth.to_be_budgeted);
    expect(janMonth.budgeted).toBe(5_000);
  });

  it('carry a back-dated transaction forward into later months', async () => {
    const oct0 = await category('Emergency Fund', PREV);
    const nov0 = await category('Emergency Fund');
    const octMonth0 = await month(PREV);
    const novMonth0 = await month(CUR);
    expect(oct0.balance).toBeGreaterThan(1_000_000);
    await create({ date: '2026-10-20', amount: -123_450, category_id: cat['Emergency Fund'].id });
    const oct1 = await category('Emergency Fund', PREV);
    const nov1 = await category('Emergency Fund');
    expect([oct1.activity - oct0.activity, oct1.balance - oct0.balance]).toEqual([-123_450, -123_450]);
    expect([nov1.activity - nov0.activity, nov1.balance - nov0.balance]).toEqual([0, -123_450]);
    const octMonth1 = await month(PREV);
    const novMonth1 = await month(CUR);
    expect([octMonth1.activity - octMonth0.activity, octMonth1.to_be_budgeted - octMonth0.to_be_budgeted]).toEqual([-123_450, 0]);
    expect([novMonth1.activity - novMonth0.activity, novMonth1.to_be_budgeted - novMonth0.to_be_budgeted]).toEqual([0, 0]);
  });

  it("reset cash overspending to zero and take it from the next month's Ready to Assign", async () => {
    await assign('Hobbies', NEXT, 1_000); // makes December exist
    const nov0 = await category('Stuff I Forgot to Budget For');
    expect(nov0.goal_type).toBeNull();
    const nextBefore = await month(NEXT);
    const curBefore = await month(CUR);
    const overspendBy = 77_000;
    // Bring the category from whatever it had to exactly -77.00 with a checking (cash) purchase.
    const amount = -(nov0.balance + overspendBy);
    await create({ amount, category_id: cat['Stuff I Forgot to Budget For'].id });
    const nov1 = await category('Stuff I Forgot to Budget For');
    expect(nov1.balance).toBe(-overspendBy);
    const prevOverspent = Math.max(0, -nov0.balance);
    const nextAfter = await month(NEXT);
    const curAfter = await month(CUR);
    expect(nextAfter.to_be_budgeted - nextBefore.to_be_budgeted).toBe(-(overspendBy - prevOverspent));
    expect(curAfter.to_be_budgeted).toBe(curBefore.to_be_budgeted);
    expect(curAfter.activity - curBefore.activity).toBe(amount);
    const dec = await category('Stuff I Forgot to Budget For', NEXT);
    expect([dec.budgeted, dec.activity, dec.balance]).toEqual([0, 0, 0]);
  });

  it('count inflows to Ready to Assign as income, not activity; transfers between budget accounts change neither', async () => {
    await assign('Hobbies', NEXT, 2_000); // makes December exist
    const m0 = await month(CUR);
    const n0 = await month(NEXT);
    await create({ amount: 500_000, category_id: cat['Inflow: Ready to Assign'].id, payee_name: 'Bonus Inc' });
    const m1 = await month(CUR);
    expect([m1.income - m0.income, m1.activity - m0.activity, m1.to_be_budgeted - m0.to_be_budgeted, m1.budgeted - m0.budgeted]).toEqual([
      500_000, 0, 500_000, 0,
    ]);
    // Ready to Assign carries forward; next month's income is its own.
    const n1 = await month(NEXT);
    expect([n1.income - n0.income, n1.to_be_budgeted - n0.to_be_budgeted]).toEqual([0, 500_000]);

    await create({ amount: -75_000, payee_id: acc['Rainy Day Savings'].transfer_payee_id });
    await create({ account_id: acc['Wallet'].id, amount: 20_000, payee_id: acc['Everyday Checking'].transfer_payee_id });
    const m2 = await month(CUR);
    expect([m2.income, m2.activity, m2.to_be_budgeted, m2.budgeted]).toEqual([m1.income, m1.activity, m1.to_be_budgeted, m1.budgeted]);
    expect((await month(NEXT)).to_be_budgeted).toBe(n1.to_be_budgeted);
  });

  it('count a transfer to a tracking account as activity in its category', async () => {
    const m0 = await month(CUR);
    const c0 = await category('Cabin Mortgage');
    await create({ amount: -100_000, payee_id: acc['Lake Cabin Mortgage'].transfer_payee_id, category_id: cat['Cabin Mortgage'].id });
    const c1 = await category('Cabin Mortgage');
    expect(c1.activity - c0.activity).toBe(-100_000);
    expect((await month(CUR)).activity - m0.activity).toBe(-100_000);
  });
});

describe('the whole history', () => {
  it('chains every month: available carries over, month totals are the sums of their categories', async () => {
    for (const budget of (await sb.get('/budgets')).body.data.budgets) {
      const path = `/budgets/${budget.id}`;
      const groups = (await sb.get(`${path}/categories`)).body.data.category_groups;
      const payments = new Set(groups.filter((g: any) => g.name === 'Credit Card Payments').flatMap((g: any) => g.categories.map((c: any) => c.id)));
      const hasCards = payments.size > 0;
      const months = (await sb.get(`${path}/months`)).body.data.months;
      expect(months.length).toBeGreaterThan(3);
      let prev: any = null;
      const current = (await sb.get(`${path}/months/current`)).body.data.month.month;
      for (const summary of months) {
        const m = (await sb.get(`${path}/months/${summary.month}`)).body.data.month;
        const where = `${budget.name} ${m.month}`;
        const rta = m.categories.find((c: any) => c.name === 'Inflow: Ready to Assign');
        const others = m.categories.filter((c: any) => c !== rta);
        expect(rta.balance, where).toBe(m.to_be_budgeted);
        expect(rta.activity, where).toBe(m.income);
        expect(
          others.reduce((s: number, c: any) => s + c.budgeted, 0),
          where,
        ).toBe(m.budgeted);
        expect(
          others.filter((c: any) => !payments.has(c.id)).reduce((s: number, c: any) => s + c.activity, 0),
          where,
        ).toBe(m.activity);
        if (prev) {
          const before = new Map(prev.categories.map((c: any) => [c.id, c.balance]));
          for (const c of others) {
            const carried = (before.get(c.id) as number | undefined) ?? 0;
            // Only positive balances roll over, in payment categories too (below zero they were overspent).
            expect(c.balance, `${where} ${c.name}`).toBe(Math.max(0, carried) + c.budgeted + c.activity);
          }
          if (!hasCards && m.month < current) {
            // Without credit cards all overspending is cash overspending: it comes off this month.
            const overspent = prev.categories
              .filter((c: any) => c.name !== 'Inflow: Ready to Assign' && c.balance < 0)
              .reduce((s: number, c: any) => s - c.balance, 0);
            expect(m.to_be_budgeted, where).toBe(prev.to_be_budgeted + m.income - m.budgeted - overspent);
          }
        }
        prev = m;
      }
    }
  });
});

describe('credit cards', () => {
  it('card spending moves the amount into the payment category; a payment moves it out', async () => {
    const visa = 'Visa Rewards';
    const funded = await category('Dining Out');
    await assign('Dining Out', CUR, funded.budgeted + Math.max(0, -funded.balance) + 100_000); // funded spending, whatever ran before
    const fun = await category('Fun Money');
    await assign('Fun Money', CUR, fun.budgeted + Math.max(0, -fun.balance) + 10_000);
    const d0 = await category('Dining Out');
    const p0 = await category(visa); // the payment category carries the card's name
    expect(p0.category_group_name).toBe('Credit Card Payments');
    const a0 = await account(visa);
    expect(d0.balance).toBeGreaterThanOrEqual(100_000);
    await create({ account_id: acc[visa].id, amount: -30_000, category_id: cat['Dining Out'].id });
    const p1 = await category(visa);
    const d1 = await category('Dining Out');
    expect([d1.activity - d0.activity, d1.balance - d0.balance]).toEqual([-30_000, -30_000]);
    expect([p1.activity - p0.activity, p1.balance - p0.balance]).toEqual([30_000, 30_000]);
    expect((await account(visa)).balance - a0.balance).toBe(-30_000);

    // A split on the card moves each categorized line's amount.
    await create({
      account_id: acc[visa].id,
      amount: -9_000,
      subtransactions: [
        { amount: -6_000, category_id: cat['Dining Out'].id },
        { amount: -3_000, category_id: cat['Fun Money'].id },
      ],
    });
    const p2 = await category(visa);
    expect(p2.activity - p1.activity).toBe(9_000);

    // Paying the card from checking: a transfer, not spending.
    const m0 = await month(CUR);
    const c0 = await account('Everyday Checking');
    await create({ amount: -20_000, payee_id: acc[visa].transfer_payee_id });
    const p3 = await category(visa);
    expect([p3.activity - p2.activity, p3.balance - p2.balance]).toEqual([-20_000, -20_000]);
    expect((await account(visa)).balance - a0.balance).toBe(-30_000 - 9_000 + 20_000);
    expect((await account('Everyday Checking')).balance - c0.balance).toBe(-20_000);
    const m1 = await month(CUR);
    expect([m1.activity, m1.to_be_budgeted]).toEqual([m0.activity, m0.to_be_budgeted]);
  });

  it('a refund on the card moves money back out of the payment category', async () => {
    const p0 = await category('Visa Rewards');
    await create({ account_id: acc['Visa Rewards'].id, amount: 12_500, category_id: cat['Clothing'].id });
    expect((await category('Visa Rewards')).activity - p0.activity).toBe(-12_500);
  });
});

describe('conservation', () => {
  /** Available in every category except card payments, plus Ready to Assign: the budget's cash. */
  async function budgetCash() {
    const m = await month(CUR);
    const groups = (await sb.get(`${b}/categories`)).body.data.category_groups;
    const payments = new Set(groups.filter((g: any) => g.name === 'Credit Card Payments').flatMap((g: any) => g.categories.map((c: any) => c.id)));
    const available = m.categories
      .filter((c: any) => !payments.has(c.id) && c.name !== 'Inflow: Ready to Assign')
      .reduce((s: number, c: any) => s + c.balance, 0);
    const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts.filter((a: any) => a.on_budget);
    return { budget: available + m.to_be_budgeted, accounts: accounts.reduce((s: number, a: any) => s + a.balance, 0) };
  }

  it('every kind of write moves the budget and the budget accounts by the same amount', async () => {
    const before = await budgetCash();
    const writes: Record<string, unknown>[] = [
      { amount: -11_110, category_id: cat['Groceries'].id },
      { account_id: acc['Visa Rewards'].id, amount: -22_220, category_id: cat['Education'].id },
      { account_id: acc['Visa Rewards'].id, amount: 3_330, category_id: cat['Clothing'].id },
      { amount: -44_440, payee_id: acc['Visa Rewards'].transfer_payee_id },
      { amount: 55_550, category_id: cat['Inflow: Ready to Assign'].id },
      { amount: -66_660, payee_id: acc['Lake Cabin Mortgage'].transfer_payee_id, category_id: cat['Cabin Mortgage'].id },
      { amount: -7_770 },
      { account_id: acc['Wallet'].id, amount: -8_880, payee_id: acc['Home Equity Line'].transfer_payee_id },
      {
        amount: -9_990,
        subtransactions: [
          { amount: -4_440, category_id: cat['Fuel'].id },
          { amount: -5_550, payee_id: acc['Rainy Day Savings'].transfer_payee_id },
        ],
      },
    ];
    let expected = 0;
    for (const w of writes) {
      await create(w);
      const external = w.payee_id === acc['Visa Rewards'].transfer_payee_id || w.payee_id === acc['Home Equity Line'].transfer_payee_id;
      // Money that leaves or enters the budget accounts (not a transfer between them).
      if (!external) expected += w.subtransactions ? -4_440 : (w.amount as number);
    }
    const after = await budgetCash();
    expect(after.accounts - before.accounts).toBe(expected);
    expect(after.budget - before.budget).toBe(expected);
  });
});
