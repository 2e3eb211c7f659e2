/**
 * Both path prefixes: every read operation answers the same data under /v1/plans/… and
 * /v1/budgets/…, with the era's member names (`plans`/`default_plan`/`plan` against
 * `budgets`/`default_budget`/`budget`) and never the other era's, except where the /budgets-era
 * description (1.76) says otherwise: there a month's transactions are hybrid rows, the lists have
 * no since_date default and no until_date, and bulk PATCH answers 209. Writes work under both and
 * are visible under both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../src/api/operations/index.js';
import { buildPath } from '../../src/api/paths.js';
import { HybridTransaction, TransactionDetail } from '../../src/api/schemas/entities.js';
import { exactShape } from '../helpers/shape.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let ids: Record<string, string>;

const today = () => new Date().toISOString().slice(0, 10);
const PLANS_NAMES = ['plans', 'default_plan', 'plan'];
const BUDGETS_NAMES = ['budgets', 'default_budget', 'budget'];

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 10_000 });
  const budget = (await sb.get('/plans')).body.data.plans[0].id;
  const b = `/plans/${budget}`;
  const account = (await sb.get(`${b}/accounts`)).body.data.accounts.find((a: any) => a.type === 'checking' && !a.closed);
  const groups = (await sb.get(`${b}/categories`)).body.data.category_groups.filter((g: any) => !g.internal);
  const category = groups.flatMap((g: any) => g.categories)[0];
  const location = (await sb.get(`${b}/payee_locations`)).body.data.payee_locations[0];
  const txn = (await sb.get(`${b}/transactions`)).body.data.transactions.find((t: any) => t.payee_id);
  const scheduled = (await sb.get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions[0];
  ids = {
    budget_id: budget,
    account_id: account.id,
    category_id: category.id,
    category_group_id: category.category_group_id,
    payee_id: txn.payee_id,
    payee_location_id: location.id,
    transaction_id: txn.id,
    scheduled_transaction_id: scheduled.id,
    month: 'current',
  };
});

afterAll(() => sb.close());

/** The /budgets-era body with its members renamed to the /plans-era names. */
function toPlansNames(op: Operation, body: any): any {
  const legacy = Object.entries(op.legacyMembers ?? {});
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body.data)) {
    const plansName = legacy.find(([, old]) => old === key)?.[0];
    data[plansName ?? key] = value;
  }
  return { data };
}

const reads = (OPERATIONS as readonly Operation[]).filter((op) => op.method === 'GET');

describe('read operations under both prefixes', () => {
  it('covers every read operation', () => {
    expect(reads.length).toBe(28);
  });

  it.each(reads.filter((op) => !op.legacy?.data).map((op) => [op.id, op] as const))('%s: same data, era member names', async (_id, op) => {
    // Both eras filter alike once since_date is given (only the /plans era defaults it).
    const query = op.legacy?.sinceDateDefault === false ? '?since_date=2000-01-01' : '';
    const [plans, budgets] = await Promise.all([sb.get(buildPath(op, 'plans', ids) + query), sb.get(buildPath(op, 'budgets', ids) + query)]);
    expect(plans.status, JSON.stringify(plans.body)).toBe(op.status);
    expect(budgets.status, JSON.stringify(budgets.body)).toBe(op.status);
    const plansKeys = Object.keys(plans.body.data);
    const budgetsKeys = Object.keys(budgets.body.data);
    expect(plansKeys).toContain(op.member);
    for (const name of BUDGETS_NAMES) expect(plansKeys).not.toContain(name);
    for (const name of PLANS_NAMES) expect(budgetsKeys).not.toContain(name);
    for (const [plansName, budgetsName] of Object.entries(op.legacyMembers ?? {})) {
      expect(budgetsKeys).toContain(budgetsName);
      expect(plansKeys).toContain(plansName);
    }
    expect(toPlansNames(op, budgets.body)).toEqual(plans.body);
  });

  it('the budget list with accounts, and a budget delta, match too', async () => {
    const list = (era: string) => sb.get(`/${era}?include_accounts=true`);
    const [p, b] = await Promise.all([list('plans'), list('budgets')]);
    expect(p.body.data.plans).toEqual(b.body.data.budgets);
    expect(p.body.data.plans[0].accounts.length).toBeGreaterThan(0);
    expect(Object.keys(b.body.data).sort()).toEqual(['budgets', 'default_budget']);
    expect(Object.keys(p.body.data).sort()).toEqual(['default_plan', 'plans']);

    const k = (await sb.get(`/plans/${ids.budget_id}`)).body.data.server_knowledge;
    expect((await sb.call('POST', `/budgets/${ids.budget_id}/payees`, { payee: { name: 'Era Payee' } })).status).toBe(201);
    const [dp, db] = await Promise.all([
      sb.get(`/plans/${ids.budget_id}?last_knowledge_of_server=${k}`),
      sb.get(`/budgets/${ids.budget_id}?last_knowledge_of_server=${k}`),
    ]);
    expect(dp.body.data.plan).toEqual(db.body.data.budget);
    expect(dp.body.data.server_knowledge).toBe(db.body.data.server_knowledge);
    expect(dp.body.data.plan.payees.map((x: any) => x.name)).toEqual(['Era Payee']);
  });

  it('names the default budget default_budget or default_plan for an OAuth grant', async () => {
    const auth = await fetch(
      `${sb.appUrl}/oauth/authorize?${new URLSearchParams({ client_id: sb.oauthClientId, redirect_uri: 'http://localhost:9/cb', response_type: 'token' })}`,
      { redirect: 'manual' },
    );
    const token = new URLSearchParams(new URL(auth.headers.get('location')!).hash.slice(1)).get('access_token')!;
    const [p, b] = await Promise.all([sb.get('/plans', token), sb.get('/budgets', token)]);
    expect(p.body.data.default_plan).not.toBeNull();
    expect(p.body.data.default_plan).toEqual(b.body.data.default_budget);
    expect('default_plan' in b.body.data).toBe(false);
    const [dp, db] = await Promise.all([sb.get('/plans/default', token), sb.get('/budgets/default', token)]);
    expect(dp.body.data.plan.id).toBe(p.body.data.default_plan.id);
    expect(dp.body.data.plan).toEqual(db.body.data.budget);
  });
});

describe('where the /budgets era answers otherwise', () => {
  const since = '2000-01-01';
  const path = (era: string, rest: string) => `/${era}/${ids.budget_id}${rest}`;

  it("lists a month's transactions as hybrid rows: whole transactions, and a split as its lines", async () => {
    const month = (await sb.get(path('plans', '/months'))).body.data.months.at(-2).month;
    const [plans, budgets] = await Promise.all([
      sb.get(path('plans', `/months/${month}/transactions`)),
      sb.get(path('budgets', `/months/${month}/transactions`)),
    ]);
    expect([plans.status, budgets.status]).toEqual([200, 200]);
    const details: any[] = plans.body.data.transactions;
    const rows: any[] = budgets.body.data.transactions;
    for (const t of details) expect(exactShape(TransactionDetail, t)).toEqual([]);
    for (const r of rows) expect(exactShape(HybridTransaction, r)).toEqual([]);
    const splits = details.filter((t) => t.subtransactions.length);
    expect(splits.length).toBeGreaterThan(0);
    // A hybrid row always names a category (the description makes it a string): transfers and
    // tracking-account rows read "Uncategorized", as on the other hybrid lists.
    const name = (n: string | null) => n ?? 'Uncategorized';
    const expected = details.flatMap((t) =>
      t.subtransactions.length
        ? t.subtransactions.map((x: any) => ['subtransaction', x.id, t.id, x.amount, name(x.category_name)])
        : [['transaction', t.id, null, t.amount, name(t.category_name)]],
    );
    expect(rows.map((r) => [r.type, r.id, r.parent_transaction_id, r.amount, r.category_name])).toEqual(expected);
    expect(budgets.body.data.server_knowledge).toBe(plans.body.data.server_knowledge);
  });

  it('gives since_date no default and ignores until_date, on every list', async () => {
    const lists = reads.filter((op) => op.legacy?.sinceDateDefault === false && !op.legacy.data);
    expect(lists.map((op) => op.id).sort()).toEqual(['getTransactions', 'getTransactionsByAccount', 'getTransactionsByCategory', 'getTransactionsByPayee']);
    for (const op of lists) {
      const params = ids;
      const [plansDefault, budgetsDefault, plansAll] = await Promise.all([
        sb.get(buildPath(op, 'plans', params)),
        sb.get(buildPath(op, 'budgets', params)),
        sb.get(`${buildPath(op, 'plans', params)}?since_date=${since}`),
      ]);
      const dates = (r: any) => r.body.data.transactions.map((t: any) => t.date);
      expect(budgetsDefault.body.data.transactions, op.id).toEqual(plansAll.body.data.transactions);
      expect(Math.min(...dates(plansDefault).map(Date.parse)) >= Date.parse(today()) - 366 * 86_400_000, op.id).toBe(true);
      expect(dates(budgetsDefault).length, op.id).toBeGreaterThan(dates(plansDefault).length);
      const until = `?since_date=${since}&until_date=${since}`;
      const [plansUntil, budgetsUntil] = await Promise.all([sb.get(buildPath(op, 'plans', params) + until), sb.get(buildPath(op, 'budgets', params) + until)]);
      expect(plansUntil.body.data.transactions, op.id).toEqual([]);
      expect(budgetsUntil.body.data.transactions, op.id).toEqual(plansAll.body.data.transactions);
    }
  });

  it('answers bulk PATCH with 209 under /budgets and 200 under /plans; both apply', async () => {
    for (const [era, status] of [
      ['budgets', 209],
      ['plans', 200],
    ] as const) {
      const made = await sb.call('POST', path(era, '/transactions'), { transaction: { account_id: ids.account_id, date: today(), amount: -3_000 } });
      const res = await sb.call('PATCH', path(era, '/transactions'), { transactions: [{ id: made.body.data.transaction.id, memo: `patched via ${era}` }] });
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.data.transactions[0].memo).toBe(`patched via ${era}`);
      expect((await sb.get(path('plans', `/transactions/${made.body.data.transaction.id}`))).body.data.transaction.memo).toBe(`patched via ${era}`);
    }
  });
});

describe('writes under both prefixes', () => {
  it('create under one, read under the other, with the same member names', async () => {
    const made: Record<string, any> = {};
    for (const era of ['plans', 'budgets'] as const) {
      const res = await sb.call('POST', `/${era}/${ids.budget_id}/transactions`, {
        transaction: { account_id: ids.account_id, date: today(), amount: -7_000, memo: `via ${era}` },
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body.data).sort()).toEqual(['server_knowledge', 'transaction', 'transaction_ids']);
      made[era] = res.body.data.transaction;
    }
    const fromBudgets = await sb.get(`/budgets/${ids.budget_id}/transactions/${made.plans.id}`);
    expect(fromBudgets.body.data.transaction).toEqual(made.plans);
    const fromPlans = await sb.get(`/plans/${ids.budget_id}/transactions/${made.budgets.id}`);
    expect(fromPlans.body.data.transaction).toEqual(made.budgets);

    const month = await sb.call('PATCH', `/budgets/${ids.budget_id}/months/current/categories/${ids.category_id}`, { category: { budgeted: 1_230 } });
    expect(month.status).toBe(200);
    expect(Object.keys(month.body.data).sort()).toEqual(['category', 'server_knowledge']);
    expect((await sb.get(`/plans/${ids.budget_id}/months/current/categories/${ids.category_id}`)).body.data.category.budgeted).toBe(1_230);
  });

  it('an unknown prefix is 404.1', async () => {
    const res = await sb.get(`/planz/${ids.budget_id}/accounts`);
    expect(res.status).toBe(404);
    expect(res.body.error.id).toBe('404.1');
  });
});
