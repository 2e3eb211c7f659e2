/**
 * `--users N`: each user has their own demo budgets (different seeds, so different data) and
 * tokens, listed in the announcement; every token reaches only its own user's budgets, through
 * every budget-scoped operation; `/oauth/authorize` signs in as the user named by `login=<email>`
 * (the first user without it); and the users, their tokens, budgets and grants persist with --data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../src/api/operations/index.js';
import { buildPath } from '../../src/api/paths.js';
import type { Announcement } from '../../src/sandbox/app.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { killAllCli, runCli, startCli } from './cli-process.js';

let sb: TestSandbox;
let a: Announcement;
let dir: string;

beforeAll(async () => {
  sb = await testSandbox({ users: 3, rateLimit: 1_000_000 });
  a = sb.announcement();
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-users-'));
});

afterAll(async () => {
  await sb.close();
  await killAllCli();
  rmSync(dir, { recursive: true, force: true });
});

const as = (token: string) => ({
  get: (path: string) => sb.get(path, token),
  call: (method: string, path: string, body?: unknown) => sb.call(method, path, body, token),
});

async function authorize(params: Record<string, string>) {
  const res = await fetch(
    `${sb.appUrl}/oauth/authorize?${new URLSearchParams({ client_id: sb.oauthClientId, redirect_uri: 'http://127.0.0.1:9/cb', ...params })}`,
    { redirect: 'manual' },
  );
  return { status: res.status, location: res.headers.get('location'), body: await res.text() };
}

describe('users', () => {
  it('are announced with their own tokens; the first user keeps the top-level fields', () => {
    expect(a.users).toHaveLength(3);
    expect(a.users[0]).toEqual({ email: 'user1@sandbox.ynab-mcp.test', access_token: a.access_token, read_only_token: a.read_only_token });
    expect(new Set(a.users.map((u) => u.email)).size).toBe(3);
    expect(new Set(a.users.flatMap((u) => [u.access_token, u.read_only_token])).size).toBe(6);
  });

  it('each have their own id and demo budgets, with different data', async () => {
    const seen = new Map<string, any[]>();
    const userIds = new Set<string>();
    for (const u of a.users) {
      userIds.add((await as(u.access_token).get('/user')).body.data.user.id);
      const plans = (await as(u.access_token).get('/plans')).body.data.plans;
      expect(plans.map((p: any) => p.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
      const txns = (await as(u.access_token).get(`/plans/${plans[0].id}/transactions?since_date=2000-01-01`)).body.data.transactions;
      seen.set(u.email, [plans.map((p: any) => p.id), txns.slice(0, 50).map((t: any) => [t.date, t.amount, t.payee_name])]);
    }
    expect(userIds.size).toBe(3);
    const [one, two, three] = [...seen.values()];
    for (const [x, y] of [
      [one, two],
      [one, three],
      [two, three],
    ] as const) {
      expect(x![0].filter((id: string) => y![0].includes(id))).toEqual([]);
      expect(x![1]).not.toEqual(y![1]);
    }
  });
});

describe('a token reaches only its own user', () => {
  it("gets 404 for another user's budget on every budget-scoped operation, reads and writes alike", async () => {
    const [one, two] = a.users;
    const mine = (await as(one!.access_token).get('/plans')).body.data.plans[0].id;
    const b = `/plans/${mine}`;
    const accounts = (await as(one!.access_token).get(`${b}/accounts`)).body.data.accounts;
    const categories = (await as(one!.access_token).get(`${b}/categories`)).body.data.category_groups.flatMap((g: any) => g.categories);
    const txns = (await as(one!.access_token).get(`${b}/transactions`)).body.data.transactions;
    const scheduled = (await as(one!.access_token).get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions;
    const locations = (await as(one!.access_token).get(`${b}/payee_locations`)).body.data.payee_locations;
    const params = {
      budget_id: mine,
      account_id: accounts[0].id,
      category_id: categories.find((c: any) => !c.internal).id,
      category_group_id: categories.find((c: any) => !c.internal).category_group_id,
      payee_id: txns[0].payee_id,
      payee_location_id: locations[0].id,
      transaction_id: txns[0].id,
      scheduled_transaction_id: scheduled[0].id,
      month: 'current',
    };
    const knowledge = (await as(one!.access_token).get(b)).body.data.server_knowledge;
    const scoped = (OPERATIONS as readonly Operation[]).filter((op) => op.scope === 'budget');
    expect(scoped.length).toBeGreaterThan(35);
    for (const op of scoped) {
      // A body that would be valid for the operation, so only the budget decides.
      const body = op.body ? validBody(op, params) : undefined;
      const res = await sb.call(op.method, buildPath(op, 'plans', params), body, two!.access_token);
      expect(res.status, `${op.id}: ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.error.detail, op.id).toMatch(/budget .* was not found/);
    }
    // Nothing was written to user 1's budget.
    expect((await as(one!.access_token).get(`${b}?last_knowledge_of_server=${knowledge}`)).body.data.server_knowledge).toBe(knowledge);
    // last-used and the budget list stay within the user.
    const theirs = (await as(two!.access_token).get('/plans/last-used')).body.data.plan.id;
    expect((await as(two!.access_token).get('/plans')).body.data.plans.map((p: any) => p.id)).toContain(theirs);
    expect((await as(one!.access_token).get('/plans/last-used')).body.data.plan.id).toBe(mine);
  });
});

describe('signing in', () => {
  it('approves as the user named by login=<email>, the first without it; an unknown login is refused', async () => {
    const [one, , three] = a.users;
    const idOf = async (token: string) => (await as(token).get('/user')).body.data.user.id;
    const implicit = async (params: Record<string, string>) => {
      const res = await authorize({ response_type: 'token', ...params });
      expect(res.status, res.body).toBe(302);
      return new URLSearchParams(new URL(res.location!).hash.slice(1)).get('access_token')!;
    };
    expect(await idOf(await implicit({ login: three!.email }))).toBe(await idOf(three!.access_token));
    expect(await idOf(await implicit({ login: three!.email.toUpperCase() }))).toBe(await idOf(three!.access_token));
    expect(await idOf(await implicit({}))).toBe(await idOf(one!.access_token));

    // The code grant too, with default budget selection on the signed-in user's first budget.
    const code = new URL((await authorize({ response_type: 'code', login: three!.email })).location!).searchParams.get('code')!;
    const tokenRes = await fetch(`${sb.appUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'http://127.0.0.1:9/cb',
        client_id: sb.oauthClientId,
        client_secret: sb.oauthClientSecret,
      }),
    });
    const token = ((await tokenRes.json()) as any).access_token;
    expect(await idOf(token)).toBe(await idOf(three!.access_token));
    const theirs = (await as(three!.access_token).get('/plans')).body.data.plans;
    expect((await as(token).get('/plans')).body.data.default_plan.id).toBe(theirs[0].id);
    expect((await as(token).get('/plans/default')).body.data.plan.id).toBe(theirs[0].id);

    const unknown = await authorize({ response_type: 'code', login: 'nobody@example.com' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toContain('nobody@example.com');
  });
});

describe('--users with --data', () => {
  it('keeps the users, their tokens, budgets, writes and grants across a restart', async () => {
    const file = join(dir, 'users.json');
    const first = startCli(['sandbox', '--port', '0', '--users', '2', '--data', file]);
    const a1 = await first.announcement;
    expect(a1.users).toHaveLength(2);
    const two = a1.users[1]!;
    const call = async (ann: typeof a1, method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(`${ann.base_url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const budget = (await call(a1, 'GET', '/plans', two.access_token)).body.data.plans[0].id;
    const payee = await call(a1, 'POST', `/plans/${budget}/payees`, two.access_token, { payee: { name: 'Second User Payee' } });
    expect(payee.status).toBe(201);
    const auth = await fetch(
      `${a1.app_url}/oauth/authorize?${new URLSearchParams({ client_id: a1.oauth_client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'token', login: two.email })}`,
      { redirect: 'manual' },
    );
    const oauthToken = new URLSearchParams(new URL(auth.headers.get('location')!).hash.slice(1)).get('access_token')!;
    expect((await first.stop()).code).toBe(0);

    const second = startCli(['sandbox', '--port', '0', '--data', file]);
    const a2 = await second.announcement;
    expect(a2.users).toEqual(a1.users);
    const payees = (await call(a2, 'GET', `/plans/${budget}/payees`, two.access_token)).body.data.payees;
    expect(payees.map((p: any) => p.name)).toContain('Second User Payee');
    expect((await call(a2, 'GET', `/plans/${budget}/payees`, oauthToken)).status).toBe(200);
    expect((await call(a2, 'GET', `/plans/${budget}/payees`, a2.access_token)).status).toBe(404);
    expect((await second.stop()).code).toBe(0);

    // More users later: the saved ones stay, a new one is added.
    const third = startCli(['sandbox', '--port', '0', '--users', '3', '--data', file]);
    const a3 = await third.announcement;
    expect(a3.users.slice(0, 2)).toEqual(a1.users);
    expect(a3.users).toHaveLength(3);
    expect((await third.stop()).code).toBe(0);
  });

  it('refuses --users outside 1..100 as a usage error', async () => {
    for (const n of ['0', '101', 'two']) {
      const run = await runCli(['sandbox', '--users', n]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/--users/);
    }
  });
});

/** A body the operation accepts, for ids of user 1's budget. */
function validBody(op: Operation, p: Record<string, string>): unknown {
  const today = new Date().toISOString().slice(0, 10);
  const future = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  switch (op.id) {
    case 'createAccount':
      return { account: { name: 'Intruder', type: 'checking', balance: 0 } };
    case 'createCategory':
      return { category: { name: 'Intruder', category_group_id: p.category_group_id } };
    case 'updateCategory':
      return { category: { note: 'intruder' } };
    case 'updateMonthCategory':
      return { category: { budgeted: 1_000 } };
    case 'createCategoryGroup':
    case 'updateCategoryGroup':
      return { category_group: { name: 'Intruder' } };
    case 'createPayee':
    case 'updatePayee':
      return { payee: { name: 'Intruder' } };
    case 'createTransaction':
      return { transaction: { account_id: p.account_id, date: today, amount: -1_000 } };
    case 'updateTransaction':
      return { transaction: { memo: 'intruder' } };
    case 'updateTransactions':
      return { transactions: [{ id: p.transaction_id, memo: 'intruder' }] };
    case 'createScheduledTransaction':
    case 'updateScheduledTransaction':
      return { scheduled_transaction: { account_id: p.account_id, date: future, amount: -1_000, frequency: 'monthly' } };
    default:
      return {};
  }
}
