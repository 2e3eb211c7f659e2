/**
 * Transaction writes and scheduled transactions, over real HTTP: the date rules (no future
 * dates, nothing over five years old), bulk PATCH by id or import_id, PUT, payee_name resolving
 * to an existing payee or a new one, and scheduled transactions (future dates up to five years
 * ahead, next dates, update, delete, no Credit Card Payment category, transfers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduledTransactionDetail } from '../../src/api/schemas/entities.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { exactShape } from '../helpers/shape.js';
import { day, pinnedDemo, TODAY, uniqueNames, type PinnedDemo } from './pinned-demo.js';

let sb: TestSandbox;
let b: string;
let acc: PinnedDemo['acc'];
let cat: PinnedDemo['cat'];
let create: PinnedDemo['create'];

beforeAll(async () => {
  ({ sb, b, acc, cat, create } = await pinnedDemo());
});

afterAll(() => sb.close());

const unique = uniqueNames('-');

async function txn(id: string): Promise<any> {
  return (await sb.get(`${b}/transactions/${id}`)).body.data.transaction;
}

function expect400(res: { status: number; body: any }, detail: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toMatchObject({ id: '400', name: 'bad_request' });
  expect(res.body.error.detail).toMatch(detail);
}

describe('dates', () => {
  it('refuses future dates on create (one or a batch) and on update; nothing is written', async () => {
    const payee = unique('Future Shop');
    expect400(
      await sb.call('POST', `${b}/transactions`, { transaction: { account_id: acc.checking.id, date: day(1), amount: -1_000, payee_name: payee } }),
      /future/,
    );
    const batch = await sb.call('POST', `${b}/transactions`, {
      transactions: [
        { account_id: acc.checking.id, date: TODAY, amount: -1_000, payee_name: payee },
        { account_id: acc.checking.id, date: day(30), amount: -1_000, payee_name: payee },
      ],
    });
    expect400(batch, /future.*\(index: 1\)/);
    const payees = (await sb.get(`${b}/payees`)).body.data.payees;
    expect(payees.find((p: any) => p.name === payee)).toBeUndefined();

    const t = await create({ amount: -1_000 });
    expect400(await sb.call('PUT', `${b}/transactions/${t.id}`, { transaction: { date: day(1) } }), /future/);
    expect400(await sb.call('PATCH', `${b}/transactions`, { transactions: [{ id: t.id, date: day(2) }] }), /future.*\(index: 0\)/);
    expect((await txn(t.id)).date).toBe(TODAY);
  });

  it('refuses dates over five years ago and accepts one just inside', async () => {
    expect400(await sb.call('POST', `${b}/transactions`, { transaction: { account_id: acc.checking.id, date: '2021-11-13', amount: -1_000 } }), /5 years/);
    const t = await create({ date: '2021-11-15', amount: -1_000 });
    expect(t.date).toBe('2021-11-15');
    expect400(await sb.call('PUT', `${b}/transactions/${t.id}`, { transaction: { date: '2020-01-01' } }), /5 years/);
    expect((await sb.call('DELETE', `${b}/transactions/${t.id}`)).status).toBe(200);
  });
});

describe('bulk PATCH and PUT', () => {
  it('approves and recategorizes several transactions by id', async () => {
    const payee = unique('Bulk Shop');
    const ts = [];
    for (const amount of [-3_001, -3_002, -3_003]) ts.push(await create({ amount, payee_name: payee, category_id: cat['Groceries'].id, approved: false }));
    const res = await sb.call('PATCH', `${b}/transactions`, {
      transactions: ts.map((t) => ({ id: t.id, approved: true, category_id: cat['Dining Out'].id })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.transaction_ids).toEqual(ts.map((t) => t.id));
    expect(typeof res.body.data.server_knowledge).toBe('number');
    for (const t of ts) {
      expect(await txn(t.id)).toMatchObject({
        approved: true,
        category_id: cat['Dining Out'].id,
        category_name: 'Dining Out',
        amount: t.amount,
        payee_id: t.payee_id,
      });
    }
  });

  it('finds transactions by import_id', async () => {
    const ids = [unique('IMP'), unique('IMP')];
    const ts = [];
    for (const [i, importId] of ids.entries()) ts.push(await create({ amount: -4_000 - i, import_id: importId }));
    const res = await sb.call('PATCH', `${b}/transactions`, {
      transactions: ids.map((importId) => ({ import_id: importId, approved: true, category_id: cat['Fuel'].id, memo: 'bulk' })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.transaction_ids).toEqual(ts.map((t) => t.id));
    for (const [i, t] of ts.entries()) expect(await txn(t.id)).toMatchObject({ import_id: ids[i], approved: true, category_name: 'Fuel', memo: 'bulk' });
  });

  it('refuses id and import_id together, unknown ids (naming the index), and split lines; nothing is written', async () => {
    const t = await create({ amount: -5_000, import_id: unique('IMP'), approved: false });
    expect400(
      await sb.call('PATCH', `${b}/transactions`, { transactions: [{ id: t.id, import_id: t.import_id, approved: true }] }),
      /either id or import_id.*\(index: 0\)/,
    );
    expect400(
      await sb.call('PATCH', `${b}/transactions`, {
        transactions: [
          { id: t.id, approved: true },
          { id: 'no-such-transaction', approved: true },
        ],
      }),
      /\(index: 1\)/,
    );
    expect400(await sb.call('PATCH', `${b}/transactions`, { transactions: [{ import_id: unique('NOPE'), approved: true }] }), /\(index: 0\)/);
    expect((await txn(t.id)).approved).toBe(false);

    const split = await create({
      amount: -7_000,
      subtransactions: [
        { amount: -4_000, category_id: cat['Groceries'].id },
        { amount: -3_000, category_id: cat['Fuel'].id },
      ],
    });
    const lineId = split.subtransactions[0].id;
    expect400(await sb.call('PATCH', `${b}/transactions`, { transactions: [{ id: lineId, approved: true }] }), /transaction does not exist/);
  });

  it('updates one transaction with PUT', async () => {
    const t = await create({ date: day(-2), amount: -6_000, payee_name: unique('Put Shop'), category_id: cat['Groceries'].id, cleared: 'uncleared' });
    const res = await sb.call('PUT', `${b}/transactions/${t.id}`, {
      transaction: {
        amount: -6_500,
        date: day(-1),
        memo: 'receipt checked',
        cleared: 'cleared',
        approved: true,
        flag_color: 'red',
        category_id: cat['Household Supplies'].id,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = {
      id: t.id,
      amount: -6_500,
      amount_formatted: '-$6.50',
      date: day(-1),
      memo: 'receipt checked',
      cleared: 'cleared',
      approved: true,
      flag_color: 'red',
      category_name: 'Household Supplies',
      payee_id: t.payee_id,
    };
    expect(res.body.data.transaction).toMatchObject(expected);
    expect(await txn(t.id)).toMatchObject(expected);
    expect((await sb.call('PUT', `${b}/transactions/no-such-id`, { transaction: { memo: 'x' } })).status).toBe(404);
  });

  it('ignores a Credit Card Payment category: none on create, the category unchanged on update', async () => {
    const payment = cat['Visa Rewards'].id;
    const created = await create({ amount: -2_500, category_id: payment });
    expect(created).toMatchObject({ category_id: null, category_name: 'Uncategorized' });
    const t = await create({ amount: -2_600, category_id: cat['Groceries'].id });
    const put = await sb.call('PUT', `${b}/transactions/${t.id}`, { transaction: { category_id: payment, memo: 'kept' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data.transaction).toMatchObject({ category_id: cat['Groceries'].id, memo: 'kept' });
    const patch = await sb.call('PATCH', `${b}/transactions`, { transactions: [{ id: t.id, category_id: payment, approved: true }] });
    expect(patch.body.data.transactions[0]).toMatchObject({ category_id: cat['Groceries'].id, approved: true });
  });

  it('resolves payee_name to an existing payee (case-insensitive) or creates one', async () => {
    const payees = (await sb.get(`${b}/payees`)).body.data.payees;
    const safeway = payees.find((p: any) => p.name === 'Safeway');
    const t = await create({ amount: -1_500, payee_name: 'SAFEWAY' });
    expect(t).toMatchObject({ payee_id: safeway.id, payee_name: 'Safeway' });

    const name = unique('Brand New Payee');
    const first = await create({ amount: -1_600, payee_name: name });
    const second = await create({ amount: -1_700, payee_name: name.toLowerCase() });
    expect(second.payee_id).toBe(first.payee_id);
    const after = (await sb.get(`${b}/payees`)).body.data.payees;
    expect(after.filter((p: any) => p.name.toLowerCase() === name.toLowerCase()).map((p: any) => [p.id, p.name])).toEqual([[first.payee_id, name]]);
    expect(after).toHaveLength(payees.length + 1);
    // PUT resolves it the same way.
    const moved = await sb.call('PUT', `${b}/transactions/${first.id}`, { transaction: { payee_name: 'safeway' } });
    expect(moved.body.data.transaction).toMatchObject({ payee_id: safeway.id, payee_name: 'Safeway' });
  });
});

describe('scheduled transactions', () => {
  const path = () => `${b}/scheduled_transactions`;
  const post = (s: Record<string, unknown>) => sb.call('POST', path(), { scheduled_transaction: { account_id: acc.checking.id, ...s } });

  it('creates future ones up to five years ahead and refuses today, the past and later', async () => {
    const res = await post({
      date: day(10),
      amount: -25_000,
      payee_name: unique('Plumber'),
      category_id: cat['Home Maintenance'].id,
      memo: 'sink',
      flag_color: 'blue',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(exactShape(ScheduledTransactionDetail, res.body.data.scheduled_transaction)).toEqual([]);
    expect(res.body.data.scheduled_transaction).toMatchObject({
      date_first: day(10),
      date_next: day(10),
      frequency: 'never',
      amount: -25_000,
      amount_formatted: '-$25.00',
      category_name: 'Home Maintenance',
      memo: 'sink',
      flag_color: 'blue',
      account_name: 'Everyday Checking',
      transfer_account_id: null,
      subtransactions: [],
      deleted: false,
    });
    expect((await post({ date: '2031-11-14', amount: -1_000 })).status).toBe(201);
    for (const date of [TODAY, day(-1), '2031-11-15']) expect400(await post({ date, amount: -1_000 }), /future/);
  });

  it('gives recurring schedules a next date on or after today', async () => {
    const res = await post({ date: day(3), amount: -9_000, frequency: 'weekly', payee_name: unique('Cleaner') });
    expect(res.body.data.scheduled_transaction).toMatchObject({ date_first: day(3), date_next: day(3), frequency: 'weekly' });
    const all = (await sb.get(path())).body.data.scheduled_transactions;
    expect(all.length).toBeGreaterThanOrEqual(8);
    for (const s of all) expect(s.date_next >= TODAY, `${s.payee_name} ${s.date_next}`).toBe(true);
    // The demo rent started two years ago on the 1st, monthly: next on the 1st of next month.
    const rent = all.find((s: any) => s.payee_name === 'Oakwood Apartments');
    expect(rent).toMatchObject({ frequency: 'monthly', date_first: '2024-11-01', date_next: '2026-12-01' });
    const payroll = all.find((s: any) => s.payee_name === 'Acme Corp Payroll');
    expect(payroll).toMatchObject({ frequency: 'twiceAMonth', date_next: '2026-11-16' });
  });

  it('updates with PUT and deletes (200, deleted: true)', async () => {
    const s = (await post({ date: day(5), amount: -8_000, payee_name: unique('Window Washer') })).body.data.scheduled_transaction;
    const put = await sb.call('PUT', `${path()}/${s.id}`, {
      scheduled_transaction: {
        account_id: acc.checking.id,
        date: day(20),
        amount: -8_500,
        frequency: 'monthly',
        memo: 'monthly now',
        category_id: cat['Home Maintenance'].id,
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data.scheduled_transaction).toMatchObject({
      id: s.id,
      date_first: day(20),
      date_next: day(20),
      amount: -8_500,
      frequency: 'monthly',
      memo: 'monthly now',
      category_name: 'Home Maintenance',
    });
    expect((await sb.get(`${path()}/${s.id}`)).body.data.scheduled_transaction.amount).toBe(-8_500);
    expect400(await sb.call('PUT', `${path()}/${s.id}`, { scheduled_transaction: { account_id: acc.checking.id, date: TODAY } }), /future/);

    const del = await sb.call('DELETE', `${path()}/${s.id}`);
    expect(del.status).toBe(200);
    expect(del.body.data.scheduled_transaction).toMatchObject({ id: s.id, deleted: true });
    expect(exactShape(ScheduledTransactionDetail, del.body.data.scheduled_transaction)).toEqual([]);
    expect((await sb.get(`${path()}/${s.id}`)).status).toBe(404);
    expect((await sb.get(path())).body.data.scheduled_transactions.find((x: any) => x.id === s.id)).toBeUndefined();
    expect((await sb.call('DELETE', `${path()}/${s.id}`)).status).toBe(404);
  });

  it('refuses a Credit Card Payment category', async () => {
    const payment = cat['Visa Rewards'];
    expect(payment.category_group_name).toBe('Credit Card Payments');
    expect400(await post({ date: day(7), amount: -50_000, category_id: payment.id }), /Credit Card Payment/);
  });

  it('marks a transfer with transfer_account_id', async () => {
    const res = await post({ date: day(8), amount: -200_000, frequency: 'monthly', payee_id: acc.savings.transfer_payee_id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.scheduled_transaction).toMatchObject({
      payee_id: acc.savings.transfer_payee_id,
      payee_name: 'Transfer : Rainy Day Savings',
      transfer_account_id: acc.savings.id,
      category_id: null,
    });
    // Card payments are transfers too.
    const pay = await post({ date: day(9), amount: -300_000, payee_id: acc.visa.transfer_payee_id });
    expect(pay.body.data.scheduled_transaction.transfer_account_id).toBe(acc.visa.id);
  });

  it('drops the category of a transfer between budget accounts and keeps it toward a tracking account', async () => {
    const budget = await post({ date: day(8), amount: -20_000, payee_id: acc.savings.transfer_payee_id, category_id: cat['Groceries'].id });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
    expect(budget.body.data.scheduled_transaction).toMatchObject({ transfer_account_id: acc.savings.id, category_id: null, category_name: null });
    const put = await sb.call('PUT', `${path()}/${budget.body.data.scheduled_transaction.id}`, {
      scheduled_transaction: { account_id: acc.checking.id, date: day(9), payee_id: acc.savings.transfer_payee_id, category_id: cat['Fuel'].id },
    });
    expect(put.body.data.scheduled_transaction).toMatchObject({ date_first: day(9), category_id: null });
    const tracking = await post({ date: day(8), amount: -1_150_000, payee_id: acc.mortgage.transfer_payee_id, category_id: cat['Cabin Mortgage'].id });
    expect(tracking.body.data.scheduled_transaction).toMatchObject({ transfer_account_id: acc.mortgage.id, category_name: 'Cabin Mortgage' });
  });
});
