// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Webhook subscriptions in hosted mode (issue 44 item 5: "a user's subscriptions are that user's
 * alone"): two users of one deployment (two instances behind the round-robin proxy, one Redis, the
 * sandbox with two users), each signed in through the full MCP authorization flow on the
 * 2026-07-28 era. Alice's subscription belongs to her: Bob, naming the same type, arguments and
 * URL, can neither unsubscribe it (NotFound) nor take it over with his own secret (her endpoint
 * does not confirm his challenge); his own subscription is another one (another id). Deliveries to
 * her receiver carry only her budget's occurrences, signed with her secret, whichever instance
 * synced; her record in Redis sits under her identity, sealed (her secret is nowhere in plain).
 */
import { createClient, RESP_TYPES } from 'redis';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { request } from '../events/helpers.js';
import { receiver, signedWith, whsec } from '../events/receiver.js';

let d: Deployment;
let alice: SignedIn;
let bob: SignedIn;
let sbAlice: SandboxUser;
let sbBob: SandboxUser;

beforeAll(async () => {
  d = await startDeployment({
    instances: 2,
    sandbox: { users: 2 },
    args: ['--max-staleness', '0'],
    env: {
      YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK: '1',
      // The operator's caps (principal-caps.ts): two webhook subscriptions a user, one open stream a user on each instance.
      YNAB_MCP_MAX_WEBHOOKS: '2',
      YNAB_MCP_MAX_STREAMS: '1',
    },
  });
  [sbAlice, sbBob] = d.sandbox.state.users as [SandboxUser, SandboxUser];
  alice = await signIn(d.mcpUrl, new MemoryOAuthProvider("Alice's assistant"), { login: sbAlice.email, era: 'modern' });
  bob = await signIn(d.mcpUrl, new MemoryOAuthProvider("Bob's assistant", 'http://127.0.0.1:7779/callback'), { login: sbBob.email, era: 'modern' });
}, 120_000);

afterAll(async () => {
  await alice?.close().catch(() => undefined);
  await bob?.close().catch(() => undefined);
  await d?.close();
});

/** A purchase in the user's last-used budget (through the sandbox's API, as the user in YNAB) that overspends a category; its id. */
async function overspend(user: SandboxUser): Promise<string> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${d.sandbox.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status}`);
    return ((await res.json()) as any).data;
  };
  const budgetId: string = (await call('GET', '/budgets/last-used')).budget.id;
  const month = (await call('GET', `/budgets/${budgetId}/months/current`)).month;
  const groups: any[] = (await call('GET', `/budgets/${budgetId}/categories`)).category_groups;
  const internal = new Set(
    groups.filter((g) => g.name === 'Internal Master Category' || g.name === 'Credit Card Payments').flatMap((g) => g.categories.map((c: any) => c.id)),
  );
  const target = (month.categories as any[]).find((c) => !c.deleted && !c.hidden && !internal.has(c.id) && c.balance >= 0);
  const checking = ((await call('GET', `/budgets/${budgetId}/accounts`)).accounts as any[]).find((a) => a.type === 'checking' && !a.closed && a.on_budget);
  const today = new Date().toISOString().slice(0, 10);
  await call('POST', `/budgets/${budgetId}/transactions`, {
    transaction: { account_id: checking.id, date: today, amount: -(target.balance + 5_000), category_id: target.id, cleared: 'cleared', approved: true },
  });
  return target.id;
}

const poll = (who: SignedIn) => request(who.client, 'events/poll', { name: 'review.queue_grew', arguments: {}, cursor: null });

describe('hosted webhooks', () => {
  it("a user's subscription is theirs alone", async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const key = { name: 'category.overspent', arguments: {} };
      const sub = await request(alice.client, 'events/subscribe', { ...key, delivery: { url: rx.url, secret }, cursor: null, ttlMs: 600_000 });
      expect(rx.controls('verification')).toHaveLength(1);

      // Bob names the same subscription: not his to end, nor to take over with his secret.
      await expect(request(bob.client, 'events/unsubscribe', { ...key, delivery: { url: rx.url } })).rejects.toMatchObject({ code: -32023 });
      await expect(request(bob.client, 'events/subscribe', { ...key, delivery: { url: rx.url, secret: whsec() }, cursor: null })).rejects.toMatchObject({
        code: -32027,
        data: { reason: 'http_4xx' },
      });
      // His own endpoint gets his own subscription: another id.
      const bobSecret = whsec();
      const bobRx = await receiver(bobSecret);
      try {
        const his = await request(bob.client, 'events/subscribe', { ...key, delivery: { url: bobRx.url, secret: bobSecret }, cursor: null });
        expect(his.id).not.toBe(sub.id);

        // A change in Bob's budget reaches Bob's receiver only; one in Alice's, Alice's only.
        const bobCategory = await overspend(sbBob);
        await poll(bob);
        await bobRx.until(() => bobRx.events().length >= 1);
        const aliceCategory = await overspend(sbAlice);
        await poll(alice);
        await rx.until(() => rx.events().length >= 1);
        await poll(bob);
        await new Promise((r) => setTimeout(r, 300));
        expect(rx.events().map((e) => JSON.parse(e.body).data.category_id)).toEqual([aliceCategory]);
        expect(bobRx.events().map((e) => JSON.parse(e.body).data.category_id)).toEqual([bobCategory]);
        expect(rx.events().every((e) => e.valid && signedWith(secret, e) && e.headers['x-mcp-subscription-id'] === sub.id)).toBe(true);
        expect(bobRx.events().every((e) => e.valid && e.headers['x-mcp-subscription-id'] === his.id)).toBe(true);
        const aliceBudgets = new Set(sbAlice.budgets.map((b) => b.id));
        expect(rx.events().every((e) => aliceBudgets.has(JSON.parse(e.body).data.budget_id))).toBe(true);
      } finally {
        await bobRx.close();
      }

      // Her subscription is intact: her refresh finds it live, and her record is sealed under her identity.
      const again = await request(alice.client, 'events/subscribe', { ...key, delivery: { url: rx.url, secret }, cursor: null });
      expect(again).toMatchObject({ id: sub.id, deliveryStatus: { active: true, lastError: null } });
      const redis = createClient({ url: d.redis.url }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      await redis.connect();
      try {
        const keys = (await redis.keys('*webhooks/*')).map(String);
        const mine = keys.filter((k) => k.includes(`/webhooks/${sub.id}.sub`));
        expect(mine).toHaveLength(1);
        expect(keys.filter((k) => k.includes('/webhooks/'))).toHaveLength(2);
        const raw = Buffer.concat(await Promise.all(keys.map(async (k) => (await redis.get(k)) as unknown as Buffer)));
        expect(raw.includes(Buffer.from(secret))).toBe(false);
        expect(raw.includes(Buffer.from(secret.slice(6)))).toBe(false);
        // Each user's subscription ids are kept beside the records (all() reads them, not a SCAN of every key).
        const idsKey = mine[0]!.replace(`/webhooks/${sub.id}.sub`, '/webhooks.ids');
        const ids = async () => JSON.parse(String((await redis.get(idsKey)) ?? '[]')) as string[];
        expect(await ids()).toEqual([sub.id]);
        expect((await redis.keys('*webhooks.ids')).map(String)).toHaveLength(2);
        await request(alice.client, 'events/unsubscribe', { ...key, delivery: { url: rx.url } });
        expect(await ids()).toEqual([]);
      } finally {
        await redis.quit();
      }
    } finally {
      await rx.close();
    }
  }, 120_000);

  it("another user's budget is Forbidden in subscribe, poll and stream, never an internal error", async () => {
    const aliceBudget = sbAlice.budgets[0]!.id;
    const args = { budget_id: aliceBudget };
    const forbidden = { code: -32024, data: { reason: 'budget_unavailable' } };
    await expect(request(bob.client, 'events/poll', { name: 'category.overspent', arguments: args, cursor: null })).rejects.toMatchObject(forbidden);
    await expect(request(bob.client, 'events/stream', { name: 'category.overspent', arguments: args, cursor: null })).rejects.toMatchObject(forbidden);
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      await expect(
        request(bob.client, 'events/subscribe', { name: 'category.overspent', arguments: args, delivery: { url: rx.url, secret }, cursor: null }),
      ).rejects.toMatchObject(forbidden);
      // Her own budget is hers to poll.
      expect((await request(alice.client, 'events/poll', { name: 'category.overspent', arguments: args, cursor: null })).truncated).toBe(false);
    } finally {
      await rx.close();
    }
  }, 60_000);

  it("the operator's caps hold: webhook subscriptions across instances, open streams on each", async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const sub = (name: string) => request(alice.client, 'events/subscribe', { name, arguments: {}, delivery: { url: rx.url, secret }, cursor: null });
      await sub('category.overspent');
      await sub('review.queue_grew');
      // Kept in Redis: whichever instance answers counts both.
      for (let i = 0; i < 2; i++) await expect(sub('bill.uncovered')).rejects.toMatchObject({ code: -32025, data: { limit: 'subscriptions', max: 2 } });
      for (const name of ['category.overspent', 'review.queue_grew'])
        await request(alice.client, 'events/unsubscribe', { name, arguments: {}, delivery: { url: rx.url } });
    } finally {
      await rx.close();
    }
    // Two instances, one stream each: of three streams at once, one at least is refused, at most two open.
    const controllers = [0, 1, 2].map(() => new AbortController());
    const outcomes = controllers.map((ac) =>
      alice.client
        .request({ method: 'events/stream', params: { name: 'category.overspent', arguments: {}, cursor: null } } as never, z.any(), { signal: ac.signal })
        .then(
          () => 'ended',
          (e: { code?: number; data?: { limit?: string } }) => (e.code === -32025 && e.data?.limit === 'streams' ? 'refused' : 'closed'),
        ),
    );
    const refused = await Promise.race([
      Promise.any(outcomes.map((o) => o.then((x) => (x === 'refused' ? x : Promise.reject(x))))),
      new Promise((r) => setTimeout(() => r('none'), 20_000)),
    ]);
    expect(refused).toBe('refused');
    for (const ac of controllers) ac.abort();
    const settled = await Promise.all(outcomes);
    expect(settled.filter((x) => x === 'refused').length).toBeGreaterThanOrEqual(1);
    expect(settled.filter((x) => x === 'refused').length).toBeLessThanOrEqual(2);
  }, 60_000);
});
