// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The drain and the admission queue together (src/transport/http-requests.ts): a request still
 * waiting its turn when the drain begins has had nothing served, so it is refused as a new one is
 * (503, Retry-After) and the load balancer sends it to another instance; started instead on the
 * instance about to close, it could be cut by the drain's end. Two instances that work on one
 * request at a time (--concurrent-requests 1) behind the round-robin proxy: a listen stream keeps
 * the victim's only turn (it waits on no I/O, so it keeps its slot up to the longest hold, 1 s;
 * a write waiting on YNAB would hand it on: test/hosted/admission-io.test.ts); calls sent
 * meanwhile wait there; the victim gets a real SIGTERM while they wait. Each waiting call is
 * answered, by the other instance.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
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

/** The JSON-RPC id and tool of a forwarded body, when it is a tool call ('listen' for a listen stream). */
function callOf(body: Buffer): { id: number | string; tool: string } | undefined {
  try {
    const m = JSON.parse(body.toString('utf8')) as { id?: number | string; method?: string; params?: { name?: string } };
    if (m.method === 'subscriptions/listen' && m.id !== undefined) return { id: m.id, tool: 'listen' };
    return m.method === 'tools/call' && typeof m.id === 'number' && m.params?.name ? { id: m.id, tool: m.params.name } : undefined;
  } catch {
    return undefined;
  }
}

describe('a request waiting its turn when the drain begins', () => {
  it('is refused by the draining instance and answered by another', async () => {
    const sb = d.sandbox.state.users[0]!.budgets[0]!;
    ok(await user.call('list_payees', { budget_id: sb.id })); // the copy is read: later calls ask YNAB nothing
    const victim = d.instances[0]!;
    const targets = new Map<number | string, string[]>(); // each call's targets, in order
    const waiting = new Set<number | string>(); // reads sent to the victim before the drain began
    let listenAtVictim = false;
    let signalled = false;
    let draining = false;
    d.proxy.onForward = (target, body) => {
      const call = callOf(body);
      if (!call) return;
      targets.set(call.id, [...(targets.get(call.id) ?? []), target]);
      if (call.tool === 'listen' && target === victim.url) listenAtVictim = true;
      if (call.tool === 'list_payees' && target === victim.url && listenAtVictim && !draining) waiting.add(call.id);
      // A read sent to the victim while the stream holds its turn: it waits there; the drain begins
      // once it has surely arrived (250 ms), well before the stream's turn runs out (1 s).
      if (call.tool === 'list_payees' && target === victim.url && listenAtVictim && !signalled) {
        signalled = true;
        setTimeout(() => {
          draining = true;
          victim.proc.child.kill('SIGTERM');
        }, 250);
      }
    };
    // Listen streams until one is at the victim (one at the other instance holds its turn a second at most).
    const streams: { client: Client; close(): Promise<void> }[] = [];
    for (let i = 0; i < 4 && !listenAtVictim; i++) {
      const client = new Client({ name: `Admission Drain (listening ${i})`, version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(d.mcpUrl), { authProvider: user.provider }));
      const sub = await client.listen({ resourceSubscriptions: [`ynab://budgets/${sb.id}/alerts`] });
      streams.push({ client, close: async () => (await sub.close().catch(() => undefined), await client.close().catch(() => undefined)) });
      if (listenAtVictim) break;
      await new Promise((done) => setTimeout(done, 1100)); // the other instance's turn back
      await (await fetch(`${d.proxy.url}/healthz`)).arrayBuffer(); // the next stream to the next instance
    }
    expect(listenAtVictim, 'a listen stream was forwarded to the victim').toBe(true);
    const reads = await Promise.all(Array.from({ length: 4 }, () => user.call('list_payees', { budget_id: sb.id })));
    const code = await victim.proc.exited;
    d.proxy.onForward = undefined;
    await Promise.all(streams.map((s) => s.close()));

    expect(signalled, 'SIGTERM came while a read waited at the victim').toBe(true);
    for (const r of reads) expect(r.isError, r.content?.[0]?.text).toBeFalsy();
    expect(code).toMatchObject({ code: 0, signal: null });
    // Every read that was waiting at the victim when the drain began was refused there and
    // answered by the other instance (served by the victim instead, it would show [victim]).
    const other = d.instances[1]!.url;
    expect(waiting.size).toBeGreaterThan(0);
    for (const id of waiting) expect(targets.get(id)).toEqual([victim.url, other]);
  });
});
