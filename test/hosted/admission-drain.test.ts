// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The drain and the admission queue together (src/transport/http-requests.ts): a request still
 * waiting its turn when the drain begins has had nothing served, so it is refused as a new one is
 * (503, Retry-After) and the load balancer sends it to another instance; started instead on the
 * instance about to close, it could be cut by the drain's end. Two instances that work on one
 * request at a time (--concurrent-requests 1) behind the round-robin proxy: a write held at YNAB
 * keeps the victim's only turn; calls sent meanwhile wait there; the victim gets a real SIGTERM
 * while they wait. Each waiting call is answered, by the other instance, and the write lands once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

let d: Deployment;
let user: SignedIn;

beforeAll(async () => {
  d = await startDeployment({ instances: 2, sandbox: { users: 1 }, args: ['--concurrent-requests', '1', '--drain-seconds', '10'] });
  user = await signIn(d.mcpUrl, new MemoryOAuthProvider('Admission Drain'), { login: d.sandbox.state.users[0]!.email });
});

afterAll(async () => {
  await user?.close().catch(() => undefined);
  await d?.close();
});

/** The JSON-RPC id and tool of a forwarded body, when it is a tool call. */
function callOf(body: Buffer): { id: number; tool: string } | undefined {
  try {
    const m = JSON.parse(body.toString('utf8')) as { id?: number; method?: string; params?: { name?: string } };
    return m.method === 'tools/call' && typeof m.id === 'number' && m.params?.name ? { id: m.id, tool: m.params.name } : undefined;
  } catch {
    return undefined;
  }
}

describe('a request waiting its turn when the drain begins', () => {
  it('is refused by the draining instance and answered by another', async () => {
    const sb = d.sandbox.state.users[0]!.budgets[0]!;
    const account = [...sb.rec.accounts.values()].find((a) => a.type === 'checking' && !a.closed)!.id;
    ok(await user.call('list_payees', { budget_id: sb.id })); // the copy is read: later calls ask YNAB nothing
    const victim = d.instances[0]!;
    // YNAB answers creates after 800 ms: the write holds the victim's one turn (a turn passes on after 1 s).
    d.upstream.hold = (r) => (r.method === 'POST' && /\/transactions/.test(r.url) ? new Promise((done) => setTimeout(done, 800)) : undefined);
    const targets = new Map<number, string[]>(); // each call's targets, in order
    const waiting = new Set<number>(); // reads sent to the victim before the drain began
    let writeAtVictim = false;
    let signalled = false;
    let draining = false;
    d.proxy.onForward = (target, body) => {
      const call = callOf(body);
      if (!call) return;
      targets.set(call.id, [...(targets.get(call.id) ?? []), target]);
      if (call.tool === 'create_transactions' && target === victim.url) writeAtVictim = true;
      if (call.tool === 'list_payees' && target === victim.url && writeAtVictim && !draining) waiting.add(call.id);
      // A read sent to the victim while the write holds its turn: it waits there; the drain begins
      // once it has surely arrived (250 ms), well before the write lets the turn go.
      if (call.tool === 'list_payees' && target === victim.url && writeAtVictim && !signalled) {
        signalled = true;
        setTimeout(() => {
          draining = true;
          victim.proc.child.kill('SIGTERM');
        }, 250);
      }
    };
    const memo = `admission drain ${Date.now()}`;
    // The write first, then reads while it is held; until the write lands on the victim, again.
    let write: Promise<Awaited<ReturnType<SignedIn['call']>>> | undefined;
    for (let i = 0; i < 4 && !writeAtVictim; i++) {
      write = user.call('create_transactions', {
        budget_id: sb.id,
        transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -2.5, memo: `${memo} ${i}` }],
      });
      await new Promise((done) => setTimeout(done, 50));
      if (!writeAtVictim) ok(await write);
    }
    expect(writeAtVictim, 'a write was forwarded to the victim').toBe(true);
    const reads = await Promise.all(Array.from({ length: 4 }, () => user.call('list_payees', { budget_id: sb.id })));
    const written = await write!;
    const code = await victim.proc.exited;
    d.upstream.hold = undefined;
    d.proxy.onForward = undefined;

    expect(signalled, 'SIGTERM came while a read waited at the victim').toBe(true);
    for (const r of reads) expect(r.isError, r.content?.[0]?.text).toBeFalsy();
    expect(written.isError, written.content?.[0]?.text).toBeFalsy();
    expect(code).toMatchObject({ code: 0, signal: null });
    // Every read that was waiting at the victim when the drain began was refused there and
    // answered by the other instance (served by the victim instead, it would show [victim]).
    const other = d.instances[1]!.url;
    expect(waiting.size).toBeGreaterThan(0);
    for (const id of waiting) expect(targets.get(id)).toEqual([victim.url, other]);
    // The write in flight at the victim was answered by it, and is in YNAB once.
    const landed = [...sb.rec.transactions.values()].filter((t) => !t.deleted && t.memo?.startsWith(memo));
    expect(landed.map((t) => t.memo).sort()).toEqual([...new Set(landed.map((t) => t.memo))].sort());
    expect(landed.length).toBeGreaterThan(0);
  });
});
