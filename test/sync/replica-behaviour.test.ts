/**
 * How replicas spend requests: reads within the staleness bound cost nothing, concurrent reads
 * share one delta, a write is visible at once and the next read reconciles it, a 429 stops all
 * requests until the window frees a slot, and replicas are evicted least recently used first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, QuotaExhaustedError } from '../../src/api/client/errors.js';
import type { RequestInfo } from '../../src/api/client/transport.js';
import { createStack, type StackOptions } from '../../src/stack/stack.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;
let budgets: string[];
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  sb = await testSandbox({ seed: 'behaviour', rateLimit: 10_000 });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-behaviour-'));
  budgets = (await sb.get('/budgets')).body.data.budgets.map((b: any) => b.id);
});

afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(opts: Partial<StackOptions> = {}, token = sb.accessToken) {
  const requests: RequestInfo[] = [];
  const stack = createStack({
    credentials: { token: async () => token },
    baseUrl: sb.baseUrl,
    stateDir: mkdtempSync(join(dir, 's-')),
    persist: false,
    onRequest: (r) => requests.push(r),
    ...opts,
  });
  return { stack, requests };
}

describe('freshness', () => {
  it('answers repeated reads within the staleness bound without a request', async () => {
    const { stack, requests } = start({ maxStalenessMs: 60_000 });
    const params = { budget_id: budgets[0]! };
    const first = await stack.service.call('getAccounts', { params });
    for (const id of ['getAccounts', 'getCategories', 'getTransactions', 'getPlanMonths', 'getPayees', 'getScheduledTransactions'] as const) {
      await stack.service.call(id, { params });
    }
    expect(requests).toHaveLength(1);
    expect(first.freshness).toMatchObject({ source: 'replica', stale: false });
    await stack.close();
  });

  it('concurrent reads past the bound share one delta request', async () => {
    const { stack, requests } = start({ maxStalenessMs: 0 });
    const params = { budget_id: budgets[0]! };
    await stack.service.call('getAccounts', { params });
    await Promise.all(Array.from({ length: 25 }, () => stack.service.call('getTransactions', { params })));
    expect(requests).toHaveLength(2);
    expect(requests[1]!.query.last_knowledge_of_server).toBeDefined();
    await stack.close();
  });
});

describe('writes', () => {
  it('are visible at once and reconciled by the next read', async () => {
    const { stack, requests } = start({ maxStalenessMs: 60_000 });
    const params = { budget_id: budgets[0]! };
    const accounts = (await stack.service.call('getAccounts', { params })).data.accounts;
    const checking = accounts.find((a: any) => a.type === 'checking' && !a.closed);
    const savings = accounts.find((a: any) => a.type === 'savings' && !a.closed);
    const created = await stack.service.call('createTransaction', {
      params,
      body: { transaction: { account_id: checking.id, date: today, amount: -25_000, payee_id: savings.transfer_payee_id } },
    });
    const id = created.data.transaction.id;
    const before = requests.length;
    // Read-your-writes: the next read syncs first, so it shows the transfer's other side and new balances.
    const txns = (await stack.service.call('getTransactions', { params })).data.transactions;
    expect(requests.length).toBe(before + 1);
    const pair = txns.find((t: any) => t.transfer_transaction_id === id);
    expect(pair).toMatchObject({ account_id: savings.id, amount: 25_000 });
    const after = (await stack.service.call('getAccounts', { params })).data.accounts;
    expect(after.find((a: any) => a.id === checking.id).balance).toBe(checking.balance - 25_000);
    expect(requests.length).toBe(before + 1);
    await stack.close();
  });

  it('answer from the write even when no request is possible afterwards', async () => {
    const { stack, requests } = start({ maxStalenessMs: 60_000 });
    const params = { budget_id: budgets[1]! };
    const accounts = (await stack.service.call('getAccounts', { params })).data.accounts;
    const created = await stack.service.call('createTransaction', {
      params,
      body: { transaction: { account_id: accounts[0].id, date: today, amount: -1_230, payee_name: 'Offline Shop' } },
    });
    // The service now refuses this token for a while (as after a 429): nothing may go out.
    await stack.ledger(sb.accessToken).recordRateLimited(1800);
    const sent = requests.length;
    const res = await stack.service.call('getTransactionById', { params: { ...params, transaction_id: created.data.transaction.id } });
    expect(requests.length).toBe(sent);
    expect(res.data.transaction.payee_name).toBe('Offline Shop');
    expect(res.freshness).toMatchObject({ stale: true });
    expect((res.freshness as any).notice).toMatch(/next request possible at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in [^)]+\)/);
    await stack.close();
  });
});

describe('429', () => {
  it('after a 429, no request goes out until the window frees a slot', async () => {
    const small = await testSandbox({ seed: 'limit', rateLimit: 3, token: 'sbx_pat_limit_test_token_1234' });
    try {
      // This process does not share a ledger with whoever else spends the token's budget.
      for (let i = 0; i < 3; i++) expect((await small.get('/user')).status).toBe(200);
      const requests: RequestInfo[] = [];
      const stack = createStack({
        credentials: { token: async () => small.accessToken },
        baseUrl: small.baseUrl,
        stateDir: mkdtempSync(join(dir, 's-')),
        persist: false,
        onRequest: (r) => requests.push(r),
      });
      const e1 = await stack.client.call('getUser').catch((e) => e);
      expect(e1).toBeInstanceOf(ApiError);
      expect(e1.status).toBe(429);
      expect(requests).toHaveLength(1);
      const e2 = await stack.client.call('getPlans').catch((e) => e);
      expect(e2).toBeInstanceOf(QuotaExhaustedError);
      expect(e2.message).toMatch(/next request possible at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in [^)]+\)/);
      expect(requests).toHaveLength(1);
      await stack.close();
    } finally {
      await small.close();
    }
  });
});

describe('memory', () => {
  it('evicts the least recently used budget when over the size bound', async () => {
    const measure = start({ maxStalenessMs: 60_000 });
    await measure.stack.service.call('getAccounts', { params: { budget_id: budgets[0]! } });
    await measure.stack.service.call('getAccounts', { params: { budget_id: budgets[1]! } });
    const sizes = new Map(measure.stack.replicas.held().map((r) => [r.summary.id, r.approximateSize()]));
    await measure.stack.close();
    // Room for either budget, not both.
    const { stack } = start({ maxStalenessMs: 60_000, maxReplicaBytes: sizes.get(budgets[0]!)! + sizes.get(budgets[1]!)! - 1 });
    await stack.service.call('getAccounts', { params: { budget_id: budgets[1]! } });
    expect(stack.replicas.held().map((r) => r.summary.id)).toEqual([budgets[1]]);
    await stack.service.call('getAccounts', { params: { budget_id: budgets[0]! } });
    expect(stack.replicas.held().map((r) => r.summary.id)).toEqual([budgets[0]]);
    await stack.close();
  });
});

describe('operations outside the export', () => {
  it('are cached by key for a while', async () => {
    const { stack, requests } = start({ maxStalenessMs: 60_000 });
    await stack.service.call('getUser');
    await stack.service.call('getUser');
    await stack.service.call('getPlans');
    await stack.service.call('getPlans');
    const mm = await stack.service.call('getMoneyMovements', { params: { budget_id: budgets[0]! } });
    await stack.service.call('getMoneyMovements', { params: { budget_id: budgets[0]! } });
    expect(requests).toHaveLength(3);
    expect(mm.freshness).toMatchObject({ source: 'api' });
    await stack.close();
  });
});
