/**
 * Two processes with the same token share one request ledger: together they never exceed the
 * hourly limit, so the service never answers 429, although each alone would have tried to.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { QuotaLedger } from '../../src/quota/ledger.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;

beforeAll(async () => {
  sb = await testSandbox({ seed: 'two-processes', rateLimit: 60 });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-shared-'));
});

afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

function reader(
  budget: string,
  count: number,
): Promise<{ fresh: number; stale: number; refused: number; rateLimited: number; requests: number; answered429: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'reader.ts')], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: {
        ...process.env,
        READER_TOKEN: sb.accessToken,
        READER_BASE_URL: sb.baseUrl,
        READER_STATE_DIR: dir,
        READER_COUNT: String(count),
        READER_BUDGET: budget,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`reader exited ${code}: ${err}`))));
  });
}

it('two processes with one token stay within one hourly budget', async () => {
  const budget = (await sb.get('/budgets', sb.readOnlyToken)).body.data.budgets[0].id;
  // Each wants 45 requests; the service allows 60 an hour, reads may use 50 of them.
  const [a, b] = await Promise.all([reader(budget, 45), reader(budget, 45)]);
  expect(a.rateLimited + b.rateLimited).toBe(0);
  expect(a.answered429 + b.answered429).toBe(0);
  // Reads may use the hourly limit minus the 10 requests kept for writes.
  expect(a.requests + b.requests).toBe(50);
  expect(a.fresh + b.fresh).toBe(50);
  // Past the budget, both answered from their replicas, saying so.
  expect(a.stale + b.stale + a.refused + b.refused).toBe(40);
  expect(a.requests).toBeGreaterThan(0);
  expect(b.requests).toBeGreaterThan(0);
  // Both processes wrote to the same ledger, and it agrees with the service's own count.
  const status = await QuotaLedger.forToken(sb.accessToken, { stateDir: dir, limit: 60 }).status();
  expect(status.used).toBe(50);
  expect((await sb.get('/user')).headers.get('x-rate-limit')).toBe('51/60');
});
