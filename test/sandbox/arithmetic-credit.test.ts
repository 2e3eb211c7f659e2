/**
 * YNAB's credit card rules, over real HTTP, in exact milliunits, each checked through the month,
 * category and account figures the API returns over a sequence of writes:
 *  - funded card spending moves only the funded part to the payment category; a category
 *    overspent with cash and credit counts the cash part first;
 *  - money assigned later in the month to cover credit overspending moves to the payment category;
 *  - credit overspending is not taken from Ready to Assign: it stays on the card as debt and the
 *    category starts the next month at zero;
 *  - a payment lowers the card balance and the payment category; paying more than the payment
 *    category holds is cash overspending;
 *  - an opening debt does not touch Ready to Assign and shows as underfunded, with the target
 *    YNAB gives it;
 *  - a card with a positive balance is cash until the balance turns negative;
 *  - draws and cash advances, balance transfers, lines of credit and loans, each by its kind;
 *  - and YNAB's audit: cash in budget accounts = Ready to Assign + money assigned ahead +
 *    everything available + this month's credit overspending.
 *
 * Each scenario uses its own new categories and card so that its figures start from zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSandbox } from '../helpers/sandbox.js';
import { pinnedDemo, TODAY, uniqueNames, type PinnedDemo } from './pinned-demo.js';

const CUR = '2026-11-01';
const NEXT = '2026-12-01';

let sb: TestSandbox;
let b: string;
let demo: PinnedDemo;
let group: string;
const unique = uniqueNames(' ');

beforeAll(async () => {
  demo = await pinnedDemo();
  ({ sb, b } = demo);
  const res = await sb.call('POST', `${b}/category_groups`, { category_group: { name: 'Credit Rules' } });
  group = res.body.data.category_group.id;
  // December exists from the start, so next month's figures can be read throughout.
  await assign(demo.cat['Hobbies'].id, NEXT, 1_000);
});

afterAll(() => sb.close());

async function ok(res: { status: number; body: any }, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body.data;
}

async function newCategory(name = unique('Rule Category')): Promise<string> {
  return (await ok(await sb.call('POST', `${b}/categories`, { category: { category_group_id: group, name } }), 201)).category.id;
}

async function newAccount(type: string, balance: number, name = unique(`Rule ${type}`)) {
  const account = (await ok(await sb.call('POST', `${b}/accounts`, { account: { name, type, balance } }), 201)).account;
  const groups = (await ok(await sb.get(`${b}/categories`))).category_groups;
  const payment = groups.flatMap((g: any) => g.categories).find((c: any) => c.category_group_name === 'Credit Card Payments' && c.name === name);
  return { account, payment: payment?.id as string | undefined };
}

async function assign(categoryId: string, month: string, budgeted: number) {
  return ok(await sb.call('PATCH', `${b}/months/${month}/categories/${categoryId}`, { category: { budgeted } }));
}

async function category(id: string, month = CUR) {
  return (await ok(await sb.get(`${b}/months/${month}/categories/${id}`))).category;
}

async function month(m = CUR) {
  return (await ok(await sb.get(`${b}/months/${m}`))).month;
}

async function balance(accountId: string): Promise<number> {
  return (await ok(await sb.get(`${b}/accounts/${accountId}`))).account.balance;
}

/** One transaction dated today. */
async function txn(accountId: string, amount: number, more: Record<string, unknown> = {}) {
  return (await ok(await sb.call('POST', `${b}/transactions`, { transaction: { account_id: accountId, date: TODAY, amount, approved: true, ...more } }), 201))
    .transaction;
}

const checking = () => demo.acc.checking.id;
const figures = (c: any) => [c.budgeted, c.activity, c.balance];

describe('card spending', () => {
  it('moves the funded part only; assigning later moves the rest; credit overspending is debt, not Ready to Assign', async () => {
    const card = await newAccount('creditCard', 0);
    const x = await newCategory();
    const m0 = await month();
    const n0 = await month(NEXT);

    await assign(x, CUR, 100_000);
    await txn(card.account.id, -30_000, { category_id: x });
    expect(figures(await category(x))).toEqual([100_000, -30_000, 70_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 30_000, 30_000]);
    expect(await balance(card.account.id)).toBe(-30_000);

    // 100.00 more on the card with 70.00 left: 70.00 is funded, 30.00 is credit overspending.
    await txn(card.account.id, -100_000, { category_id: x });
    expect(figures(await category(x))).toEqual([100_000, -130_000, -30_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 100_000, 100_000]);
    expect(await balance(card.account.id)).toBe(-130_000);
    const m1 = await month();
    expect([m1.budgeted - m0.budgeted, m1.activity - m0.activity, m1.to_be_budgeted - m0.to_be_budgeted]).toEqual([100_000, -130_000, -100_000]);
    // Not taken from next month's Ready to Assign; the category starts December at zero.
    expect((await month(NEXT)).to_be_budgeted - n0.to_be_budgeted).toBe(-100_000);
    expect(figures(await category(x, NEXT))).toEqual([0, 0, 0]);
    // December's payment category holds what was funded; the card owes 30.00 more than that.
    expect((await category(card.payment!, NEXT)).balance).toBe(100_000);

    // Covering it later in the month moves the money to the payment category then.
    await assign(x, CUR, 130_000);
    expect(figures(await category(x))).toEqual([130_000, -130_000, 0]);
    expect(figures(await category(card.payment!))).toEqual([0, 130_000, 130_000]);
    expect((await category(card.payment!, NEXT)).balance).toBe(130_000);
    expect((await month(NEXT)).to_be_budgeted - n0.to_be_budgeted).toBe(-130_000);
  });

  it('counts cash overspending first when a category is overspent with cash and credit', async () => {
    const card = await newAccount('creditCard', 0);
    const y = await newCategory();
    const n0 = await month(NEXT);
    await assign(y, CUR, 100_000);
    // 80.00 by card, then 80.00 from checking: 60.00 overspent, all of it cash (red).
    await txn(card.account.id, -80_000, { category_id: y });
    await txn(checking(), -80_000, { category_id: y });
    expect(figures(await category(y))).toEqual([100_000, -160_000, -60_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 80_000, 80_000]);
    // Cash overspending comes off December's Ready to Assign (besides the 100.00 assigned).
    expect((await month(NEXT)).to_be_budgeted - n0.to_be_budgeted).toBe(-160_000);

    // 100.00 more by card: 160.00 overspent, 80.00 of it cash (all the cash spent), 80.00 credit.
    await txn(card.account.id, -100_000, { category_id: y });
    expect(figures(await category(y))).toEqual([100_000, -260_000, -160_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 100_000, 100_000]);
    expect((await month(NEXT)).to_be_budgeted - n0.to_be_budgeted).toBe(-180_000);
    expect(figures(await category(y, NEXT))).toEqual([0, 0, 0]);
  });

  it('spreads a credit overspending over two cards, the latest spending unfunded first', async () => {
    const first = await newAccount('creditCard', 0);
    const second = await newAccount('creditCard', 0);
    const z = await newCategory();
    await assign(z, CUR, 50_000);
    await txn(first.account.id, -40_000, { category_id: z });
    await txn(second.account.id, -30_000, { category_id: z });
    expect((await category(z)).balance).toBe(-20_000);
    expect([(await category(first.payment!)).balance, (await category(second.payment!)).balance]).toEqual([40_000, 10_000]);
  });

  it('moves a refund on the card back out of the payment category', async () => {
    const card = await newAccount('creditCard', 0);
    const x = await newCategory();
    await assign(x, CUR, 50_000);
    await txn(card.account.id, -50_000, { category_id: x });
    await txn(card.account.id, 12_500, { category_id: x });
    expect(figures(await category(x))).toEqual([50_000, -37_500, 12_500]);
    expect(figures(await category(card.payment!))).toEqual([0, 37_500, 37_500]);
  });
});

describe('payments', () => {
  it('lower the card balance and the payment category; paying more than it holds is cash overspending', async () => {
    const card = await newAccount('creditCard', 0);
    const x = await newCategory();
    await assign(x, CUR, 60_000);
    await txn(card.account.id, -100_000, { category_id: x }); // 60.00 funded, 40.00 debt
    const m0 = await month();
    const n0 = await month(NEXT);
    const c0 = await balance(checking());

    await txn(checking(), -50_000, { payee_id: card.account.transfer_payee_id });
    expect(await balance(card.account.id)).toBe(-50_000);
    expect(await balance(checking())).toBe(c0 - 50_000);
    expect(figures(await category(card.payment!))).toEqual([0, 10_000, 10_000]);
    const m1 = await month();
    expect([m1.activity, m1.to_be_budgeted, m1.income]).toEqual([m0.activity, m0.to_be_budgeted, m0.income]);
    expect((await month(NEXT)).to_be_budgeted).toBe(n0.to_be_budgeted);

    // Paying off the rest: 40.00 more than the payment category held.
    await txn(checking(), -50_000, { payee_id: card.account.transfer_payee_id });
    expect(await balance(card.account.id)).toBe(0);
    expect(figures(await category(card.payment!))).toEqual([0, -40_000, -40_000]);
    expect((await month()).to_be_budgeted).toBe(m0.to_be_budgeted);
    expect((await month(NEXT)).to_be_budgeted - n0.to_be_budgeted).toBe(-40_000);
    expect(figures(await category(card.payment!, NEXT))).toEqual([0, 0, 0]);
  });
});

describe('opening debt', () => {
  it('does not touch Ready to Assign; the payment category is underfunded by it until the debt is budgeted for', async () => {
    const m0 = await month();
    const card = await newAccount('creditCard', -250_000);
    const m1 = await month();
    expect([m1.income, m1.activity, m1.budgeted, m1.to_be_budgeted]).toEqual([m0.income, m0.activity, m0.budgeted, m0.to_be_budgeted]);
    expect(await balance(card.account.id)).toBe(-250_000);
    const p = await category(card.payment!);
    expect(figures(p)).toEqual([0, 0, 0]);
    expect(p).toMatchObject({ goal_type: 'MF', goal_target: 250_000, goal_under_funded: 250_000, goal_creation_month: CUR, goal_percentage_complete: 0 });

    await assign(card.payment!, CUR, 250_000);
    expect(await category(card.payment!)).toMatchObject({ balance: 250_000, goal_under_funded: 0, goal_percentage_complete: 100 });
    expect((await month()).to_be_budgeted - m0.to_be_budgeted).toBe(-250_000);
    await txn(checking(), -250_000, { payee_id: card.account.transfer_payee_id });
    expect(await balance(card.account.id)).toBe(0);
    expect(figures(await category(card.payment!))).toEqual([250_000, -250_000, 0]);
    expect((await month()).to_be_budgeted - m0.to_be_budgeted).toBe(-250_000);
  });
});

describe('a card with a positive balance', () => {
  it('is cash: spending from it moves nothing until the balance turns negative', async () => {
    const m0 = await month();
    const card = await newAccount('creditCard', 100_000);
    expect(figures(await category(card.payment!))).toEqual([0, 0, 0]);
    expect((await category(card.payment!)).goal_type).toBeNull();
    const m1 = await month();
    expect([m1.income - m0.income, m1.to_be_budgeted - m0.to_be_budgeted]).toEqual([100_000, 100_000]);

    const z = await newCategory();
    await assign(z, CUR, 200_000);
    await txn(card.account.id, -60_000, { category_id: z });
    expect(figures(await category(card.payment!))).toEqual([0, 0, 0]);
    // 70.00 more: 40.00 of it was still cash, 30.00 is new debt (funded, so it moves).
    await txn(card.account.id, -70_000, { category_id: z });
    expect(await balance(card.account.id)).toBe(-30_000);
    expect(figures(await category(z))).toEqual([200_000, -130_000, 70_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 30_000, 30_000]);
    // An overpayment that takes the card back above zero: only the debt it pays off is a payment.
    await txn(checking(), -50_000, { payee_id: card.account.transfer_payee_id });
    expect(await balance(card.account.id)).toBe(20_000);
    expect(figures(await category(card.payment!))).toEqual([0, 0, 0]);
  });

  it('turns a reward or refund to Ready to Assign into income only where it is more than the debt', async () => {
    const card = await newAccount('creditCard', -30_000);
    const m0 = await month();
    await txn(card.account.id, 50_000, { category_id: demo.cat['Inflow: Ready to Assign'].id, payee_name: 'Card Rewards' });
    expect(await balance(card.account.id)).toBe(20_000);
    const m1 = await month();
    expect([m1.income - m0.income, m1.to_be_budgeted - m0.to_be_budgeted]).toEqual([20_000, 20_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 0, 0]);
  });
});

describe('transfers with credit accounts', () => {
  it('a cash advance raises the payment category with the debt; a balance transfer moves neither', async () => {
    const card = await newAccount('creditCard', 0);
    const other = await newAccount('creditCard', 0);
    const m0 = await month();
    const c0 = await balance(checking());
    await txn(card.account.id, -20_000, { payee_id: demo.acc.checking.transfer_payee_id, memo: 'Cash advance' });
    expect([await balance(card.account.id), (await balance(checking())) - c0]).toEqual([-20_000, 20_000]);
    expect(figures(await category(card.payment!))).toEqual([0, 20_000, 20_000]);
    const m1 = await month();
    expect([m1.income, m1.activity, m1.to_be_budgeted]).toEqual([m0.income, m0.activity, m0.to_be_budgeted]);

    await txn(other.account.id, -20_000, { payee_id: card.account.transfer_payee_id, memo: 'Balance transfer' });
    expect([await balance(card.account.id), await balance(other.account.id)]).toEqual([0, -20_000]);
    expect((await category(card.payment!)).balance).toBe(20_000);
    expect((await category(other.payment!)).balance).toBe(0);
  });

  it('a line of credit: a draw raises its payment category, payments lower it with the debt', async () => {
    const loc = demo.accounts['Home Equity Line'];
    const payment = demo.cat['Home Equity Line'].id;
    const p0 = await category(payment);
    const d0 = await balance(loc.id);
    const m0 = await month();
    await txn(loc.id, -300_000, { payee_id: demo.acc.checking.transfer_payee_id, memo: 'Draw' });
    expect([(await balance(loc.id)) - d0, (await category(payment)).balance - p0.balance]).toEqual([-300_000, 300_000]);
    await txn(checking(), -120_000, { payee_id: loc.transfer_payee_id, memo: 'HELOC payment' });
    expect([(await balance(loc.id)) - d0, (await category(payment)).balance - p0.balance]).toEqual([-180_000, 180_000]);
    const m1 = await month();
    expect([m1.activity, m1.to_be_budgeted]).toEqual([m0.activity, m0.to_be_budgeted]);
  });

  it('a loan is a tracking account: its payment is spending in its category, its interest touches no budget figure', async () => {
    const mortgage = demo.acc.mortgage;
    const debt = demo.cat['Cabin Mortgage'].id;
    const c0 = await category(debt);
    const m0 = await month();
    const l0 = await balance(mortgage.id);
    await txn(checking(), -200_000, { payee_id: mortgage.transfer_payee_id, category_id: debt });
    expect([(await category(debt)).activity - c0.activity, (await balance(mortgage.id)) - l0]).toEqual([-200_000, 200_000]);
    await txn(mortgage.id, -55_000, { payee_name: 'Columbia Bank', memo: 'Interest' });
    expect((await balance(mortgage.id)) - l0).toBe(145_000);
    const m1 = await month();
    expect([m1.activity - m0.activity, m1.to_be_budgeted - m0.to_be_budgeted, m1.income - m0.income]).toEqual([-200_000, 0, 0]);

    // An other-liability account made through the API is a tracking account too.
    const m2 = await month();
    const liability = await newAccount('otherLiability', -500_000);
    expect(liability.account.on_budget).toBe(false);
    expect(liability.payment).toBeUndefined();
    expect((await month()).to_be_budgeted).toBe(m2.to_be_budgeted);
  });
});

describe("YNAB's audit", () => {
  /** Cash in budget accounts: every on-budget balance that is not debt. */
  async function cash(): Promise<number> {
    const accounts = (await ok(await sb.get(`${b}/accounts`))).accounts.filter((a: any) => a.on_budget && !a.closed);
    return accounts.reduce((s: number, a: any) => s + (['creditCard', 'lineOfCredit'].includes(a.type) ? Math.max(0, a.balance) : a.balance), 0);
  }

  /** Ready to Assign, money assigned in later months, and everything available this month. */
  async function budget(): Promise<number> {
    const m = await month();
    const later = (await ok(await sb.get(`${b}/months`))).months.filter((x: any) => x.month > CUR).reduce((s: number, x: any) => s + x.budgeted, 0);
    const available = m.categories.filter((c: any) => c.name !== 'Inflow: Ready to Assign').reduce((s: number, c: any) => s + c.balance, 0);
    return m.to_be_budgeted + later + available;
  }

  it("cash = Ready to Assign + assigned ahead + available + this month's credit overspending, through every kind of write", async () => {
    const card = await newAccount('creditCard', 0);
    const x = await newCategory();
    // Money assigned ahead counts in full only when this month's Ready to Assign can give it (past
    // that, the future month goes negative and this month shows 0.00): income first, so it can.
    const short = Math.max(0, -(await month()).to_be_budgeted);
    await txn(checking(), short + 200_000, { category_id: demo.cat['Inflow: Ready to Assign'].id });
    const gap0 = (await cash()) - (await budget());
    // Writes that keep the budget funded leave the gap as it was.
    const w = await newCategory();
    await assign(x, CUR, 80_000);
    await assign(w, CUR, 20_000);
    await assign(x, NEXT, 15_000);
    await txn(card.account.id, -50_000, { category_id: x });
    await txn(checking(), -20_000, { category_id: w });
    await txn(checking(), -30_000, { payee_id: card.account.transfer_payee_id });
    await txn(checking(), 45_000, { category_id: demo.cat['Inflow: Ready to Assign'].id });
    await txn(card.account.id, -10_000, { payee_id: demo.acc.savings.transfer_payee_id });
    expect((await cash()) - (await budget())).toBe(gap0);
    // 25.00 of credit overspending opens the gap by exactly that: cash did not move, X did.
    await txn(card.account.id, -55_000, { category_id: x });
    expect((await category(x)).balance).toBe(-25_000);
    expect((await cash()) - (await budget())).toBe(gap0 + 25_000);
    // Covering it closes the gap again; cash overspending never opens it (the cash is gone too).
    await assign(x, CUR, 105_000);
    expect((await cash()) - (await budget())).toBe(gap0);
    await txn(checking(), -7_000, { category_id: w });
    expect((await cash()) - (await budget())).toBe(gap0);
  });
});
