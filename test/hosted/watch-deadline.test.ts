// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Issue 59 item 8, hosted: a stuck receiver holds neither the subscription's queue nor a watch
 * job's state. One instance with a short watch interval (YNAB_MCP_WATCH_SHORT=1) and real
 * redis-server; the changes are made in the sandbox through its API, as a user does in YNAB, so
 * only the watcher's jobs notice and deliver them. The receiver answers the first delivery with
 * 200 and then one byte a second: the job's delivery is cut at its deadline (the server closes
 * the exchange), the position moves past it, and the next occurrence is delivered once, with the
 * first never sent again (a delivery held open left the job's state and the position stuck, and
 * the next job's delivery sent the first occurrence again).
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';
import { overspendOne, sandboxApi, until } from '../helpers/watched-budget.js';
import { trickler } from '../events/trickler.js';

let d: Deployment;
let s: SignedIn;
let user: SandboxUser;
let budgetId: string;

beforeAll(async () => {
  d = await startDeployment({
    instances: 1,
    args: ['--watch-interval', '3s', '--max-staleness', '1'],
    env: { YNAB_MCP_WATCH_SHORT: '1', YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK: '1' },
  });
  user = d.sandbox.state.users[0]!;
  s = await signIn(d.mcpUrl, new MemoryOAuthProvider('Watch Deadline Test', 'http://127.0.0.1:7793/callback'), { login: user.email, era: 'modern' });
  budgetId = ok(await s.call('list_budgets')).budgets[0].id;
}, 120_000);

afterAll(async () => {
  await s?.close().catch(() => undefined);
  await d?.close();
});

describe('a watch job and a stuck receiver', () => {
  it('cuts the trickled delivery at its deadline; the next occurrence is delivered and the first never again', async () => {
    const rx = await trickler({ slow: (n) => n === 1 });
    try {
      ok(await s.call('list_accounts', { budget_id: budgetId })); // the budget's conditions now are in its log before the subscription
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      await s.client.request(
        {
          method: 'events/subscribe',
          params: { name: 'category.overspent', arguments: { budget_id: budgetId }, delivery: { url: rx.url, secret }, cursor: null, ttlMs: 600_000 },
        } as never,
        z.any(),
      );
      const api = sandboxApi(d.sandbox.baseUrl, () => user.accessToken);
      const taken = new Set<string>();
      const first = await overspendOne(api, budgetId, taken);
      await until(async () => rx.trickles.length === 1, 30_000, 'the watcher never delivered the first occurrence');
      await until(async () => rx.trickles[0]!.closed, 40_000, 'the trickled delivery was never cut');
      expect(rx.trickles[0]!.bytes).toBeLessThan(30);

      const second = await overspendOne(api, budgetId, taken);
      await until(async () => rx.events.length >= 2, 40_000, 'the next occurrence was never delivered');
      // A few intervals more: a first occurrence sent again would have arrived by now.
      await new Promise((r) => setTimeout(r, 7_000));
      expect(rx.events).toEqual([first, second]);
    } finally {
      await rx.close();
    }
  }, 150_000);
});
