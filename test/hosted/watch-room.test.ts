// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Issue 45 item 2, what broke past 200 watched users: each instance holds a bounded number of
 * users' states (YNAB_MCP_MAX_USERS_HELD), and a watcher that started every subscribed user's state
 * in that LRU had its own states evicted, their leases let go, and budgets synced twice while others
 * were missed. Watching now runs apart from that LRU (src/hosted/watchers.ts: watch jobs with
 * states of their own, the last sync of each budget kept in Redis).
 *
 * Here two instances may each hold 4 users; ten users have a webhook subscription each and then
 * leave, and six more users (more than an instance holds) keep calling tools all through, so the
 * LRU turns over all the time. Over five intervals, counted from the sandbox's own record of who
 * asked what (timed as it arrives): every watched budget is synced about once an interval, never
 * twice within half an interval, none waits more than two intervals, and every interactive call
 * is answered.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { countingReceiver, type CountingReceiver } from '../helpers/counting-receiver.js';
import { ok } from '../helpers/mcp.js';

const INTERVAL_S = 4;
const WATCHED = 10;
const ACTIVE = 6;
const HELD = 4;
const WINDOW_INTERVALS = 5;

let d: Deployment;
let rx: CountingReceiver;
const watched: string[] = [];
const active: { s: SignedIn; budget: string }[] = [];

beforeAll(async () => {
  rx = await countingReceiver();
  d = await startDeployment({
    instances: 2,
    args: ['--watch-interval', `${INTERVAL_S}s`, '--max-staleness', '1'],
    env: { YNAB_MCP_WATCH_SHORT: '1', YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK: '1', YNAB_MCP_MAX_USERS_HELD: String(HELD) },
    sandbox: { users: WATCHED + ACTIVE },
  });
  for (const [i, user] of d.sandbox.state.users.entries()) {
    const s = await signIn(d.mcpUrl, new MemoryOAuthProvider(`User ${i}`, `http://127.0.0.1:${7800 + i}/callback`), { login: user.email, era: 'modern' });
    const budget = ok(await s.call('list_budgets')).budgets[0].id as string;
    if (i >= WATCHED) {
      active.push({ s, budget });
      continue;
    }
    watched.push(budget);
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const params = { name: 'category.overspent', arguments: { budget_id: budget }, delivery: { url: rx.url, secret }, cursor: null, ttlMs: 600_000 };
    await s.client.request({ method: 'events/subscribe', params } as never, z.any());
    // Gone from here on: only the watchers ask YNAB anything about this budget.
    await s.close();
  }
}, 240_000);

afterAll(async () => {
  for (const a of active) await a.s.close().catch(() => undefined);
  await d?.close();
  await rx?.close();
});

describe('more watched users than an instance holds', () => {
  it('are each synced once per interval by one instance, none missed, while interactive users turn the LRU over', async () => {
    // Two intervals for the first watcher syncs, then the window.
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_S * 1000));
    const syncs: { budget: string; at: number }[] = [];
    d.upstream.hold = (request) => {
      const budget = watched.find((b) => request.url.startsWith(`/v1/budgets/${b}?`) || request.url.startsWith(`/v1/plans/${b}?`));
      if (budget) syncs.push({ budget, at: Date.now() });
      return undefined;
    };
    const started = Date.now();
    const end = started + WINDOW_INTERVALS * INTERVAL_S * 1000;
    let calls = 0;
    const failures: string[] = [];
    await Promise.all(
      active.map(async ({ s, budget }, u) => {
        for (let n = 0; Date.now() < end; n++) {
          const [name, args] = (u + n) % 2 ? ['list_accounts', { budget_id: budget }] : ['list_transactions', { budget_id: budget, limit: 5 }];
          const res = await s.call(name, args).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
          calls += 1;
          if (res.isError) failures.push(`${name}: ${res.content?.[0]?.text}`);
        }
      }),
    );
    if (Date.now() < end) await new Promise((r) => setTimeout(r, end - Date.now()));
    d.upstream.hold = undefined;
    const intervals = (Date.now() - started) / (INTERVAL_S * 1000);

    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(ACTIVE * 2);
    const half = (INTERVAL_S * 1000) / 2;
    for (const b of watched) {
      const times = syncs.filter((s) => s.budget === b).map((s) => s.at);
      // About once an interval (due an interval after the last sync the store keeps; a tick is a quarter interval).
      expect(times.length, `${b}: syncs in ${intervals.toFixed(1)} intervals`).toBeGreaterThanOrEqual(Math.floor(intervals) - 1);
      expect(times.length, `${b}: syncs in ${intervals.toFixed(1)} intervals`).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      expect(
        gaps.filter((g) => g < half),
        `${b}: synced twice within half an interval`,
      ).toEqual([]);
      expect(
        gaps.filter((g) => g > 2 * INTERVAL_S * 1000),
        `${b}: waited more than two intervals`,
      ).toEqual([]);
    }
  }, 120_000);
});
