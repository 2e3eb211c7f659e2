/**
 * Transaction lists and splits, over real HTTP: the since_date / until_date / type filters on
 * all five list endpoints, the one-year since_date default (not on the month list), and splits:
 * "Split" parents, their lines as hybrid rows on the by-category and by-payee lists, what an
 * update may and may not change, and turning a plain transaction into a split with PUT.
 *
 * The sandbox runs on a clock anchored mid-month so the date arithmetic is the same every day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HybridTransaction, TransactionDetail } from '../../src/api/schemas/entities.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { exactShape } from '../helpers/shape.js';
import { day, pinnedDemo, TODAY, uniqueNames, type PinnedDemo } from './pinned-demo.js';

const MONTH = '2026-11-01';

let sb: TestSandbox;
let b: string;
let checking: any;
let firstMonth: string;
let cat: PinnedDemo['cat'];
let create: PinnedDemo['create'];
let uncategorizedId: string;

beforeAll(async () => {
  const demo = await pinnedDemo();
  ({ sb, b, cat, create } = demo);
  firstMonth = demo.budget.first_month;
  checking = demo.acc.checking;
  uncategorizedId = cat['Uncategorized'].id;
});

afterAll(() => sb.close());

/** A payee name no other test uses. */
const unique = uniqueNames(' ');

async function list(path: string): Promise<any[]> {
  const res = await sb.get(path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(typeof res.body.data.server_knowledge).toBe('number');
  return res.body.data.transactions;
}

const idsIn = (rows: any[], wanted: string[]) =>
  rows
    .filter((r) => wanted.includes(r.id))
    .map((r) => r.id)
    .sort();

describe('list filters', () => {
  it('since_date, until_date (inclusive) and type apply on all five lists', async () => {
    const payee = unique('Filter Shop');
    const groceries = cat['Groceries'].id;
    const a = await create({ date: day(-10), amount: -1_010, payee_name: payee, category_id: groceries, approved: true });
    const bb = await create({ date: day(-6), amount: -1_020, payee_name: payee, category_id: groceries, approved: false });
    const c = await create({ date: day(-4), amount: -1_030, payee_name: payee, category_id: groceries, approved: true });
    const u = await create({ date: day(-2), amount: -1_040, payee_name: payee, approved: true }); // uncategorized
    const mine = [a.id, bb.id, c.id, u.id];
    const payeeId = a.payee_id;
    expect(u.category_id).toBeNull();
    expect(u.category_name).toBe('Uncategorized');

    const lists = {
      all: `${b}/transactions`,
      account: `${b}/accounts/${checking.id}/transactions`,
      category: `${b}/categories/${groceries}/transactions`,
      payee: `${b}/payees/${payeeId}/transactions`,
      month: `${b}/months/${MONTH}/transactions`,
    };
    const inGroceries = (ids: string[]) => ids.filter((id) => id !== u.id);
    for (const [kind, path] of Object.entries(lists)) {
      const expectIds = (ids: string[]) => (kind === 'category' ? inGroceries(ids) : ids).sort();
      // until_date and since_date are both inclusive.
      const window = await list(`${path}?since_date=${day(-6)}&until_date=${day(-4)}`);
      expect(idsIn(window, mine), kind).toEqual(expectIds([bb.id, c.id]));
      expect(
        window.every((t) => t.date >= day(-6) && t.date <= day(-4)),
        kind,
      ).toBe(true);
      const since = await list(`${path}?since_date=${day(-4)}`);
      expect(idsIn(since, mine), kind).toEqual(expectIds([c.id, u.id]));
      const until = await list(`${path}?since_date=${day(-30)}&until_date=${day(-10)}`);
      expect(idsIn(until, mine), kind).toEqual(expectIds([a.id]));

      const unapproved = await list(`${path}?type=unapproved`);
      expect(idsIn(unapproved, mine), kind).toEqual([bb.id]);
      expect(
        unapproved.every((t) => t.approved === false),
        kind,
      ).toBe(true);

      const uncategorized = await list(`${path}?type=uncategorized`);
      expect(idsIn(uncategorized, mine), kind).toEqual(kind === 'category' ? [] : [u.id]);
      expect(
        uncategorized.every((t) => t.category_id === null),
        kind,
      ).toBe(true);
    }
    // The Uncategorized category lists the lines without a category.
    const uncategorized = await list(`${b}/categories/${uncategorizedId}/transactions?since_date=${day(-10)}`);
    expect(idsIn(uncategorized, mine)).toEqual([u.id]);
    expect(uncategorized.find((r) => r.id === u.id)).toMatchObject({ type: 'transaction', category_name: 'Uncategorized', category_id: null });
  });

  it('since_date defaults to one year ago on the four non-month lists, not on the month list', async () => {
    const old = day(-396); // 13 months ago
    expect(old.slice(0, 7)).toBe('2025-10');
    const payee = unique('Old Shop');
    const t = await create({ date: old, amount: -2_222, payee_name: payee, category_id: cat['Hobbies'].id });
    const paths = [
      `${b}/transactions`,
      `${b}/accounts/${checking.id}/transactions`,
      `${b}/categories/${cat['Hobbies'].id}/transactions`,
      `${b}/payees/${t.payee_id}/transactions`,
    ];
    for (const path of paths) {
      const dflt = await list(path);
      expect(idsIn(dflt, [t.id]), path).toEqual([]);
      expect(
        dflt.every((x) => x.date >= day(-365)),
        path,
      ).toBe(true);
      expect(idsIn(await list(`${path}?since_date=${firstMonth}`), [t.id]), path).toEqual([t.id]);
    }
    // The month list has no default window.
    expect(idsIn(await list(`${b}/months/2025-10-01/transactions`), [t.id])).toEqual([t.id]);
    const month = await list(`${b}/months/2025-10-01/transactions`);
    expect(month.every((x) => x.date.startsWith('2025-10-'))).toBe(true);
    // The single GET is not filtered.
    expect((await sb.get(`${b}/transactions/${t.id}`)).body.data.transaction.date).toBe(old);
  });

  it('applies the default window before a delta: an old edit is not in a delta without since_date (pragprogrammer/mcp-ynab#26)', async () => {
    const t = await create({ date: day(-400), amount: -3_333, payee_name: unique('Older Shop') });
    const k = (await sb.get(`${b}/transactions?last_knowledge_of_server=0`)).body.data.server_knowledge;
    const put = await sb.call('PUT', `${b}/transactions/${t.id}`, { transaction: { memo: 'edited long after' } });
    expect(put.status).toBe(200);
    const delta = (await sb.get(`${b}/transactions?last_knowledge_of_server=${k}`)).body.data;
    expect(delta.transactions).toEqual([]);
    expect(delta.server_knowledge).toBe(k + 1);
    const early = (await sb.get(`${b}/transactions?last_knowledge_of_server=${k}&since_date=${firstMonth}`)).body.data;
    expect(early.transactions.map((x: any) => [x.id, x.memo])).toEqual([[t.id, 'edited long after']]);
  });

  it('refuses malformed filter values with 400', async () => {
    for (const q of ['since_date=2026-13-01', 'until_date=yesterday', 'type=cleared']) {
      const res = await sb.get(`${b}/transactions?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.id).toBe('400');
    }
  });
});

describe('splits', () => {
  async function createSplit(payee: string, linePayee: string) {
    return create({
      date: day(-1),
      amount: -60_000,
      payee_name: payee,
      category_id: null,
      memo: 'weekly shop',
      subtransactions: [
        { amount: -40_000, category_id: cat['Groceries'].id, memo: 'food' },
        { amount: -15_500, category_id: cat['Household Supplies'].id, payee_name: linePayee },
        { amount: -4_500, category_id: cat['Pet Care'].id },
      ],
    });
  }

  it('creates a split: "Split" parent, lines with names and formatted amounts', async () => {
    const linePayee = unique('Line Payee');
    const t = await createSplit(unique('Split Market'), linePayee);
    expect(exactShape(TransactionDetail, t)).toEqual([]);
    expect(t).toMatchObject({ amount: -60_000, amount_formatted: '-$60.00', category_name: 'Split', memo: 'weekly shop' });
    // As on the service (and string-typed in the official SDK): the parent's category is the
    // internal split category, the same for every split, and in no category list.
    expect(t.category_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.values(cat).map((c: any) => c.id)).not.toContain(t.category_id);
    expect((await sb.get(`${b}/categories/${t.category_id}`)).status).toBe(404);
    const other = await createSplit(unique('Split Market'), linePayee);
    expect(other.category_id).toBe(t.category_id);
    expect(t.subtransactions).toHaveLength(3);
    const [food, household, pets] = t.subtransactions;
    expect(food).toMatchObject({
      transaction_id: t.id,
      amount: -40_000,
      amount_formatted: '-$40.00',
      amount_currency: -40,
      category_id: cat['Groceries'].id,
      category_name: 'Groceries',
      memo: 'food',
      payee_id: null,
      payee_name: null,
      transfer_account_id: null,
      deleted: false,
    });
    expect(household).toMatchObject({ amount: -15_500, amount_formatted: '-$15.50', category_name: 'Household Supplies', payee_name: linePayee });
    expect(household.payee_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(pets).toMatchObject({ amount: -4_500, amount_formatted: '-$4.50', category_name: 'Pet Care' });
    // The same in the single GET and in the plain lists; deleted, it still reads "Split".
    expect((await sb.get(`${b}/transactions/${t.id}`)).body.data.transaction).toEqual(t);
    expect((await list(`${b}/accounts/${checking.id}/transactions?since_date=${day(-1)}`)).find((x) => x.id === t.id)).toEqual(t);
    const k = (await sb.get(`${b}/transactions?since_date=${day(-1)}`)).body.data.server_knowledge;
    expect((await sb.call('DELETE', `${b}/transactions/${other.id}`)).status).toBe(200);
    const gone = (await sb.get(`${b}/transactions?since_date=${day(-1)}&last_knowledge_of_server=${k}`)).body.data.transactions;
    expect(gone.find((x: any) => x.id === other.id)).toMatchObject({ deleted: true, category_id: t.category_id, category_name: 'Split' });
  });

  it('returns split lines as hybrid rows by category and by payee', async () => {
    const linePayee = unique('Line Payee');
    const t = await createSplit(unique('Split Market'), linePayee);
    const [food, household] = t.subtransactions;
    const since = `?since_date=${day(-1)}`;

    const byGroceries = await list(`${b}/categories/${cat['Groceries'].id}/transactions${since}`);
    const rows = byGroceries.filter((r) => r.parent_transaction_id === t.id);
    expect(rows).toHaveLength(1);
    expect(exactShape(HybridTransaction, rows[0])).toEqual([]);
    expect(rows[0]).toMatchObject({
      type: 'subtransaction',
      id: food.id,
      parent_transaction_id: t.id,
      amount: -40_000,
      amount_formatted: '-$40.00',
      date: t.date,
      account_id: checking.id,
      account_name: 'Everyday Checking',
      category_id: cat['Groceries'].id,
      category_name: 'Groceries',
      memo: 'food',
    });
    // The parent itself is not a row of a category list.
    expect(byGroceries.find((r) => r.id === t.id)).toBeUndefined();

    const byParentPayee = await list(`${b}/payees/${t.payee_id}/transactions${since}`);
    expect(byParentPayee).toHaveLength(1);
    expect(exactShape(HybridTransaction, byParentPayee[0])).toEqual([]);
    expect(byParentPayee[0]).toMatchObject({ type: 'transaction', id: t.id, parent_transaction_id: null, category_name: 'Split', amount: -60_000 });

    const byLinePayee = await list(`${b}/payees/${household.payee_id}/transactions${since}`);
    expect(byLinePayee).toHaveLength(1);
    expect(byLinePayee[0]).toMatchObject({
      type: 'subtransaction',
      id: household.id,
      parent_transaction_id: t.id,
      payee_id: household.payee_id,
      payee_name: linePayee,
      amount: -15_500,
      category_name: 'Household Supplies',
    });
  });

  it('ignores date and amount changes of a split, refuses replacing its lines, keeps other changes', async () => {
    const t = await createSplit(unique('Split Market'), unique('Line Payee'));
    const put = await sb.call('PUT', `${b}/transactions/${t.id}`, { transaction: { date: day(-3), amount: -1_000, memo: 'changed memo', approved: true } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data.transaction).toMatchObject({ id: t.id, date: t.date, amount: -60_000, memo: 'changed memo', approved: true, category_name: 'Split' });
    expect(put.body.data.transaction.subtransactions.map((x: any) => x.id)).toEqual(t.subtransactions.map((x: any) => x.id));

    const replace = await sb.call('PUT', `${b}/transactions/${t.id}`, {
      transaction: { subtransactions: [{ amount: -60_000, category_id: cat['Groceries'].id }] },
    });
    expect(replace.status).toBe(400);
    expect(replace.body.error.detail).toMatch(/subtransactions/);
    const after = (await sb.get(`${b}/transactions/${t.id}`)).body.data.transaction;
    expect(after.subtransactions.map((x: any) => x.amount)).toEqual([-40_000, -15_500, -4_500]);
  });

  it('refuses lines that do not sum to the amount', async () => {
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: {
        account_id: checking.id,
        date: TODAY,
        amount: -10_000,
        subtransactions: [
          { amount: -6_000, category_id: cat['Groceries'].id },
          { amount: -3_000, category_id: cat['Fuel'].id },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.detail).toMatch(/sum of subtransaction amounts/);
  });

  it('turns a plain transaction into a split with PUT', async () => {
    const t = await create({ amount: -25_000, payee_name: unique('Convert Shop'), category_id: cat['Groceries'].id });
    expect(t.category_name).toBe('Groceries');
    const put = await sb.call('PUT', `${b}/transactions/${t.id}`, {
      transaction: {
        category_id: null,
        subtransactions: [
          { amount: -20_000, category_id: cat['Groceries'].id },
          { amount: -5_000, category_id: cat['Fuel'].id, memo: 'gas' },
        ],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const split = put.body.data.transaction;
    expect(split).toMatchObject({ id: t.id, amount: -25_000, category_name: 'Split' });
    const earlier = (await list(`${b}/transactions?since_date=${firstMonth}`)).find((x) => x.subtransactions.length && x.id !== t.id);
    expect(split.category_id).toBe(earlier.category_id);
    expect(split.subtransactions.map((x: any) => [x.amount, x.category_name, x.transaction_id])).toEqual([
      [-20_000, 'Groceries', t.id],
      [-5_000, 'Fuel', t.id],
    ]);
    const fuelRows = await list(`${b}/categories/${cat['Fuel'].id}/transactions?since_date=${TODAY}`);
    expect(fuelRows.filter((r) => r.parent_transaction_id === t.id).map((r) => r.amount)).toEqual([-5_000]);
  });

  it('counts a split with a line without category as uncategorized', async () => {
    const t = await create({
      date: day(-1),
      amount: -9_000,
      payee_name: unique('Half Known'),
      subtransactions: [{ amount: -6_000, category_id: cat['Groceries'].id }, { amount: -3_000 }],
    });
    expect(t.subtransactions[1]).toMatchObject({ category_id: null, category_name: 'Uncategorized' });
    expect(idsIn(await list(`${b}/transactions?type=uncategorized&since_date=${day(-1)}`), [t.id])).toEqual([t.id]);
    const rows = await list(`${b}/categories/${uncategorizedId}/transactions?since_date=${day(-1)}`);
    expect(rows.filter((r) => r.parent_transaction_id === t.id).map((r) => [r.type, r.amount])).toEqual([['subtransaction', -3_000]]);
  });
});
