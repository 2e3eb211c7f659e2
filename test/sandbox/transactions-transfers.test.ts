/**
 * Transfers and import_id, over real HTTP.
 *  - A payee_id equal to another account's transfer_payee_id creates the paired opposite
 *    transaction there, both sides linked; categories follow the on/off-budget rule; the sides
 *    stay in step on update; leaving the transfer payee or deleting removes the other side.
 *  - import_id is unique per account: 409 for one, skipped and listed for a batch; an import
 *    matches a user-entered transaction (same account, same amount, within 10 days);
 *    POST /transactions/import brings in the linked account's pending bank transactions once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionDetail } from '../../src/api/schemas/entities.js';
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
  expect(acc.mortgage.on_budget).toBe(false);
});

afterAll(() => sb.close());

const unique = uniqueNames('-');

async function txn(id: string): Promise<any> {
  const res = await sb.get(`${b}/transactions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.transaction;
}

async function put(id: string, transaction: Record<string, unknown>): Promise<any> {
  const res = await sb.call('PUT', `${b}/transactions/${id}`, { transaction });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.transaction;
}

async function knowledge(): Promise<number> {
  return (await sb.get(`${b}/accounts`)).body.data.server_knowledge;
}

describe('transfers', () => {
  it('creates the paired opposite transaction, linked both ways, without categories between on-budget accounts', async () => {
    const t = await create({ amount: -100_000, payee_id: acc.savings.transfer_payee_id, category_id: cat['Groceries'].id, memo: 'to savings' });
    expect(t).toMatchObject({
      account_id: acc.checking.id,
      payee_id: acc.savings.transfer_payee_id,
      payee_name: 'Transfer : Rainy Day Savings',
      transfer_account_id: acc.savings.id,
      category_id: null,
      category_name: null,
    });
    const pair = await txn(t.transfer_transaction_id);
    expect(exactShape(TransactionDetail, pair)).toEqual([]);
    expect(pair).toMatchObject({
      account_id: acc.savings.id,
      date: TODAY,
      amount: 100_000,
      memo: 'to savings',
      payee_id: acc.checking.transfer_payee_id,
      payee_name: 'Transfer : Everyday Checking',
      transfer_account_id: acc.checking.id,
      transfer_transaction_id: t.id,
      category_id: null,
      category_name: null,
    });
    // Transfers between budget accounts are not uncategorized.
    const uncategorized = (await sb.get(`${b}/transactions?type=uncategorized&since_date=${TODAY}`)).body.data.transactions;
    expect(uncategorized.filter((x: any) => x.id === t.id || x.id === pair.id)).toEqual([]);
  });

  it('keeps the category on the budget side of a transfer to an off-budget account', async () => {
    const t = await create({ amount: -1_150_000, payee_id: acc.mortgage.transfer_payee_id, category_id: cat['Cabin Mortgage'].id });
    expect(t).toMatchObject({ transfer_account_id: acc.mortgage.id, category_id: cat['Cabin Mortgage'].id, category_name: 'Cabin Mortgage' });
    const pair = await txn(t.transfer_transaction_id);
    expect(pair).toMatchObject({ account_id: acc.mortgage.id, amount: 1_150_000, category_id: null, transfer_transaction_id: t.id });
  });

  it('keeps both sides in step when either side changes amount or date', async () => {
    const t = await create({ date: day(-3), amount: -40_000, payee_id: acc.wallet.transfer_payee_id, memo: 'ATM' });
    const pairId = t.transfer_transaction_id;
    const updated = await put(t.id, { amount: -60_000, date: day(-2) });
    expect(updated).toMatchObject({ amount: -60_000, date: day(-2), transfer_transaction_id: pairId });
    expect(await txn(pairId)).toMatchObject({ amount: 60_000, date: day(-2), account_id: acc.wallet.id, transfer_transaction_id: t.id });
    // From the other side.
    await put(pairId, { amount: 45_000, date: day(-1) });
    expect(await txn(t.id)).toMatchObject({ amount: -45_000, date: day(-1), transfer_transaction_id: pairId });
  });

  it('removes the other side when the payee leaves the transfer payee', async () => {
    const t = await create({ amount: -12_000, payee_id: acc.savings.transfer_payee_id });
    const pairId = t.transfer_transaction_id;
    const updated = await put(t.id, { payee_name: unique('Not A Transfer'), category_id: cat['Groceries'].id });
    expect(updated).toMatchObject({ transfer_account_id: null, transfer_transaction_id: null, category_id: cat['Groceries'].id });
    expect((await sb.get(`${b}/transactions/${pairId}`)).status).toBe(404);
  });

  it('deletes both sides, with tombstones for both in a delta', async () => {
    const t = await create({ amount: -33_000, payee_id: acc.savings.transfer_payee_id });
    const pairId = t.transfer_transaction_id;
    const k = await knowledge();
    const del = await sb.call('DELETE', `${b}/transactions/${pairId}`);
    expect(del.status).toBe(200);
    expect(del.body.data.transaction).toMatchObject({ id: pairId, deleted: true });
    expect((await sb.get(`${b}/transactions/${t.id}`)).status).toBe(404);
    const delta = (await sb.get(`${b}/transactions?last_knowledge_of_server=${k}`)).body.data.transactions;
    expect(delta.map((x: any) => [x.id, x.deleted]).sort()).toEqual(
      [
        [t.id, true],
        [pairId, true],
      ].sort(),
    );
  });

  it('creates a paired transaction for a transfer split line', async () => {
    const t = await create({
      amount: -80_000,
      payee_name: unique('Paycheck Split'),
      subtransactions: [
        { amount: -50_000, category_id: cat['Groceries'].id },
        { amount: -30_000, payee_id: acc.savings.transfer_payee_id, memo: 'to savings' },
      ],
    });
    const line = t.subtransactions[1];
    expect(line).toMatchObject({ transfer_account_id: acc.savings.id, category_id: null, payee_name: 'Transfer : Rainy Day Savings' });
    const pair = await txn(line.transfer_transaction_id);
    expect(pair).toMatchObject({
      account_id: acc.savings.id,
      amount: 30_000,
      date: TODAY,
      transfer_account_id: acc.checking.id,
      transfer_transaction_id: line.id,
      payee_id: acc.checking.transfer_payee_id,
      category_id: null,
    });
    // Deleting the split removes the line's other side too.
    expect((await sb.call('DELETE', `${b}/transactions/${t.id}`)).status).toBe(200);
    expect((await sb.get(`${b}/transactions/${pair.id}`)).status).toBe(404);
  });

  it("relinks a transfer line's other side when its split moves to another account", async () => {
    const t = await create({
      amount: -8_000,
      subtransactions: [
        { amount: -5_000, category_id: cat['Groceries'].id },
        { amount: -3_000, payee_id: acc.savings.transfer_payee_id },
      ],
    });
    const pairId = t.subtransactions[1].transfer_transaction_id;
    // Into the account the line transfers to: refused, nothing changes.
    const self = await sb.call('PUT', `${b}/transactions/${t.id}`, { transaction: { account_id: acc.savings.id } });
    expect(self.status).toBe(400);
    expect(self.body.error.detail).toMatch(/subtransactions\[1\]/);
    expect((await txn(t.id)).account_id).toBe(acc.checking.id);

    const moved = await put(t.id, { account_id: acc.wallet.id });
    expect(moved.subtransactions[1]).toMatchObject({ transfer_account_id: acc.savings.id, transfer_transaction_id: pairId });
    expect(await txn(pairId)).toMatchObject({
      account_id: acc.savings.id,
      amount: 3_000,
      payee_id: acc.wallet.transfer_payee_id,
      payee_name: 'Transfer : Wallet',
      transfer_account_id: acc.wallet.id,
      transfer_transaction_id: t.subtransactions[1].id,
    });
    // Off budget, as for any transaction there, the lines lose their categories.
    const tracking = await put(t.id, { account_id: acc.mortgage.id });
    expect(tracking.subtransactions.map((x: any) => [x.category_id, x.transfer_account_id])).toEqual([
      [null, null],
      [null, acc.savings.id],
    ]);
    expect(await txn(pairId)).toMatchObject({ transfer_account_id: acc.mortgage.id, payee_id: acc.mortgage.transfer_payee_id });
  });
});

describe('import_id', () => {
  it('is unique per account: a duplicate single create is a 409, another account is fine', async () => {
    const importId = unique('IMP');
    const first = await create({ amount: -1_234, import_id: importId });
    expect(first.import_id).toBe(importId);
    const dup = await sb.call('POST', `${b}/transactions`, { transaction: { account_id: acc.checking.id, date: TODAY, amount: -9_999, import_id: importId } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ id: '409', name: 'conflict' });
    expect(dup.body.error.detail).toContain(importId);
    const other = await create({ account_id: acc.wallet.id, amount: -1_234, import_id: importId });
    expect(other).toMatchObject({ account_id: acc.wallet.id, import_id: importId });
  });

  it('skips duplicates in a batch (201) and lists them, inside the batch too', async () => {
    const existing = unique('IMP');
    await create({ amount: -2_001, import_id: existing });
    const fresh = unique('IMP');
    const twice = unique('IMP');
    const res = await sb.call('POST', `${b}/transactions`, {
      transactions: [
        { account_id: acc.checking.id, date: TODAY, amount: -2_002, import_id: existing },
        { account_id: acc.checking.id, date: TODAY, amount: -2_003, import_id: fresh },
        { account_id: acc.checking.id, date: TODAY, amount: -2_004, import_id: twice },
        { account_id: acc.checking.id, date: TODAY, amount: -2_005, import_id: twice },
        { account_id: acc.checking.id, date: TODAY, amount: -2_006, payee_name: unique('No Import') },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(['duplicate_import_ids', 'server_knowledge', 'transaction_ids', 'transactions']);
    for (const t of data.transactions) expect(exactShape(TransactionDetail, t)).toEqual([]);
    expect(data.duplicate_import_ids).toEqual([existing, twice]);
    expect(data.transactions.map((t: any) => t.amount)).toEqual([-2_003, -2_004, -2_006]);
    expect(data.transaction_ids).toEqual(data.transactions.map((t: any) => t.id));
    expect(typeof data.server_knowledge).toBe('number');
    // Only the created ones exist.
    const all = (await sb.get(`${b}/accounts/${acc.checking.id}/transactions?since_date=${TODAY}`)).body.data.transactions;
    expect(all.filter((t: any) => [-2_002, -2_005].includes(t.amount))).toEqual([]);
  });

  it('matches an import to a user-entered transaction: same account, same amount, within 10 days', async () => {
    const entered = await create({ date: day(-4), amount: -47_310, payee_name: unique('Hand Entered'), category_id: cat['Groceries'].id });
    expect(entered.import_id).toBeNull();
    const importId = `YNAB:-47310:${TODAY}:1`;
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: acc.checking.id, date: TODAY, amount: -47_310, payee_name: 'SAFEWAY #1234', import_id: importId },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const matched = res.body.data.transaction;
    // The response is the user's transaction, now carrying the import.
    expect(matched).toMatchObject({
      id: entered.id,
      date: day(-4),
      amount: -47_310,
      import_id: importId,
      category_id: cat['Groceries'].id,
      payee_id: entered.payee_id,
    });
    expect(matched.matched_transaction_id).toEqual(expect.any(String));
    expect(res.body.data.transaction_ids).toEqual([entered.id]);
    expect(await txn(entered.id)).toMatchObject({ import_id: importId, matched_transaction_id: matched.matched_transaction_id });
    const sameAmount = (await sb.get(`${b}/accounts/${acc.checking.id}/transactions?since_date=${day(-10)}`)).body.data.transactions.filter(
      (t: any) => t.amount === -47_310,
    );
    expect(sameAmount.map((t: any) => t.id)).toEqual([entered.id]);
    // The import id now counts as taken on that account.
    const again = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: acc.checking.id, date: TODAY, amount: -47_310, import_id: importId },
    });
    expect(again.status).toBe(409);
  });

  it('does not match across accounts, other amounts, or more than 10 days apart', async () => {
    const far = await create({ date: day(-11), amount: -51_170 });
    const otherAccount = await create({ account_id: acc.wallet.id, date: day(-1), amount: -51_170 });
    const otherAmount = await create({ date: day(-1), amount: -51_180 });
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: acc.checking.id, date: TODAY, amount: -51_170, import_id: unique('IMP') },
    });
    expect(res.status).toBe(201);
    const t = res.body.data.transaction;
    expect([far.id, otherAccount.id, otherAmount.id]).not.toContain(t.id);
    expect(t.matched_transaction_id).toBeNull();
    for (const id of [far.id, otherAccount.id, otherAmount.id]) expect((await txn(id)).import_id).toBeNull();
  });

  it("imports the linked account's pending bank transactions once (201 with ids, then 200 with [])", async () => {
    const first = await sb.call('POST', `${b}/transactions/import`);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const ids: string[] = first.body.data.transaction_ids;
    expect(ids.length).toBe(3);
    const imported = await Promise.all(ids.map(txn));
    // The demo's hand-entered Whole Foods purchase is matched; the other two are new and uncategorized.
    const matched = imported.filter((t) => t.matched_transaction_id !== null);
    expect(matched.map((t) => [t.payee_name, t.category_name])).toEqual([['Whole Foods Market', 'Groceries']]);
    for (const t of imported.filter((x) => x.matched_transaction_id === null)) {
      expect(t).toMatchObject({ category_id: null, approved: false });
      expect(t.import_payee_name_original).toBe(t.payee_name.toUpperCase());
    }
    for (const t of imported) {
      expect(t.account_id).toBe(acc.checking.id);
      expect(t.import_id).toMatch(new RegExp(`^YNAB:${t.amount}:\\d{4}-\\d{2}-\\d{2}:1$`));
      expect(t.date >= day(-3) && t.date <= TODAY).toBe(true);
      expect(t.cleared).toBe('cleared');
    }
    const second = await sb.call('POST', `${b}/transactions/import`);
    expect(second.status).toBe(200);
    expect(second.body.data.transaction_ids).toEqual([]);
  });
});
