// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The places in an instance's event loop (--requests-in-loop; src/transport/http-admission.ts): on
 * an instance with one place (and one slot), a call that writes to YNAB is let in ahead of reads
 * that arrived before it, and its wait on YNAB hands the place on. The one place is held first by
 * a stream that stays open (subscriptions/listen) until its longest hold runs out; meanwhile three
 * reads arrive, then a write. When the place frees, the write goes first: its request reaches YNAB
 * (the recording proxy, which holds it) before any read is answered, and the reads are answered
 * while YNAB still holds it. Reads first (arrival order) would have answered all three before the
 * write's request left. The write then lands once.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';
import { sandboxApi } from '../helpers/watched-budget.js';

let d: Deployment;
const users: SignedIn[] = [];

beforeAll(async () => {
  d = await startDeployment({
    instances: 1,
    sandbox: { users: 2 },
    args: ['--concurrent-requests', '1', '--requests-in-loop', '1'],
    // The listen stream holds the one place this long, then hands it on (a held turn's longest).
    env: { YNAB_MCP_WRITES: 'direct', YNAB_MCP_ADMISSION_HOLD_MS: '1500' },
  });
  for (const [i, person] of d.sandbox.state.users.entries()) {
    users.push(await signIn(d.mcpUrl, new MemoryOAuthProvider(`First ${i}`, `http://127.0.0.1:${7850 + i}/callback`), { login: person.email }));
  }
});

afterAll(async () => {
  await Promise.all(users.map((u) => u.close().catch(() => undefined)));
  await d?.close();
});

const isPost = (r: { method: string; url: string }) => r.method === 'POST' && /\/transactions$/.test(r.url);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('--requests-in-loop 1: a write arriving after reads', () => {
  it('is let in first: its request reaches YNAB before any of the reads is answered, and it lands once', async () => {
    const [writer, reader] = users as [SignedIn, SignedIn];
    // Both copies held already: the reads ask nothing of YNAB.
    const account = (ok(await writer.call('list_accounts')).accounts as any[]).find((a) => a.type === 'checking' && !a.closed)!;
    ok(await reader.call('list_accounts'));

    const listener = new Client({ name: 'First (listening)', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await listener.connect(new StreamableHTTPClientTransport(new URL(d.mcpUrl), { authProvider: reader.provider }));
    const budget = (await reader.call('list_budgets')).structuredContent.budgets[0].id as string;
    let letGo!: () => void;
    const held = new Promise<void>((r) => (letGo = r));
    d.upstream.hold = (r) => (isPost(r) ? held : undefined);
    const memo = `first write ${Date.now()}`;
    let write: Promise<any> | undefined;
    try {
      // The stream takes the one place and keeps it until its longest hold (1.5 s) runs out.
      const sub = await listener.listen({ resourceSubscriptions: [`ynab://budgets/${budget}/alerts`] });
      try {
        const postedWhenRead: boolean[] = [];
        const reads = [0, 1, 2].map(async (i) => {
          await pause(i * 20);
          const res = ok(await reader.call('list_accounts'));
          postedWhenRead.push(d.upstream.requests.some(isPost));
          return res;
        });
        await pause(150);
        write = writer.call('create_transactions', {
          transactions: [{ account_id: account.id, date: new Date().toISOString().slice(0, 10), amount: -3.75, payee_name: 'First Cafe', memo }],
        });
        for (const r of await Promise.all(reads)) expect((r.accounts as any[]).length).toBeGreaterThan(0);
        expect(postedWhenRead, "the write's request had reached YNAB before each read was answered").toEqual([true, true, true]);
      } finally {
        await sub.close();
      }
    } finally {
      letGo();
      d.upstream.hold = undefined;
      await listener.close();
    }
    ok(await write!);
    const person = d.sandbox.state.users[0]!;
    const api = sandboxApi(d.sandbox.baseUrl, () => person.accessToken);
    const id = (await api('GET', '/budgets/last-used')).budget.id as string;
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const found = ((await api('GET', `/budgets/${id}/transactions?since_date=${since}`)).transactions as any[]).filter((t) => t.memo === memo);
    expect(found).toHaveLength(1);
    expect(found[0].amount).toBe(-3750);
  });
});
