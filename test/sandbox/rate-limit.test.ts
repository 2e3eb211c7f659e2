/**
 * Rate limit: per access token, N requests in a rolling hour. Every non-429 answer carries
 * `X-Rate-Limit: X/N`; the request over the limit gets 429 too_many_requests without that
 * header and with Retry-After; requests fall out of the window one by one as the hour rolls on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const MINUTE = 60_000;
let now = Date.parse('2026-05-14T10:00:00Z');
let sb: TestSandbox;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 5, clock: () => new Date(now) });
});

afterAll(() => sb.close());

function expect429(res: { status: number; headers: Headers; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body).toEqual({ error: { id: '429', name: 'too_many_requests', detail: expect.any(String) } });
  expect(res.headers.get('x-rate-limit')).toBeNull();
  const retry = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retry)).toBe(true);
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(3600);
  return retry;
}

describe('rate limit', () => {
  it('counts requests in X-Rate-Limit, errors included, and refuses the one over the limit with 429', async () => {
    const t0 = now;
    const seen: string[] = [];
    // Five requests ten minutes apart; a 404 answer counts and carries the header too.
    for (const path of ['/user', '/budgets', '/budgets/00000000-0000-4000-8000-000000000000', '/user', '/budgets']) {
      const res = await sb.get(path);
      expect(res.status === 200 || res.status === 404).toBe(true);
      seen.push(res.headers.get('x-rate-limit') ?? 'missing');
      now += 10 * MINUTE;
    }
    expect(seen).toEqual(['1/5', '2/5', '3/5', '4/5', '5/5']);
    expect(now).toBe(t0 + 50 * MINUTE);

    // The sixth: 429 without X-Rate-Limit, retry when the first request leaves the hour.
    const retry = expect429(await sb.get('/user'));
    expect(retry).toBe(10 * 60);
    // Refused requests do not count and do not push the window back.
    for (let i = 0; i < 3; i++) expect429(await sb.get('/user'));
    expect((await sb.get('/user', sb.readOnlyToken)).status).toBe(200);
  });

  it('keeps a separate budget per token', async () => {
    // The read-only token made one request in the previous test.
    const res = await sb.get('/user', sb.readOnlyToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-rate-limit')).toBe('2/5');
    // The full token is still spent.
    expect429(await sb.get('/user'));
  });

  it('rolls: each request falls out of the window one hour after it was made', async () => {
    // now = t0 + 50 min; the first request (t0) leaves the window after t0 + 60 min.
    now += 9 * MINUTE;
    const almost = expect429(await sb.get('/user'));
    expect(almost).toBe(60);
    now += MINUTE + 1;
    const first = await sb.get('/user');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-rate-limit')).toBe('5/5');
    // Only one slot freed: the next one waits for the second request (t0 + 10 min) to leave.
    const retry = expect429(await sb.get('/user'));
    expect(retry).toBeLessThanOrEqual(10 * 60);
    expect(retry).toBeGreaterThan(9 * 60);

    // Two hours later the whole window is empty again.
    now += 2 * 60 * MINUTE;
    const fresh = await sb.get('/user');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-rate-limit')).toBe('1/5');
  });

  it('exposes the header to browsers (CORS) and does not count requests refused for a bad token', async () => {
    const res = await sb.get('/user', sb.readOnlyToken);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Rate-Limit/i);
    const before = res.headers.get('x-rate-limit');
    const bad = await sb.get('/user', 'not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('x-rate-limit')).toBeNull();
    const after = await sb.get('/user', sb.readOnlyToken);
    expect(Number(after.headers.get('x-rate-limit')!.split('/')[0])).toBe(Number(before!.split('/')[0]) + 1);
  });
});

describe('the rolling window with many requests', () => {
  it('counts, refuses and lets requests fall out one by one through thousands of them', async () => {
    const { RateLimiter } = await import('../../src/sandbox/rate-limit.js');
    let t = 0;
    const limiter = new RateLimiter(3000, () => t, 3_600_000);
    // 3000 requests over the first half hour fill the window.
    for (let i = 1; i <= 3000; i++) {
      t = i * 600;
      expect(limiter.take('a')).toEqual({ ok: true, used: i });
    }
    t = 1_900_000;
    const refused = limiter.take('a');
    expect(refused.ok).toBe(false);
    // The oldest (at 600 ms) leaves the window at 3,600,600 ms: 1,700.6 s from now.
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1701 });
    // Another token is not affected.
    expect(limiter.take('b')).toEqual({ ok: true, used: 1 });
    // Once 2000 have left the window (past the point where the store compacts), 1000 remain.
    t = 3_600_000 + 2000 * 600;
    expect(limiter.take('a')).toEqual({ ok: true, used: 1001 });
    for (let i = 0; i < 1999; i++) expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
    // An hour after the last, the window is empty again.
    t += 3_600_001;
    expect(limiter.take('a')).toEqual({ ok: true, used: 1 });
  });
});
