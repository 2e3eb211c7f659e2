/**
 * /healthz, /readyz and the graceful drain of the HTTP transport (src/transport/http-health.ts),
 * on real listening servers over a sandbox: the probes pass without the token and whatever the
 * Host, the MCP endpoint stays guarded; during a drain /readyz is 503, new requests get 503 with
 * Retry-After and Connection: close, a call in flight finishes, listen streams end, and the drain
 * stops at its limit with what was still in flight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUIET_MS } from '../../src/transport/http-health.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect, INITIALIZE, MCP_HEADERS, raw, served } from './http-harness.js';

const TOKEN = 'health-test-token-Xw3-distinctive';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
});
afterAll(async () => {
  await sb?.close();
});

/** A promise and the function that settles it: holds the first tool call (the state's gate). */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

describe('health and readiness', () => {
  it('answer without the token and whatever the Host (a load balancer calls by address); the endpoint stays guarded', async () => {
    const s = await served(sb, { token: TOKEN });
    try {
      for (const [path, body] of [
        ['/healthz', { status: 'ok' }],
        ['/readyz', { status: 'ready' }],
      ] as const) {
        const res = await raw(`${s.url.replace('/mcp', path)}?probe=1`, { method: 'GET', headers: { host: '10.0.0.11:8787' } });
        expect([res.status, res.json(), res.headers['cache-control']]).toEqual([200, body, 'no-store']);
        const head = await raw(s.url.replace('/mcp', path), { method: 'HEAD', headers: { host: `127.0.0.1:${s.port}` } });
        expect([head.status, head.text]).toEqual([200, '']);
        expect((await raw(s.url.replace('/mcp', path), { headers: { host: `127.0.0.1:${s.port}` }, body: '{}' })).status).toBe(405);
      }
      expect((await raw(s.url, { headers: { ...MCP_HEADERS, host: '10.0.0.11:8787' }, body: INITIALIZE })).status).toBe(403);
      expect((await raw(s.url, { headers: { ...MCP_HEADERS, host: `127.0.0.1:${s.port}` }, body: INITIALIZE })).status).toBe(401);
    } finally {
      await s.close();
    }
  });
});

describe('the drain', () => {
  it('turns /readyz 503, refuses new requests with 503, Retry-After and Connection: close, and lets the call in flight finish', async () => {
    const g = gate();
    const s = await served(sb, {}, { gate: g.promise });
    const host = { host: `127.0.0.1:${s.port}` };
    try {
      const client = await connect(s.url, 'legacy');
      const call = client.callTool({ name: 'list_accounts', arguments: {} });
      await new Promise((r) => setTimeout(r, 200)); // the call has reached the server and waits at the gate
      const started = performance.now();
      const drained = s.drain(10_000);
      const ready = await raw(s.url.replace('/mcp', '/readyz'), { method: 'GET', headers: host });
      expect([ready.status, ready.json()]).toEqual([503, { status: 'not ready', reason: 'draining' }]);
      expect((await raw(s.url.replace('/mcp', '/healthz'), { method: 'GET', headers: host })).status).toBe(200);
      const refused = await raw(s.url, { headers: { ...MCP_HEADERS, ...host }, body: INITIALIZE });
      expect([refused.status, refused.headers['retry-after'], refused.headers.connection]).toEqual([503, '5', 'close']);
      expect(refused.json().error.message).toMatch(/shutting down; retry/);
      g.open();
      const result: any = await call;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.accounts.length).toBeGreaterThan(0);
      const outcome = await drained;
      expect(outcome.cut).toBe(0);
      // Over once nothing was in flight and nothing came for QUIET_MS, well before the limit.
      expect(performance.now() - started).toBeGreaterThanOrEqual(QUIET_MS);
      expect(outcome.ms).toBeLessThan(5_000);
      await client.close().catch(() => undefined);
    } finally {
      g.open();
      await s.close();
    }
  });

  it('ends open listen streams at its start, so it does not wait for them', async () => {
    const s = await served(sb);
    try {
      const client = await connect(s.url, 'modern');
      const sub = await client.listen({ toolsListChanged: true });
      expect(sub.honoredFilter.toolsListChanged).toBe(true);
      const outcome = await s.drain(8_000);
      expect(outcome).toMatchObject({ cut: 0 });
      expect(outcome.ms).toBeLessThan(4_000);
      await client.close().catch(() => undefined);
    } finally {
      await s.close();
    }
  });

  it('stops at its limit and says how many requests were still in flight', async () => {
    const g = gate();
    const s = await served(sb, {}, { gate: g.promise });
    try {
      const client = await connect(s.url, 'legacy');
      const call = client.callTool({ name: 'list_accounts', arguments: {} }).catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 200));
      const outcome = await s.drain(500);
      expect(outcome.cut).toBe(1);
      expect(outcome.ms).toBeGreaterThanOrEqual(500);
      expect(outcome.ms).toBeLessThan(2_000);
      void call; // cut by the close below (the client is not told: its transport sees the socket end)
      void client.close().catch(() => undefined);
    } finally {
      g.open();
      await s.close();
    }
  });
});
