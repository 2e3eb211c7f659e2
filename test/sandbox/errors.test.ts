/**
 * Errors, auth and scope: every error body is {error:{id,name,detail}} with the spec's ids,
 * bad input gets a specific 400, and nothing is half-written by a refused request. Fields the API
 * does not define are ignored, as the service ignores them, unless the sandbox runs `--strict`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../src/api/operations/index.js';
import { buildPath } from '../../src/api/paths.js';
import { requestBodySchema } from '../../src/sandbox/body-schemas.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let budget: string;
let checking: any;
let category: any;

beforeAll(async () => {
  sb = await testSandbox();
  budget = `/budgets/${(await sb.get('/budgets')).body.data.budgets[0].id}`;
  const accounts = (await sb.get(`${budget}/accounts`)).body.data.accounts;
  checking = accounts.find((a: any) => a.type === 'checking' && !a.closed);
  const groups = (await sb.get(`${budget}/categories`)).body.data.category_groups;
  category = groups.filter((g: any) => !g.internal).flatMap((g: any) => g.categories)[0];
});

afterAll(() => sb.close());

function expectError(res: { status: number; body: any }, status: number, id: string, name: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error).toMatchObject({ id, name });
  expect(typeof res.body.error.detail).toBe('string');
  expect(res.body.error.detail.length).toBeGreaterThan(5);
}

const today = () => new Date().toISOString().slice(0, 10);

describe('authentication', () => {
  it('refuses a missing, unknown or malformed token with 401 not_authorized', async () => {
    expectError(await sb.get('/user', null), 401, '401', 'not_authorized');
    expectError(await sb.get('/user', 'nope'), 401, '401', 'not_authorized');
    const res = await fetch(`${sb.baseUrl}/user`, { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('accepts the token as the access_token query parameter', async () => {
    const res = await fetch(`${sb.baseUrl}/user?access_token=${encodeURIComponent(sb.accessToken)}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.user.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives a read-only token 403 unauthorized_scope on every write, and reads', async () => {
    const ids = {
      budget_id: 'last-used',
      account_id: checking.id,
      category_id: category.id,
      month: 'current',
      category_group_id: category.category_group_id,
      payee_id: checking.transfer_payee_id,
      transaction_id: 'x',
      scheduled_transaction_id: 'x',
    };
    const writes = OPERATIONS.filter((o) => o.access === 'write') as readonly Operation[];
    expect(writes).toHaveLength(16);
    for (const op of writes) {
      const res = await sb.call(op.method, buildPath(op, 'budgets', ids), op.body ? {} : undefined, sb.readOnlyToken);
      expectError(res, 403, '403.3', 'unauthorized_scope');
    }
    expect((await sb.get(`${budget}/accounts`, sb.readOnlyToken)).status).toBe(200);
  });
});

describe('not found', () => {
  it('answers 404.1 for an unknown path and a wrong method', async () => {
    expectError(await sb.get('/nothing-here'), 404, '404.1', 'not_found');
    expectError(await sb.call('DELETE', `${budget}/accounts`), 404, '404.1', 'not_found');
  });

  it('answers 404.2 for unknown resources', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await sb.get(`/budgets/${unknown}`), 404, '404.2', 'resource_not_found');
    expectError(await sb.get(`${budget}/accounts/${unknown}`), 404, '404.2', 'resource_not_found');
    expectError(await sb.get(`${budget}/categories/${unknown}`), 404, '404.2', 'resource_not_found');
    expectError(await sb.get(`${budget}/transactions/${unknown}`), 404, '404.2', 'resource_not_found');
    expectError(await sb.get(`${budget}/scheduled_transactions/${unknown}`), 404, '404.2', 'resource_not_found');
    expectError(await sb.get(`${budget}/months/1990-01-01`), 404, '404.2', 'resource_not_found');
  });

  it('resolves last-used, and default only for grants with default budget selection', async () => {
    expect((await sb.get('/budgets/last-used/settings')).status).toBe(200);
    const res = await sb.get('/budgets/default/accounts');
    expectError(res, 404, '404.2', 'resource_not_found');
    expect(res.body.error.detail).toMatch(/default budget/);
  });
});

describe('bad input gets a specific 400 and writes nothing', () => {
  async function knowledge() {
    return (await sb.get(`${budget}/accounts`)).body.data.server_knowledge as number;
  }

  const cases: [string, string, string, unknown, RegExp][] = [
    ['malformed JSON', 'POST', '/transactions', '{"transaction": ', /not valid JSON/],
    ['empty body', 'POST', '/transactions', '', /body is required/],
    ['wrong type', 'POST', '/transactions', { transaction: { account_id: 'A', date: 'D', amount: '12' } }, /amount: must be a number \(got string\)/],
    ['float amount', 'POST', '/transactions', { transaction: { account_id: 'A', date: 'D', amount: 1.5 } }, /amount: must be an integer/],
    [
      'over-long memo',
      'POST',
      '/transactions',
      { transaction: { account_id: 'A', date: 'D', amount: 1, memo: 'x'.repeat(501) } },
      /memo: must be at most 500 characters/,
    ],
    [
      'impossible date',
      'POST',
      '/transactions',
      { transaction: { account_id: 'A', date: '2023-02-30', amount: 1 } },
      /date: 2023-02-30 is not a date: February 2023 has 28 days/,
    ],
    ['future date', 'POST', '/transactions', { transaction: { account_id: 'A', date: '2999-01-01', amount: 1 } }, /date must not be in the future/],
    ['bad id', 'POST', '/transactions', { transaction: { account_id: 'not-a-uuid', date: 'D', amount: 1 } }, /account_id: must be formatted as a uuid/],
    [
      'unknown account',
      'POST',
      '/transactions',
      { transaction: { account_id: '00000000-0000-4000-8000-000000000000', date: 'D', amount: 1 } },
      /account_id .* does not exist/,
    ],
    [
      'bad split sum',
      'POST',
      '/transactions',
      { transaction: { account_id: 'A', date: 'D', amount: -1000, subtransactions: [{ amount: -400 }, { amount: -500 }] } },
      /sum of subtransaction amounts/,
    ],
    [
      'batch item error names its index',
      'POST',
      '/transactions',
      {
        transactions: [
          { account_id: 'A', date: 'D', amount: 1 },
          { account_id: 'A', date: '2999-01-01', amount: 1 },
        ],
      },
      /\(index: 1\)/,
    ],
    ['bad query date', 'GET', '/transactions?since_date=yesterday', undefined, /since_date: "yesterday" is not a date: write it YYYY-MM-DD/],
    ['bad query type', 'GET', '/transactions?type=pending', undefined, /type must be one of uncategorized, unapproved/],
    ['bad knowledge', 'GET', '/accounts?last_knowledge_of_server=-1', undefined, /last_knowledge_of_server must be a non-negative integer/],
    ['bad month', 'GET', '/months/2024-13-01', undefined, /month must be "current" or the first day of a month/],
    ['over-long group name', 'POST', '/category_groups', { category_group: { name: 'g'.repeat(51) } }, /at most 50 characters/],
    ['bad account type', 'POST', '/accounts', { account: { name: 'X', type: 'mortgage', balance: 0 } }, /type: must be one of/],
    [
      'scheduled in the past',
      'POST',
      '/scheduled_transactions',
      { scheduled_transaction: { account_id: 'A', date: '2020-01-01', amount: 1 } },
      /must be a future date/,
    ],
  ];

  it.each(cases)('%s', async (_name, method, path, body, detail) => {
    const fill = (v: unknown): unknown => (typeof v === 'string' ? v.replace(/^A$/, checking.id).replace(/^D$/, today()) : v);
    const filled = body && typeof body === 'object' ? JSON.parse(JSON.stringify(body), (_k, v) => fill(v)) : body;
    const before = await knowledge();
    const res = await sb.call(method, `${budget}${path}`, filled);
    expectError(res, 400, '400', 'bad_request');
    expect(res.body.error.detail).toMatch(detail);
    expect(await knowledge()).toBe(before);
  });

  it('refuses a body over 10 MB and stays up', async () => {
    const res = await sb.call('POST', `${budget}/payees`, { payee: { name: 'x'.repeat(11 * 1024 * 1024) } });
    expectError(res, 400, '400', 'bad_request');
    expect((await sb.get('/user')).status).toBe(200);
  });
});

/**
 * The service ignores fields a request body does not define. The description says so for
 * updateMonthCategory ("any other fields specified will be ignored"), and clients rely on it:
 * bank2ynab sends `category` with every transaction, and a client that sends back what it read
 * sends `activity` or `date_first`. Defined fields are still checked: a wrong type is a 400.
 */
describe('fields the API does not define', () => {
  let strict: TestSandbox;
  let strictBudget: string;

  beforeAll(async () => {
    strict = await testSandbox({ strict: true });
    strictBudget = `/budgets/${(await strict.get('/budgets')).body.data.budgets[0].id}`;
  });

  afterAll(() => strict.close());

  const nextWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

  /** The three requests of issue 24, each with a field the API does not define. */
  const requests = () => [
    { method: 'PATCH', path: `/months/current/categories/${category.id}`, body: { category: { budgeted: 1000, activity: 5 } }, unknown: 'activity' },
    {
      method: 'POST',
      path: '/transactions',
      body: { transaction: { account_id: checking.id, date: today(), amount: -1234, payee_name: 'bank2ynab', category: '' } },
      unknown: 'category',
    },
    {
      method: 'POST',
      path: '/scheduled_transactions',
      body: { scheduled_transaction: { account_id: checking.id, date: nextWeek(), date_first: '2020-01-01', amount: -5000, frequency: 'monthly' } },
      unknown: 'date_first',
    },
  ];

  it('accepts them and ignores those fields, as the service does', async () => {
    const activity = (await sb.get(`${budget}/months/current/categories/${category.id}`)).body.data.category.activity;
    const [patch, post, scheduled] = requests();

    const assigned = await sb.call(patch!.method, `${budget}${patch!.path}`, patch!.body);
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body.data.category).toMatchObject({ id: category.id, budgeted: 1000, activity });

    const created = await sb.call(post!.method, `${budget}${post!.path}`, post!.body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.transaction).toMatchObject({ amount: -1234, payee_name: 'bank2ynab', category_id: null });
    expect(created.body.data.transaction).not.toHaveProperty('category');

    const planned = await sb.call(scheduled!.method, `${budget}${scheduled!.path}`, scheduled!.body);
    expect(planned.status, JSON.stringify(planned.body)).toBe(201);
    expect(planned.body.data.scheduled_transaction).toMatchObject({ date_first: nextWeek(), amount: -5000, frequency: 'monthly' });
  });

  it('ignores them at every depth: the wrapper, a list of transactions, a split line', async () => {
    const res = await sb.call('POST', `${budget}/transactions`, {
      server_knowledge: 12,
      transactions: [
        { account_id: checking.id, date: today(), amount: -3000, flag_name: 'x', subtransactions: [{ amount: -1000, category_name: 'x' }, { amount: -2000 }] },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.transactions[0].subtransactions.map((s: any) => s.amount)).toEqual([-1000, -2000]);
  });

  it('every write body has a stripping schema, and the shared schemas stay strict', () => {
    for (const op of OPERATIONS as readonly Operation[]) {
      if (!op.body) continue;
      const lenient = requestBodySchema(op.body, false);
      expect(lenient, op.id).not.toBe(op.body);
      expect(requestBodySchema(op.body, true), op.id).toBe(op.body);
    }
    // The client and the MCP tools still refuse a field the API does not define.
    const month = (OPERATIONS as readonly Operation[]).find((o) => o.id === 'updateMonthCategory')!;
    expect(month.body!.safeParse({ category: { budgeted: 1, activity: 5 } }).success).toBe(false);
    expect(requestBodySchema(month.body!, false).safeParse({ category: { budgeted: 1, activity: 5 } })).toMatchObject({
      success: true,
      data: { category: { budgeted: 1 } },
    });
  });

  it('still refuses a defined field of the wrong type, and writes nothing', async () => {
    const before = (await sb.get(`${budget}/accounts`)).body.data.server_knowledge;
    const res = await sb.call('PATCH', `${budget}/months/current/categories/${category.id}`, { category: { budgeted: '1000', activity: 5 } });
    expectError(res, 400, '400', 'bad_request');
    expect(res.body.error.detail).toMatch(/category\.budgeted: must be a number \(got string\)/);
    expect(res.body.error.detail).not.toMatch(/activity/);
    expect((await sb.get(`${budget}/accounts`)).body.data.server_knowledge).toBe(before);
  });

  it('--strict refuses each of them with a 400 naming the field, and writes nothing', async () => {
    const accounts = (await strict.get(`${strictBudget}/accounts`)).body.data;
    const account = accounts.accounts.find((a: any) => a.type === 'checking' && !a.closed);
    const groups = (await strict.get(`${strictBudget}/categories`)).body.data.category_groups;
    const strictCategory = groups.filter((g: any) => !g.internal).flatMap((g: any) => g.categories)[0];
    for (const r of requests()) {
      // The same requests, against the strict sandbox's own ids.
      const text = JSON.stringify(r.body).replaceAll(checking.id, account.id);
      const path = r.path.replace(category.id, strictCategory.id);
      const res = await strict.call(r.method, `${strictBudget}${path}`, text);
      expectError(res, 400, '400', 'bad_request');
      expect(res.body.error.detail).toContain(`unknown field "${r.unknown}"`);
    }
    expect((await strict.get(`${strictBudget}/accounts`)).body.data.server_knowledge).toBe(accounts.server_knowledge);
  });
});
