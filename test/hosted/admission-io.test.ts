// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * A request keeps its admission slot only while it computes (src/transport/http-admission.ts): on
 * an instance that works on one request at a time (--concurrent-requests 1), a write whose request
 * to YNAB is held (the recording proxy in front of the sandbox holds it: a slow YNAB) does not keep
 * a read that arrives meanwhile waiting: the read is answered while the write still waits, and no
 * slot was held past its longest hold (ynab_mcp_admission_expired_total stays 0: before, the read
 * got in only when the write's slot ran out after 1 s). The write then lands once. And a request
 * that waits on another's work (two calls at once of a user whose copy is read for the first time:
 * the second joins the first's sync) hands its slot on too, so the first, back from YNAB, is not
 * kept out by it until a slot runs out. That no more than the limit compute at once is
 * test/mcp/http-admission.test.ts.
 */
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';
import { freePort } from '../helpers/redis.js';
import { sandboxApi } from '../helpers/watched-budget.js';

let d: Deployment;
let metricsPort = 0;
const users: SignedIn[] = [];

async function expired(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const family = parsePrometheus(text).find((f) => f.name === 'ynab_mcp_admission_expired_total');
  if (!family) throw new Error('no ynab_mcp_admission_expired_total on /metrics');
  return family.metrics.reduce((n, m) => n + Number(m.value), 0);
}

beforeAll(async () => {
  metricsPort = await freePort();
  d = await startDeployment({
    instances: 1,
    sandbox: { users: 3 },
    args: ['--concurrent-requests', '1', '--metrics-port', String(metricsPort)],
    // A slot held 5 s at most, not 1 s: a slot kept across a wait still runs out (and fails the
    // checks), while computing an answer on a loaded CI machine does not.
    env: { YNAB_MCP_WRITES: 'direct', YNAB_MCP_ADMISSION_HOLD_MS: '5000' },
  });
  for (const [i, person] of d.sandbox.state.users.entries()) {
    users.push(await signIn(d.mcpUrl, new MemoryOAuthProvider(`Aside ${i}`, `http://127.0.0.1:${7830 + i}/callback`), { login: person.email }));
  }
});

afterAll(async () => {
  await Promise.all(users.map((u) => u.close().catch(() => undefined)));
  await d?.close();
});

describe('--concurrent-requests 1: a write waiting on YNAB', () => {
  it('does not keep a read waiting: the read is answered while the write waits, no slot runs out, and the write lands once', async () => {
    const [writer, reader] = users as [SignedIn, SignedIn];
    // Both copies held already: the read asks nothing of YNAB.
    const account = (ok(await writer.call('list_accounts')).accounts as any[]).find((a) => a.type === 'checking' && !a.closed)!;
    ok(await reader.call('list_accounts'));
    const before = await expired();

    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    d.upstream.hold = (r) => (r.method === 'POST' && /\/transactions$/.test(r.url) ? held : undefined);
    const memo = `aside write ${Date.now()}`;
    let writeDone = false;
    const write = writer
      .call('create_transactions', {
        transactions: [{ account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -6.5, payee_name: 'Aside Cafe', memo }],
      })
      .finally(() => (writeDone = true));
    try {
      // The write's request has reached YNAB, which holds it.
      while (!d.upstream.requests.some((r) => r.method === 'POST' && /\/transactions$/.test(r.url))) await new Promise((r) => setTimeout(r, 10));
      const read = ok(await reader.call('list_accounts'));
      expect((read.accounts as any[]).length).toBeGreaterThan(0);
      expect(writeDone, 'the read was answered while the write still waited on YNAB').toBe(false);
      expect(await expired(), "no slot ran out: the read had the write's slot while the write waited").toBe(before);
    } finally {
      letGo();
      d.upstream.hold = undefined;
    }
    ok(await write);
    const person = d.sandbox.state.users[0]!;
    const api = sandboxApi(d.sandbox.baseUrl, () => person.accessToken);
    const budget = (await api('GET', '/budgets/last-used')).budget.id as string;
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const found = ((await api('GET', `/budgets/${budget}/transactions?since_date=${since}`)).transactions as any[]).filter((t) => t.memo === memo);
    expect(found).toHaveLength(1);
    expect(found[0].amount).toBe(-6500);
  });

  it("a call that joins another's sync (a user's first two calls at once) hands its slot on: no slot runs out, both answer", async () => {
    const third = users[2]!;
    const before = await expired();
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    // YNAB holds the user's first sync until both calls are at the instance and the second has
    // joined the first's (it waits on it from then on).
    d.upstream.hold = (r) => (r.method === 'GET' && r.url.startsWith('/v1/') && !r.url.startsWith('/v1/user') ? held : undefined);
    let forwarded = 0;
    d.proxy.onForward = (_target, body) => {
      if (body.toString('utf8').includes('"tools/call"') && ++forwarded === 2) setTimeout(letGo, 300);
    };
    try {
      const answers = await Promise.all([third.call('list_accounts'), third.call('list_accounts')]);
      for (const a of answers) expect((ok(a).accounts as any[]).length).toBeGreaterThan(0);
    } finally {
      letGo();
      d.upstream.hold = undefined;
      d.proxy.onForward = undefined;
    }
    expect(await expired(), 'no slot ran out: the joining call did not hold the slot the first needed back').toBe(before);
  });
});
