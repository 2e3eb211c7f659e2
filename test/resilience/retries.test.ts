/**
 * The client's retry policy, against sandboxes that always fail one way: reads are retried on
 * connection errors, timeouts, 500 and 503, with exponential backoff and jitter, at most three
 * attempts, each taking a slot in the request ledger; writes are not retried by the client (the
 * write coordinator decides); a 429 is never retried.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { YnabClient } from '../../src/api/client/client.js';
import { ApiError, NetworkError } from '../../src/api/client/errors.js';
import { Transport, type RequestInfo } from '../../src/api/client/transport.js';
import { QuotaLedger } from '../../src/quota/ledger.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-retries-'));
const sandboxes: TestSandbox[] = [];
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function setup(faults: string, opts: { rateLimit?: number; requestTimeoutMs?: number; responseTimeoutMs?: number } = {}) {
  const sb = await testSandbox({ faults, rateLimit: opts.rateLimit ?? 10_000, requestTimeoutMs: opts.requestTimeoutMs });
  sandboxes.push(sb);
  const requests: RequestInfo[] = [];
  const delays: number[] = [];
  const stateDir = mkdtempSync(join(dir, 's-'));
  const ledger = QuotaLedger.forToken(sb.accessToken, { stateDir });
  const client = new YnabClient({
    transport: new Transport({ baseUrl: sb.baseUrl, responseTimeoutMs: opts.responseTimeoutMs, onRequest: (r) => requests.push(r) }),
    credentials: { token: async () => sb.accessToken },
    quota: () => ledger,
    retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
  });
  return { sb, client, requests, delays, ledger };
}

describe('reads', () => {
  it.each([
    ['500=1', 500],
    ['503=1', 503],
  ])('are attempted three times on %s, each attempt counted, with growing delays', async (faults, status) => {
    const { client, requests, delays, ledger } = await setup(faults);
    const e = await client.call('getUser').catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(status);
    expect(requests.map((r) => r.outcome)).toEqual([status, status, status]);
    expect((await ledger.status()).used).toBe(3);
    // Exponential with jitter: half the ceiling plus a random share of the other half.
    expect(delays).toEqual([75, 150]);
    await client.close();
  });

  it('are attempted three times when the connection drops', async () => {
    const { client, requests } = await setup('reset=1');
    const e = await client.call('getPlans').catch((x) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.outcome === 'reset')).toBe(true);
    await client.close();
  });

  it('are attempted again after a timeout', async () => {
    const { client, requests } = await setup('slow=1', { requestTimeoutMs: 2_000, responseTimeoutMs: 150 });
    let retriedAfterTimeout = 0;
    for (let i = 0; i < 4; i++) {
      const start = requests.length;
      const result = await client.call('getUser').catch((x) => x);
      const attempts = requests.slice(start).map((r) => r.outcome);
      // A timed-out attempt is followed by another, up to three in all.
      expect(attempts.length).toBeLessThanOrEqual(3);
      attempts.slice(0, -1).forEach((o) => expect(o).toBe('timeout'));
      if (attempts.length > 1) retriedAfterTimeout += 1;
      if (attempts.at(-1) === 'timeout') {
        expect(attempts).toHaveLength(3);
        expect(result).toBeInstanceOf(NetworkError);
        expect(result.failure).toBe('timeout');
      }
    }
    expect(retriedAfterTimeout).toBeGreaterThan(0);
    await client.close();
  });

  it('succeed on a later attempt when the service recovers', async () => {
    const { client, requests } = await setup('500=0.5');
    let ok = 0;
    for (let i = 0; i < 20; i++)
      if (
        await client.call('getUser').then(
          () => true,
          () => false,
        )
      )
        ok += 1;
    expect(ok).toBeGreaterThan(15);
    expect(requests.length).toBeGreaterThan(20);
    await client.close();
  });
});

describe('writes and 429', () => {
  it('a write is sent once by the client, whatever happens', async () => {
    const { client, requests } = await setup('503=1');
    const e = await client.call('createPayee', { params: { budget_id: 'last-used' }, body: { payee: { name: 'Once' } } }).catch((x) => x);
    expect(e.status).toBe(503);
    expect(requests).toHaveLength(1);
    await client.close();
  });

  it('a 429 is never retried, and blocks the token until the window frees a slot', async () => {
    const { sb, client, requests, ledger } = await setup('', { rateLimit: 1 });
    await sb.get('/user');
    const e = await client.call('getUser').catch((x) => x);
    expect(e.status).toBe(429);
    expect(requests).toHaveLength(1);
    const status = await ledger.status();
    expect(status.blockedUntil!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    const next = await client.call('getPlans').catch((x) => x);
    expect(next.name).toBe('QuotaExhaustedError');
    expect(requests).toHaveLength(1);
    await client.close();
  });
});
