/**
 * Errors, auth and scope: every error body is {error:{id,name,detail}} with the spec's ids,
 * bad input gets a specific 400, and nothing is half-written by a refused request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type Operation } from '../../src/api/operations/index.js';
import { buildPath } from '../../src/api/paths.js';
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
    const ids = { budget_id: 'last-used', account_id: checking.id, category_id: category.id, month: 'current', category_group_id: category.category_group_id, payee_id: checking.transfer_payee_id, transaction_id: 'x', scheduled_transaction_id: 'x' };
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
    ['unknown field', 'POST', '/transactions', { transaction: { account_id: 'A', date: 'D', amount: 1, colour: 'red' } }, /unknown field "colour"/],
    ['over-long memo', 'POST', '/transactions', { transaction: { account_id: 'A', date: 'D', amount: 1, memo: 'x'.repeat(501) } }, /memo: must be at most 500 characters/],
    ['impossible date', 'POST', '/transactions', { transaction: { account_id: 'A', date: '2023-02-30', amount: 1 } }, /date: must be a valid ISO date/],
    ['future date', 'POST', '/transactions', { transaction: { account_id: 'A', date: '2999-01-01', amount: 1 } }, /date must not be in the future/],
    ['bad id', 'POST', '/transactions', { transaction: { account_id: 'not-a-uuid', date: 'D', amount: 1 } }, /account_id: must be formatted as a uuid/],
    ['unknown account', 'POST', '/transactions', { transaction: { account_id: '00000000-0000-4000-8000-000000000000', date: 'D', amount: 1 } }, /account_id .* does not exist/],
    ['bad split sum', 'POST', '/transactions', { transaction: { account_id: 'A', date: 'D', amount: -1000, subtransactions: [{ amount: -400 }, { amount: -500 }] } }, /sum of subtransaction amounts/],
    ['batch item error names its index', 'POST', '/transactions', { transactions: [{ account_id: 'A', date: 'D', amount: 1 }, { account_id: 'A', date: '2999-01-01', amount: 1 }] }, /\(index: 1\)/],
    ['bad query date', 'GET', '/transactions?since_date=yesterday', undefined, /since_date must be a valid ISO date/],
    ['bad query type', 'GET', '/transactions?type=pending', undefined, /type must be one of uncategorized, unapproved/],
    ['bad knowledge', 'GET', '/accounts?last_knowledge_of_server=-1', undefined, /last_knowledge_of_server must be a non-negative integer/],
    ['bad month', 'GET', '/months/2024-13-01', undefined, /month must be "current" or the first day of a month/],
    ['over-long group name', 'POST', '/category_groups', { category_group: { name: 'g'.repeat(51) } }, /at most 50 characters/],
    ['bad account type', 'POST', '/accounts', { account: { name: 'X', type: 'mortgage', balance: 0 } }, /type: must be one of/],
    ['scheduled in the past', 'POST', '/scheduled_transactions', { scheduled_transaction: { account_id: 'A', date: '2020-01-01', amount: 1 } }, /must be a future date/],
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
