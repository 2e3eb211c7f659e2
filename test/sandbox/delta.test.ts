/**
 * Delta requests: server_knowledge rises by one per change; `last_knowledge_of_server` returns
 * only what changed since, tombstones included; full answers omit deleted entities; the budget
 * export's delta carries changed entities of every collection, computed ones (balances,
 * months, category figures) included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let b: string;
let checking: any;
let savings: any;
let groceries: any;

const today = () => new Date().toISOString().slice(0, 10);
const thisMonth = () => `${today().slice(0, 8)}01`;

beforeAll(async () => {
  sb = await testSandbox();
  b = `/budgets/${(await sb.get('/budgets')).body.data.budgets[0].id}`;
  const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts;
  checking = accounts.find((a: any) => a.type === 'checking' && !a.closed);
  savings = accounts.find((a: any) => a.type === 'savings' && !a.closed);
  const cats = (await sb.get(`${b}/categories`)).body.data.category_groups.filter((g: any) => !g.internal).flatMap((g: any) => g.categories);
  groceries = cats.find((c: any) => !c.hidden);
});

afterAll(() => sb.close());

async function knowledge(): Promise<number> {
  return (await sb.get(`${b}/accounts`)).body.data.server_knowledge;
}

describe('server knowledge', () => {
  it('rises by exactly one per write, and write responses carry it', async () => {
    const k0 = await knowledge();
    const created = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: checking.id, date: today(), amount: -12_340, payee_name: 'Delta Cafe', category_id: groceries.id },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.server_knowledge).toBe(k0 + 1);
    expect(await knowledge()).toBe(k0 + 1);
    const payee = await sb.call('PATCH', `${b}/payees/${created.body.data.transaction.payee_id}`, { payee: { name: 'Delta Café' } });
    expect(payee.body.data.server_knowledge).toBe(k0 + 2);
    // Reads do not change it.
    await sb.get(`${b}/transactions`);
    expect(await knowledge()).toBe(k0 + 2);
  });
});

describe('list deltas', () => {
  it('return only changed entities, with their computed values', async () => {
    const k0 = await knowledge();
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: checking.id, date: today(), amount: -5_000, payee_name: 'Delta Bakery', category_id: groceries.id },
    });
    const txn = res.body.data.transaction;
    const accounts = (await sb.get(`${b}/accounts?last_knowledge_of_server=${k0}`)).body.data;
    expect(accounts.server_knowledge).toBe(k0 + 1);
    // Only the account whose balance moved.
    expect(accounts.accounts.map((a: any) => a.id)).toEqual([checking.id]);
    const txns = (await sb.get(`${b}/transactions?last_knowledge_of_server=${k0}`)).body.data.transactions;
    expect(txns.map((t: any) => t.id)).toEqual([txn.id]);
    const payees = (await sb.get(`${b}/payees?last_knowledge_of_server=${k0}`)).body.data.payees;
    expect(payees.map((p: any) => p.name)).toEqual(['Delta Bakery']);
    const groups = (await sb.get(`${b}/categories?last_knowledge_of_server=${k0}`)).body.data.category_groups;
    const changed = groups.flatMap((g: any) => g.categories.map((c: any) => c.id));
    expect(changed).toContain(groceries.id);
    expect(changed.length).toBeLessThan(5);
    const months = (await sb.get(`${b}/months?last_knowledge_of_server=${k0}`)).body.data.months;
    expect(months.map((m: any) => m.month)).toContain(thisMonth());
    // Nothing changed since the current knowledge.
    const empty = (await sb.get(`${b}/accounts?last_knowledge_of_server=${k0 + 1}`)).body.data;
    expect(empty.accounts).toEqual([]);
    expect(empty.server_knowledge).toBe(k0 + 1);
  });

  it('carry tombstones that full answers omit', async () => {
    const res = await sb.call('POST', `${b}/transactions`, {
      transaction: { account_id: checking.id, date: today(), amount: -7_000, payee_name: 'Delta Deli' },
    });
    const id = res.body.data.transaction.id;
    const k1 = await knowledge();
    const del = await sb.call('DELETE', `${b}/transactions/${id}`);
    expect(del.status).toBe(200);
    expect(del.body.data.transaction).toMatchObject({ id, deleted: true });
    const delta = (await sb.get(`${b}/transactions?last_knowledge_of_server=${k1}`)).body.data.transactions;
    expect(delta).toEqual([expect.objectContaining({ id, deleted: true })]);
    const full = (await sb.get(`${b}/transactions`)).body.data.transactions;
    expect(full.find((t: any) => t.id === id)).toBeUndefined();
    expect((await sb.get(`${b}/transactions/${id}`)).status).toBe(404);
  });
});

describe('the budget export', () => {
  it('is complete without knowledge and carries every changed collection in a delta', async () => {
    const full = (await sb.get(b)).body.data;
    expect(full.budget.transactions.length).toBeGreaterThan(1000);
    expect(full.budget.subtransactions.length).toBeGreaterThan(0);
    expect(full.budget.months.length).toBeGreaterThanOrEqual(24);
    expect(full.budget.transactions.every((t: any) => t.deleted === false)).toBe(true);
    const k0 = full.server_knowledge;

    const split = await sb.call('POST', `${b}/transactions`, {
      transaction: {
        account_id: checking.id,
        date: today(),
        amount: -30_000,
        payee_name: 'Delta Market',
        subtransactions: [
          { amount: -20_000, category_id: groceries.id },
          { amount: -10_000, payee_id: savings.transfer_payee_id },
        ],
      },
    });
    expect(split.status).toBe(201);
    const delta = (await sb.get(`${b}?last_knowledge_of_server=${k0}`)).body.data;
    expect(delta.server_knowledge).toBe(k0 + 1);
    const d = delta.budget;
    // The split, and the savings side of its transfer line.
    expect(d.transactions).toHaveLength(2);
    expect(d.subtransactions).toHaveLength(2);
    expect(d.accounts.map((a: any) => a.id).sort()).toEqual([checking.id, savings.id].sort());
    expect(d.payees.map((p: any) => p.name)).toEqual(['Delta Market']);
    expect(d.categories.map((c: any) => c.id)).toContain(groceries.id);
    expect(d.months.map((m: any) => m.month)).toContain(thisMonth());
    expect(d.scheduled_transactions).toEqual([]);
    expect(d.category_groups).toEqual([]);
  });
});
