/**
 * The sandbox answers transaction lists from an index, with cached rows (details, and the hybrid
 * rows of the by-category and by-payee lists), full lists of details from runs encoded a day at
 * a time (list-runs.ts), and the full export from cached segments (for speed at 100,000
 * transactions); none of it may change an answer. After every step of a
 * sequence of writes that moves transactions between dates, accounts, categories and payees,
 * approves them, splits and deletes them, and renames payees and categories, every list over
 * real HTTP equals what the shared list builder gives by scanning all transactions, and the full
 * export equals one built without the cache. Also: the body encoder writes exactly JSON.stringify's bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTransactions, type ListStyle, type TransactionQuery, type TransactionScope } from '../../src/api/read/transactions.js';
import { encodeBody, JsonSegments, reusable, encodeRun } from '../../src/sandbox/json.js';
import type { BudgetStore } from '../../src/sandbox/store/budget-store.js';
import * as V from '../../src/sandbox/store/views.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { day, pinnedDemo, TODAY, uniqueNames, type PinnedDemo } from './pinned-demo.js';

let demo: PinnedDemo;
let sb: TestSandbox;
let b: string;
let store: BudgetStore;
const unique = uniqueNames(' ');

beforeAll(async () => {
  demo = await pinnedDemo();
  ({ sb, b } = demo);
  store = sb.state.budgets.find((x) => x.id === demo.budget.id)!;
});

afterAll(() => sb.close());

/** What the shared builder answers by scanning every transaction (no index). */
function scanned(scope: TransactionScope, query: TransactionQuery & { last_knowledge_of_server?: number }, style: ListStyle = {}) {
  const since = query.last_knowledge_of_server;
  const source = {
    transactions: store.rec.transactions.values(),
    linesOf: V.linesOf,
    include: (t: any) => (since === undefined ? !t.deleted : t.knowledge > since),
  };
  return JSON.parse(JSON.stringify(listTransactions(V.lookup(store), source, query, scope, store.today(), style)));
}

async function checkLists(knowledge: number) {
  const acc = demo.acc;
  const scopes: [string, TransactionScope][] = [
    ['/transactions', { kind: 'all' }],
    [`/accounts/${acc.checking.id}/transactions`, { kind: 'account', id: acc.checking.id }],
    [`/accounts/${acc.visa.id}/transactions`, { kind: 'account', id: acc.visa.id }],
    [`/categories/${demo.cat['Groceries'].id}/transactions`, { kind: 'category', id: demo.cat['Groceries'].id }],
    [`/categories/${demo.cat['Uncategorized'].id}/transactions`, { kind: 'category', id: demo.cat['Uncategorized'].id }],
    [`/months/2026-10-01/transactions`, { kind: 'month', month: '2026-10-01' }],
    [`/months/2026-11-01/transactions`, { kind: 'month', month: '2026-11-01' }],
  ];
  const payees = (await sb.get(`${b}/payees`)).body.data.payees.filter((p: any) => /^Index /.test(p.name));
  for (const p of payees) scopes.push([`/payees/${p.id}/transactions`, { kind: 'payee', id: p.id }]);
  const queries: Record<string, string | number>[] = [
    {},
    { since_date: '2000-01-01' },
    { since_date: day(-40), until_date: day(-3) },
    { type: 'unapproved' },
    { type: 'uncategorized', since_date: '2000-01-01' },
    { since_date: '2000-01-01', last_knowledge_of_server: knowledge },
  ];
  for (const [path, scope] of scopes) {
    for (const q of queries) {
      const qs = new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]));
      const res = await sb.get(`${b}${path}?${qs}`);
      expect(res.status, `${path}?${qs}`).toBe(200);
      expect(res.body.data.transactions, `${path}?${qs}`).toEqual(scanned(scope, q as TransactionQuery));
    }
  }
  // The /budgets era's lists of details have no since_date default: their runs reach back to the first day.
  const budgets = b.replace(/^\/plans\//, '/budgets/');
  for (const [path, scope] of scopes.slice(0, 3)) {
    for (const q of [{}, { type: 'unapproved' }] as TransactionQuery[]) {
      const qs = new URLSearchParams(q as Record<string, string>);
      const res = await sb.get(`${budgets}${path}?${qs}`);
      expect(res.body.data.transactions, `/budgets era ${path}?${qs}`).toEqual(scanned(scope, q, { sinceDateDefault: false }));
    }
  }
}

async function checkExport() {
  const res = await sb.get(b);
  const plan = res.body.data.plan;
  const live = [...store.rec.transactions.values()].filter((t) => !t.deleted);
  expect(plan.transactions).toEqual(JSON.parse(JSON.stringify(live.map(V.transactionSummary))));
  expect(plan.subtransactions).toEqual(JSON.parse(JSON.stringify(live.flatMap((t) => V.subtransactions(store, t)))));
}

describe('indexed lists and the cached export answer as a scan does', () => {
  it('through creates, moves, approvals, splits, deletes and renames', async () => {
    const k0 = (await sb.get(`${b}/transactions`)).body.data.server_knowledge;
    await checkLists(k0);
    await checkExport();
    const acc = demo.acc;
    const cat = demo.cat;
    const made: any[] = [];
    for (const [i, d] of [-1, -20, -35, -400, 0].entries()) {
      made.push(
        await demo.create({
          date: day(d),
          amount: -(1_000 + i),
          payee_name: unique('Index Shop'),
          category_id: i % 2 ? cat['Groceries'].id : null,
          approved: i % 2 === 0,
        }),
      );
    }
    made.push(
      await demo.create({
        date: day(-2),
        amount: -9_000,
        payee_name: unique('Index Split'),
        subtransactions: [{ amount: -5_000, category_id: cat['Groceries'].id, payee_name: unique('Index Line') }, { amount: -4_000 }],
      }),
    );
    await checkLists(k0);
    await checkExport();
    const k1 = (await sb.get(`${b}/transactions`)).body.data.server_knowledge;

    const put = (id: string, transaction: Record<string, unknown>) => sb.call('PUT', `${b}/transactions/${id}`, { transaction });
    expect((await put(made[0].id, { date: day(-50), account_id: acc.visa.id })).status).toBe(200);
    expect((await put(made[1].id, { category_id: cat['Fuel'].id, approved: false })).status).toBe(200);
    expect((await put(made[2].id, { payee_id: made[3].payee_id })).status).toBe(200);
    expect((await put(made[4].id, { category_id: null, subtransactions: [{ amount: -500, category_id: cat['Groceries'].id }, { amount: -504 }] })).status).toBe(
      200,
    );
    expect((await sb.call('PATCH', `${b}/transactions`, { transactions: made.map((t) => ({ id: t.id, approved: true })) })).status).toBe(200);
    expect((await sb.call('DELETE', `${b}/transactions/${made[5].id}`)).status).toBe(200);
    await checkLists(k1);
    await checkExport();

    // Names shown in answers change without the transaction changing.
    expect((await sb.call('PATCH', `${b}/payees/${made[3].payee_id}`, { payee: { name: unique('Index Renamed') } })).status).toBe(200);
    expect((await sb.call('PATCH', `${b}/categories/${cat['Groceries'].id}`, { category: { name: 'Groceries & More' } })).status).toBe(200);
    await checkLists(k1);
    await checkExport();
    const detail = (await sb.get(`${b}/transactions/${made[4].id}`)).body.data.transaction;
    expect(detail.subtransactions[0].category_name).toBe('Groceries & More');
    expect((await sb.call('PATCH', `${b}/categories/${cat['Groceries'].id}`, { category: { name: 'Groceries' } })).status).toBe(200);
  });

  it('a transaction made today shows in today-dated lists and the export at once', async () => {
    const t = await demo.create({ amount: -77_000, payee_name: unique('Index Today') });
    const list = (await sb.get(`${b}/transactions?since_date=${TODAY}`)).body.data.transactions;
    expect(list.map((x: any) => x.id)).toContain(t.id);
    expect((await sb.get(b)).body.data.plan.transactions.at(-1).id).toBe(t.id);
  });
});

describe('the body encoder', () => {
  it('writes exactly the bytes of JSON.stringify, reusable entities and segments included', () => {
    const entity = reusable({ id: 'a', amount: -1_000, memo: 'naïve "quoted" \u2028 line', nested: { x: [1, null] } });
    const other = { id: 'b', amount: 2, deleted: false };
    const run = encodeRun([other, entity])!;
    const body = {
      data: {
        transactions: [entity, other, entity],
        plan: { id: 'p', list: new JsonSegments([run, run]), empty: new JsonSegments([]), skip: undefined, deep: { a: { b: { c: [entity] } } } },
        n: 3,
        s: 'é',
        nothing: null,
        arr: [undefined, 1],
      },
    };
    const expected = JSON.stringify({
      data: { ...body.data, plan: { ...body.data.plan, list: [other, entity, other, entity], empty: [] } },
    });
    for (let i = 0; i < 2; i++) expect(Buffer.concat(encodeBody(body)).toString('utf8')).toBe(expected);
  });
});
