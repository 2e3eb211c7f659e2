/**
 * Every read operation answers, over real HTTP and under both path prefixes, with exactly the
 * shape of its `data` schema in the operations table (under /budgets, the era's own schema where
 * the table declares one): all fields present (null for no value), no undeclared fields, member
 * names of the era that was asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberName, OPERATIONS, type Era, type Operation } from '../../src/api/operations/index.js';
import { buildPath } from '../../src/api/paths.js';
import { HANDLERS } from '../../src/sandbox/handlers/index.js';
import { exactShape } from '../helpers/shape.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
const ids: Record<string, string> = {};

beforeAll(async () => {
  sb = await testSandbox();
  const budgets = await sb.get('/budgets');
  ids.budget_id = budgets.body.data.budgets[0].id;
  const b = `/budgets/${ids.budget_id}`;
  const accounts = (await sb.get(`${b}/accounts`)).body.data.accounts;
  ids.account_id = accounts[0].id;
  const groups = (await sb.get(`${b}/categories`)).body.data.category_groups;
  ids.category_id = groups.flatMap((g: any) => g.categories).find((c: any) => c.goal_type)?.id;
  ids.category_group_id = groups[0].id;
  const locations = (await sb.get(`${b}/payee_locations`)).body.data.payee_locations;
  ids.payee_location_id = locations[0].id;
  ids.payee_id = locations[0].payee_id;
  const txns = (await sb.get(`${b}/transactions`)).body.data.transactions;
  ids.transaction_id = txns.find((t: any) => t.subtransactions.length > 0).id;
  const scheduled = (await sb.get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions;
  ids.scheduled_transaction_id = scheduled.find((s: any) => s.subtransactions.length > 0)?.id ?? scheduled[0].id;
  ids.month = 'current';
});

afterAll(() => sb.close());

const reads = OPERATIONS.filter((op) => op.access === 'read') as readonly Operation[];

describe('the operations table', () => {
  it('declares the 44 operations of the spec, each with one handler', () => {
    expect(OPERATIONS).toHaveLength(44);
    expect(new Set(OPERATIONS.map((o) => o.id)).size).toBe(44);
    expect(new Set(OPERATIONS.map((o) => o.tool.name)).size).toBe(44);
    expect(OPERATIONS.filter((o) => !HANDLERS[o.id]).map((o) => o.id)).toEqual([]);
    expect(Object.keys(HANDLERS).filter((id) => !OPERATIONS.some((o) => o.id === id))).toEqual([]);
  });
});

describe.each(['budgets', 'plans'] as Era[])('every read operation under /%s', (era) => {
  it.each(reads.map((op) => [op.id, op] as const))('%s answers in its exact shape', async (_id, op) => {
    const path = buildPath(op, era, ids);
    const query = op.id === 'getPlans' ? '?include_accounts=true' : '';
    const res = await sb.get(path + query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Members are named for the era (budgets/budget/default_budget under /budgets).
    const expectedMembers = Object.keys(op.data.shape).map((k) => memberName(op, k, era));
    for (const member of Object.keys(res.body.data)) expect(expectedMembers).toContain(member);
    // Rename back to the table's names, then check the shape exactly.
    const data: Record<string, unknown> = {};
    for (const key of Object.keys(op.data.shape)) {
      const wire = memberName(op, key, era);
      if (wire in res.body.data) data[key] = res.body.data[wire];
    }
    const schema = era === 'budgets' ? (op.legacy?.data ?? op.data) : op.data;
    expect(exactShape(schema, data)).toEqual([]);
  });
});

describe('shape details', () => {
  it('formats amounts in the budget currency, USD and EUR alike', async () => {
    const budgets = (await sb.get('/budgets')).body.data.budgets;
    const eur = budgets.find((b: any) => b.currency_format.iso_code === 'EUR');
    expect(eur).toBeDefined();
    const accounts = (await sb.get(`/budgets/${eur.id}/accounts`)).body.data.accounts;
    const a = accounts.find((x: any) => Math.abs(x.balance) >= 1_000_000);
    expect(a.balance_formatted).toMatch(/^-?\d{1,3}(\.\d{3})*,\d{2}€$/);
    const usd = (await sb.get(`/budgets/${ids.budget_id}/accounts`)).body.data.accounts[0];
    expect(usd.balance_formatted).toMatch(/^-?\$\d{1,3}(,\d{3})*\.\d{2}$/);
    expect(usd.balance_currency * 1000).toBeCloseTo(usd.balance, 6);
  });

  it('always sends required arrays and nulls, never omits a field', async () => {
    const txns = (await sb.get(`/budgets/${ids.budget_id}/transactions`)).body.data.transactions;
    const plain = txns.find((t: any) => t.subtransactions.length === 0 && t.memo === null);
    expect(plain.subtransactions).toEqual([]);
    expect(plain).toHaveProperty('memo', null);
    expect(plain).toHaveProperty('flag_name');
  });

  it('answers CORS preflight and sends CORS headers', async () => {
    const pre = await fetch(`${sb.baseUrl}/budgets`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    const res = await sb.get('/user');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});
