/**
 * SEP-3415's webhook control envelopes and secret rotation, to a real receiver on loopback that
 * checks every signature on its own (receiver.ts): a refresh with a new secret dual-signs (the old
 * secret's receiver and the new one's both verify); a position the occurrence log no longer holds
 * (the log made anew, or rolled past it) gets a signed `gap` envelope with the fresh cursor before
 * delivery goes on; a budget the sign-in can no longer read (YNAB answers 401), found by a delivery
 * pass or told by the watcher (readFailed), ends its subscriptions with signed `terminated`
 * envelopes, and they are gone.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { ServerState } from '../../src/mcp/state/state.js';
import type { Condition } from '../../src/events/detect.js';
import { serveHttp } from '../../src/transport/http.js';
import { connect } from '../mcp/http-harness.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, signedWith, whsec } from './receiver.js';

let sb: TestSandbox;
let keep: ReturnType<typeof lasting>;
let ep: Endpoint;
const TOKEN = randomBytes(16).toString('hex');
const hooks = { webhooks: { allowLoopback: true, retryDelaysMs: [20, 20] } };

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  keep = lasting();
  ep = await endpoint(sb, keep, hooks, TOKEN);
});

afterAll(async () => {
  await ep?.close();
  await sb?.close();
  keep?.remove();
});

const subscribe = (client: Endpoint['client'], url: string, secret: string, name = 'category.overspent') =>
  request(client, 'events/subscribe', { name, arguments: {}, delivery: { mode: 'webhook', url, secret }, cursor: null, ttlMs: 600_000 });

/** Overspends a category not overspent yet (from the API's raw data); its id. */
async function overspend(): Promise<string> {
  const facts = await budgetFacts(sb);
  const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
  await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 3_000) });
  return target.id;
}

describe('webhook control', () => {
  it('a refresh with a new secret signs with both secrets for the grace window', async () => {
    const [oldSecret, newSecret] = [whsec(), whsec()];
    const rx = await receiver(oldSecret);
    try {
      const sub = await subscribe(ep.client, rx.url, oldSecret);
      // The client hands its receiver the new secret, then refreshes with it.
      rx.state.secrets.push(newSecret);
      const again = await subscribe(ep.client, rx.url, newSecret);
      expect(again.id).toBe(sub.id);
      // Verification is cached per (principal, url): neither the new secret nor other arguments ask again.
      await subscribe(ep.client, rx.url, newSecret, 'review.queue_grew');
      expect(rx.controls('verification')).toHaveLength(1);
      const category = await overspend();
      const mine = () => rx.events().filter((e) => e.headers['x-mcp-subscription-id'] === sub.id);
      // A poll syncs the copy and runs detection. One that joins a sync already under way (the
      // subscriptions' own first delivery pass) may still read the copy from before the purchase:
      // asked again, as a client would, until the occurrence is delivered.
      for (let i = 0; i < 40 && !mine().length; i++) {
        await poll(ep.client, 'review.queue_grew', null);
        await new Promise((r) => setTimeout(r, 250));
      }
      await rx.until(() => mine().length >= 1);
      const [delivery] = mine();
      expect(JSON.parse(delivery!.body).data.category_id).toBe(category);
      expect(String(delivery!.headers['webhook-signature']).split(' ')).toHaveLength(2);
      // A receiver still on the old secret verifies it, and so does one already on the new.
      expect(signedWith(oldSecret, delivery!)).toBe(true);
      expect(signedWith(newSecret, delivery!)).toBe(true);
      await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
      await request(ep.client, 'events/unsubscribe', { name: 'review.queue_grew', arguments: {}, delivery: { url: rx.url } });
    } finally {
      await rx.close();
    }
  });

  it('a position the log no longer holds gets a gap envelope, then delivery goes on', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const sub = await subscribe(ep.client, rx.url, secret);
      const stack = await ep.state.ready();
      const facts = await budgetFacts(sb);
      // The log made anew (its store key lost, as a flushed Redis would): every open condition fires again in it.
      const [logKey] = (await stack.store.list('events/')).filter((k) => k.endsWith(`${facts.id}.log`));
      await stack.store.delete(logKey!);
      await poll(ep.client, 'review.queue_grew', null);
      const overspent = (await budgetFacts(sb)).overspent;
      await rx.until(() => rx.events().length >= overspent.size);
      const [gap] = rx.controls('gap');
      expect(gap!.valid).toBe(true);
      expect(String(gap!.headers['webhook-id'])).toMatch(/^msg_gap_[0-9a-f]{24}$/);
      expect(gap!.headers['x-mcp-subscription-id']).toBe(sub.id);
      const { cursor } = JSON.parse(gap!.body);
      expect(rx.got.indexOf(gap!)).toBeLessThan(rx.got.indexOf(rx.events()[0]!));
      // After it, each category overspent now (the API's figures) exactly once, in the new log.
      const after = rx.events().map((e) => JSON.parse(e.body));
      expect(after.map((b) => b.data.category_id).sort()).toEqual([...overspent].sort());
      expect(after.every((b) => b.cursor.split('.')[0] === cursor.split('.')[0])).toBe(true);

      // A log rolled past the position (more occurrences than it keeps while delivery was held).
      rx.state.failing = true;
      const held = rx.got.length;
      const many: Condition[] = Array.from({ length: 520 }, (_, i) => ({
        name: 'category.overspent',
        key: `category.overspent|bench-${i}|2099-01`,
        data: { budget_id: facts.id, category_id: `c${i}`, amount: 1 },
      }));
      await stack.events.log.record(facts.id, many);
      await stack.webhooks.deliver(sub.id); // the gap tried, refused, then the subscription marked failing
      rx.state.failing = false;
      const log = await stack.events.log.read(facts.id);
      const expected = log.events.filter((o) => o.name === 'category.overspent').map((o) => o.eventId);
      const refreshed = await subscribe(ep.client, rx.url, secret);
      expect(refreshed.deliveryStatus).toMatchObject({ active: false, lastError: 'http_5xx' });
      const gaps = () => rx.controls('gap').filter((g) => g.status === 200);
      const since = (g: (typeof rx.got)[number]) => rx.events().filter((e) => e.status === 200 && rx.got.indexOf(e) > rx.got.indexOf(g));
      await rx.until(() => gaps().length >= 2 && since(gaps()[1]!).length >= expected.length);
      const second = gaps()[1]!;
      expect(rx.got.indexOf(second)).toBeGreaterThan(held);
      expect(JSON.parse(second.body).cursor).toBe(`${log.epoch}.${log.events[0]!.seq - 1}`);
      expect(since(second).map((e) => e.headers['webhook-id'])).toEqual(expected);
      await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
    } finally {
      await rx.close();
    }
  });

  it('a budget the sign-in can no longer read ends the subscription with a terminated envelope', async () => {
    let ynabToken = sb.accessToken;
    const own = lasting();
    const state = new ServerState(
      mcpConfig({}, {}),
      // One user whatever the token (as hosted mode's identity is): the token is what YNAB stops accepting.
      async () => ({
        credentials: { token: async () => ynabToken },
        info: { source: 'sandbox', kind: 'personal' },
        identity: async () => 'the-user',
        baseUrl: sb.baseUrl,
      }),
      { stateDir: own.dir, persist: false, maxStalenessMs: 0, keySource: { key: async () => own.key }, ...hooks },
    );
    const http = await serveHttp(state, { port: 0, token: TOKEN });
    const client = await connect(http.url, 'modern', TOKEN);
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const sub = await subscribe(client, rx.url, secret);
      const other = await subscribe(client, rx.url, secret, 'review.queue_grew');
      const stack = await state.ready();
      await Promise.all([stack.webhooks.deliver(sub.id), stack.webhooks.deliver(other.id)]); // settled while the sign-in still works
      expect(rx.controls('terminated')).toHaveLength(0);
      ynabToken = 'revoked-by-the-user';
      // The next delivery pass (any sync's) finds YNAB refusing the sign-in.
      await stack.webhooks.deliver(sub.id);
      // The watcher's failed sync says the same of the budget's other subscriptions.
      const failed = await stack.events.refresh((await budgetFacts(sb)).id).catch((e: unknown) => e);
      expect(await stack.webhooks.readFailed((await budgetFacts(sb)).id, new Error('a passing network failure'))).toBe(false);
      expect(await stack.webhooks.readFailed((await budgetFacts(sb)).id, failed)).toBe(true);
      const ended = rx.controls('terminated');
      expect(ended.map((e) => e.headers['x-mcp-subscription-id']).sort()).toEqual([sub.id, other.id].sort());
      for (const e of ended) {
        expect(e.valid).toBe(true);
        expect(String(e.headers['webhook-id'])).toMatch(/^msg_terminated_[0-9a-f]{24}$/);
        expect(JSON.parse(e.body)).toEqual({ type: 'terminated', error: { code: -32024, message: 'Forbidden', data: { reason: 'access_revoked' } } });
      }
      // It no longer exists: nothing to unsubscribe, and nothing more is delivered.
      ynabToken = sb.accessToken;
      for (const name of ['category.overspent', 'review.queue_grew'])
        await expect(request(client, 'events/unsubscribe', { name, arguments: {}, delivery: { url: rx.url } })).rejects.toMatchObject({ code: -32023 });
      await overspend();
      await poll(client, 'review.queue_grew', null);
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.events()).toHaveLength(0);
    } finally {
      await rx.close();
      await client.close();
      await http.close();
      await state.close();
      own.remove();
    }
  });
});
