/**
 * Replicas survive restarts: a new process with a saved replica needs exactly one request, a
 * delta; a saved file that cannot be decrypted or parsed is discarded and the budget fetched
 * again, without a crash; saved files are encrypted, 0600, and hold no token. Base URLs that
 * would carry the token unencrypted are refused.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/api/client/errors.js';
import { Transport, type RequestInfo } from '../../src/api/client/transport.js';
import { fileKey } from '../../src/sync/persist.js';
import { createStack } from '../../src/stack/stack.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;

beforeAll(async () => {
  sb = await testSandbox({ seed: 'restart', rateLimit: 10_000, token: 'sbx_pat_restart_DISTINCTIVE_9f3k2' });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-restart-'));
});

afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(log: string[] = []) {
  const requests: RequestInfo[] = [];
  const stack = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: sb.baseUrl,
    stateDir: dir,
    keySource: fileKey(join(dir, 'test.key')),
    maxStalenessMs: 0,
    onRequest: (r) => requests.push(r),
    log: (l) => log.push(l),
  });
  return { stack, requests };
}

function replicaFiles(): string[] {
  const root = join(dir, 'replicas');
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.replica'))
    .map((e) => join(e.parentPath, e.name));
}

describe('persisted replicas', () => {
  it('a restart costs exactly one delta request', async () => {
    const first = start();
    const a = await first.stack.service.call('getTransactions', { params: { budget_id: 'last-used' } });
    expect(first.requests).toHaveLength(1);
    expect(first.requests[0]!.query).toEqual({});
    await first.stack.close();

    // Something changes on the service while the server is down.
    const budget = (await sb.get('/budgets')).body.data.budgets[0];
    const account = (await sb.get(`/budgets/${budget.id}/accounts`)).body.data.accounts.find((x: any) => x.on_budget && !x.closed);
    const created = await sb.call('POST', `/budgets/${budget.id}/transactions`, {
      transaction: { account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -4_560, payee_name: 'While Down' },
    });

    const second = start();
    const b = await second.stack.service.call('getTransactions', { params: { budget_id: 'last-used' } });
    expect(second.requests).toHaveLength(1);
    expect(Number(second.requests[0]!.query.last_knowledge_of_server)).toBe(a.data.server_knowledge);
    expect(b.data.transactions.map((t: any) => t.id)).toContain(created.body.data.transaction.id);
    expect(b.data).toEqual((await sb.get(`/plans/${budget.id}/transactions`)).body.data);
    await second.stack.close();
  });

  it('saved files are encrypted, private, and carry no token', () => {
    const files = replicaFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      expect(statSync(f).mode & 0o777).toBe(0o600);
      const bytes = readFileSync(f);
      expect(bytes.includes(Buffer.from(sb.accessToken))).toBe(false);
      // Encrypted: no budget text is readable in it.
      expect(bytes.includes(Buffer.from('Demo Household'))).toBe(false);
      expect(bytes.includes(Buffer.from('"transactions"'))).toBe(false);
    }
  });

  it('a corrupted file leads to a full resync, never a crash', async () => {
    for (const f of replicaFiles()) {
      const bytes = readFileSync(f);
      bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
      writeFileSync(f, bytes);
    }
    const log: string[] = [];
    const third = start(log);
    const c = await third.stack.service.call('getAccounts', { params: { budget_id: 'last-used' } });
    expect(third.requests).toHaveLength(1);
    expect(third.requests[0]!.query).toEqual({});
    expect(log.join('\n')).toMatch(/could not be read .* fetched again/);
    const budget = (await sb.get('/budgets')).body.data.budgets[0];
    expect(c.data).toEqual((await sb.get(`/plans/${budget.id}/accounts`)).body.data);
    await third.stack.close();
    // Saved again, readable by the next start.
    const fourth = start();
    await fourth.stack.service.call('getAccounts', { params: { budget_id: 'last-used' } });
    expect(fourth.requests.map((r) => r.query.last_knowledge_of_server !== undefined)).toEqual([true]);
    await fourth.stack.close();
  });

  it('garbage in place of a file is handled the same way', async () => {
    for (const f of replicaFiles()) writeFileSync(f, 'not a replica at all');
    const fifth = start();
    await fifth.stack.service.call('getPayees', { params: { budget_id: 'last-used' } });
    expect(fifth.requests).toHaveLength(1);
    expect(fifth.requests[0]!.query).toEqual({});
    await fifth.stack.close();
  });
});

describe('base URL', () => {
  it('refuses a non-HTTPS remote base URL', () => {
    expect(() => new Transport({ baseUrl: 'http://api.ynab.com/v1' })).toThrow(ConfigError);
    expect(() => new Transport({ baseUrl: 'http://192.168.1.20:8080/v1' })).toThrow(/unencrypted/);
    expect(() => createStack({ credentials: { token: async () => 't' }, baseUrl: 'http://example.com/v1', stateDir: dir, persist: false })).toThrow(
      ConfigError,
    );
    expect(() => new Transport({ baseUrl: 'not a url' })).toThrow(/not a valid URL/);
  });

  it('accepts HTTPS anywhere and HTTP on loopback', async () => {
    await new Transport({ baseUrl: 'https://api.ynab.com/v1' }).close();
    await new Transport({ baseUrl: 'http://127.0.0.1:9/v1' }).close();
    await new Transport({ baseUrl: 'http://localhost:9/v1' }).close();
    await new Transport({ baseUrl: 'http://[::1]:9/v1' }).close();
  });
});
