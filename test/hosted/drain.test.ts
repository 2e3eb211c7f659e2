// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Health, readiness and the graceful drain of hosted instances, all real: three instances (child
 * processes) behind the round-robin proxy, whose retry of a 503 with Retry-After on the next
 * instance is a load balancer's health-aware retry (test/helpers/hosted.ts). One instance gets a
 * real SIGTERM while 20 callers loop tool calls and a write is in flight there: no call fails,
 * the write lands once, /readyz says 503 during the drain and the process exits 0 in time.
 */
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

const DRAIN_SECONDS = 10;
const CALLERS = 20;

let d: Deployment;
let clients: { s: SignedIn; email: string }[] = [];

beforeAll(async () => {
  d = await startDeployment({ instances: 3, sandbox: { users: 2 }, args: ['--drain-seconds', String(DRAIN_SECONDS)] });
  // Four MCP clients (two per user, one of each protocol era), five callers each.
  const users = d.sandbox.state.users;
  clients = await Promise.all(
    [0, 1, 2, 3].map(async (i) => {
      const email = users[i % 2]!.email;
      const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`Drain Test ${i}`, `http://127.0.0.1:${7790 + i}/callback`), {
        login: email,
        era: i < 2 ? 'legacy' : 'modern',
      });
      return { s, email };
    }),
  );
});

afterAll(async () => {
  for (const c of clients) await c.s.close().catch(() => undefined);
  await d?.close();
});

const get = async (url: string, init: RequestInit = {}) => {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
};

describe('health and readiness', () => {
  it('/healthz and /readyz answer without a token, whatever Host a load balancer sends, and say nothing about users', async () => {
    const inst = d.instances[0]!.url;
    for (const [path, body] of [
      ['/healthz', { status: 'ok' }],
      ['/readyz', { status: 'ready' }],
    ] as const) {
      // Called by address, as a load balancer does; through the proxy as well.
      for (const url of [`${inst}${path}`, `${d.proxy.url}${path}`]) {
        const res = await get(url, { headers: { host: '10.0.0.11:8787' } });
        expect(res.status, url).toBe(200);
        expect(JSON.parse(res.text)).toEqual(body);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      expect((await get(`${inst}${path}`, { method: 'POST' })).status).toBe(405);
    }
  });

  it("/readyz is 503 with the reason when the data key does not open the Redis's records, and ready again once it does", async () => {
    const raw = createClient({ url: d.redis.url, commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer } } });
    await raw.connect();
    const key = 'ynab-mcp:hosted/signing-keys.json';
    const saved = (await raw.sendCommand(['GET', key])) as Buffer;
    expect(saved).toBeInstanceOf(Buffer);
    try {
      await raw.sendCommand(['SET', key, 'sealed with another deployment key']);
      const res = await get(`${d.instances[1]!.url}/readyz`);
      expect(res.status).toBe(503);
      expect(JSON.parse(res.text)).toEqual({ status: 'not ready', reason: expect.stringMatching(/data key does not open/) });
      expect((await get(`${d.instances[1]!.url}/healthz`)).status).toBe(200);
    } finally {
      await raw.sendCommand(['SET', key, saved]);
      await raw.close();
    }
    expect((await get(`${d.instances[1]!.url}/readyz`)).status).toBe(200);
  });
});

describe('graceful drain', () => {
  it('an instance given SIGTERM mid-load drains: no call fails, the write in flight there lands once, /readyz is 503, exit 0 in time', async () => {
    const victim = d.instances[1]!;
    const run = `drain-${Date.now()}`;
    // A slow YNAB for creates: the write sent to the victim is still in flight when SIGTERM comes.
    d.upstream.hold = (r) => (r.method === 'POST' && /\/transactions/.test(r.url) ? new Promise((ok) => setTimeout(ok, 1_500)) : undefined);
    let signalled: number | undefined;
    d.proxy.onForward = (target, body) => {
      if (signalled === undefined && target === victim.url && body.includes('"create_transactions"')) {
        signalled = performance.now();
        victim.proc.child.kill('SIGTERM');
      }
    };
    // /readyz of the victim, watched directly (as the load balancer's active check would).
    const ready: { at: number; status: number; body: string }[] = [];
    let exited = false;
    const watching = (async () => {
      while (!exited) {
        const at = performance.now();
        const r = await get(`${victim.url}/readyz`).catch(() => ({ status: 0, text: '' }));
        ready.push({ at, status: r.status, body: r.text });
        await new Promise((ok) => setTimeout(ok, 50));
      }
    })();
    const exit = victim.proc.exited.then((e) => ((exited = true), { ...e, at: performance.now() }));

    const failures: string[] = [];
    let calls = 0;
    let stop = false;
    const caller = async (c: (typeof clients)[number], k: number) => {
      const budget = ok(await c.s.call('list_budgets')).budgets[0].id as string;
      while (!stop) {
        const name = k % 2 ? 'list_accounts' : 'list_categories';
        const res = await c.s.call(name, { budget_id: budget }).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
        calls++;
        if (res.isError) failures.push(`${name}: ${res.content?.[0]?.text}`);
      }
    };
    const writes: string[] = [];
    const writer = async () => {
      const c = clients[0]!;
      const sb = d.sandbox.state.users.find((u) => u.email === c.email)!;
      const budget = sb.budgets[0]!;
      const account = [...budget.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;
      for (let i = 0; !stop; i++) {
        const memo = `${run} ${i}`;
        const res = await c.s
          .call('create_transactions', {
            budget_id: budget.id,
            transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -1 - i / 100, memo }],
          })
          .catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
        if (res.isError) failures.push(`create_transactions: ${res.content?.[0]?.text}`);
        else writes.push(memo);
      }
      return budget;
    };
    const working = [...Array.from({ length: CALLERS }, (_, k) => caller(clients[k % clients.length]!, k)), writer()];
    const code = await exit;
    // A little longer, through the instances left.
    await new Promise((ok) => setTimeout(ok, 500));
    stop = true;
    const budget = (await Promise.all([...working, watching]))[CALLERS] as Awaited<ReturnType<typeof writer>>;
    d.upstream.hold = undefined;
    d.proxy.onForward = undefined;

    expect(signalled, 'SIGTERM was sent with a create in flight at the victim').toBeDefined();
    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(CALLERS * 3);
    expect(code).toMatchObject({ code: 0, signal: null });
    expect(code.at - signalled!).toBeLessThan(DRAIN_SECONDS * 1000);
    // The load balancer's view: ready before, 503 "draining" during, then gone.
    // From its first 503 (within a second of the signal: a busy instance reads the signal on its
    // event loop's next turn), every answer is 503 until the process is gone.
    const first = ready.find((r) => r.at > signalled! && r.status === 503);
    expect(first, 'a 503 from /readyz after the signal').toBeDefined();
    expect(first!.at - signalled!).toBeLessThan(1_000);
    const after = ready.filter((r) => r.at >= first!.at && r.status !== 0);
    expect(ready.some((r) => r.at < signalled! && r.status === 200)).toBe(true);
    for (const r of after) expect([r.status, JSON.parse(r.body)]).toEqual([503, { status: 'not ready', reason: 'draining' }]);
    expect(d.proxy.retried).toBeGreaterThan(0);
    expect(victim.proc.stderr).toMatch(/SIGTERM: draining/);
    expect(victim.proc.stderr).toMatch(/drained in \d+ ms\n/);
    // Every acknowledged write is in YNAB once, the one in flight at the victim included.
    const memos = [...budget.rec.transactions.values()].filter((t) => !t.deleted && t.memo?.startsWith(`${run} `)).map((t) => t.memo);
    expect(writes.length).toBeGreaterThan(1);
    expect(memos.sort()).toEqual([...writes].sort());
  });
});
