/**
 * The Events surface under attack (issue 59 item 8), against real receivers on loopback:
 *  - a delivery has a deadline, not an idle timer: a receiver that answers 200 and then trickles a
 *    byte a second, or trickles its answer's head, is cut, and the subscription's next occurrence
 *    goes through; a handshake that trickles fails `events/subscribe` with CallbackEndpointError
 *    `timeout` instead of holding it to the transport's deadline;
 *  - the verification handshake is sent once per URL at a time (20 subscribes at once, one POST)
 *    and rate-limited per destination host (ResourceExhausted past it);
 *  - per-principal caps on webhook subscriptions and open streams (ResourceExhausted, -32025, with
 *    `data.limit` and `data.max`), a refresh always passing;
 *  - cursors parsed strictly (`<epoch>.1.5` is InvalidParams, not read as 1);
 *  - a read-only server may subscribe (webhooks read the budget and write nothing to YNAB).
 * No assertion on how long anything took: that a cut exchange ended, and what came after.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../src/events/webhook-send.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, whsec } from './receiver.js';
import { trickle, trickler, type Trickle } from './trickler.js';

let sb: TestSandbox;
const dirs: ReturnType<typeof lasting>[] = [];
let ep: Endpoint;
let capped: Endpoint;
const TOKEN = randomBytes(16).toString('hex');

/** An endpoint with a state directory of its own (the principal is the bearer token's: one directory, one principal's subscriptions). */
async function own(caps: Record<string, number> = {}, flags = {}): Promise<Endpoint> {
  const keep = lasting();
  dirs.push(keep);
  return endpoint(sb, keep, { webhooks: { allowLoopback: true, retryDelaysMs: [20, 20], caps } }, TOKEN, flags);
}

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  ep = await own();
  capped = await own({ webhooks: 3, streams: 2, verifyPerHost: 1000 });
});

afterAll(async () => {
  await ep?.close();
  await capped?.close();
  await sb?.close();
  for (const d of dirs) d.remove();
});

const subscribe = (client: Endpoint['client'], url: string, secret: string, extra: Record<string, unknown> = {}) =>
  request(client, 'events/subscribe', { name: 'category.overspent', arguments: {}, delivery: { url, secret }, cursor: null, ttlMs: 600_000, ...extra });

/** Overspends a category not overspent yet; its id. */
async function overspend(): Promise<string> {
  const facts = await budgetFacts(sb);
  const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
  await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 3_000) });
  return target.id;
}

describe('a delivery has a deadline, not an idle timer', () => {
  it('a receiver that answers 200 and then trickles is cut, and the next occurrence goes through', async () => {
    const rx = await trickler({ slow: (n) => n === 1 });
    try {
      await subscribe(ep.client, rx.url, whsec());
      const first = await overspend();
      for (let i = 0; i < 40 && !rx.events.length; i++) {
        await poll(ep.client, 'review.queue_grew', null);
        await new Promise((r) => setTimeout(r, 250));
      }
      const second = await overspend();
      for (let i = 0; i < 120 && rx.events.length < 2; i++) {
        await poll(ep.client, 'review.queue_grew', null);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(rx.events).toEqual([first, second]);
      // The first exchange was ended by the server, long before the receiver stopped trickling (90 bytes).
      expect(rx.trickles[0]!.closed).toBe(true);
      expect(rx.trickles[0]!.bytes).toBeLessThan(30);
      await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
    } finally {
      await rx.close();
    }
  }, 60_000);

  it("a receiver that trickles its answer's head is cut: the attempt timed out", async () => {
    const trickles: Trickle[] = [];
    const server = createNetServer((socket) => {
      socket.once('data', () => trickles.push(trickle(socket, 'HTTP/1.1 200 OK\r\nX-Slow: ')));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const sent = await post(url, {}, '{}', { allowLoopback: true });
      expect(sent.outcome).toBe('timeout');
      await new Promise((r) => setTimeout(r, 100));
      expect(trickles[0]!.closed).toBe(true);
      expect(trickles[0]!.bytes).toBeLessThan(30);
    } finally {
      server.close();
    }
  }, 40_000);

  it('a handshake that trickles fails the subscribe with CallbackEndpointError timeout', async () => {
    const rx = await trickler({ slowHandshake: true });
    try {
      await expect(subscribe(ep.client, rx.url, whsec())).rejects.toMatchObject({ code: -32027, data: { reason: 'timeout' } });
      await new Promise((r) => setTimeout(r, 100));
      expect(rx.trickles[0]!.closed).toBe(true);
      expect(rx.trickles[0]!.bytes).toBeLessThan(40);
    } finally {
      await rx.close();
    }
  }, 50_000);
});

describe('the verification handshake', () => {
  it('is sent once when 20 subscribes to one new URL arrive at once', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const subs = await Promise.all(Array.from({ length: 20 }, (_, i) => subscribe(ep.client, rx.url, secret, { arguments: { min_milliunits: i } })));
      expect(new Set(subs.map((s) => s.id)).size).toBe(20);
      expect(rx.controls('verification')).toHaveLength(1);
      for (let i = 0; i < 20; i++)
        await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: { min_milliunits: i }, delivery: { url: rx.url } });
    } finally {
      await rx.close();
    }
  });

  it('is rate-limited per destination host: past the limit, ResourceExhausted and no POST', async () => {
    const limited = await own({ verifyPerHost: 3 });
    const secret = whsec();
    // A host of its own (127.0.0.2): no other test's handshakes count against it.
    const rx = await receiver(secret, '127.0.0.2');
    try {
      for (const path of ['a', 'b', 'c']) await subscribe(limited.client, `${rx.url}/${path}`, secret);
      await expect(subscribe(limited.client, `${rx.url}/d`, secret)).rejects.toMatchObject({ code: -32025, data: { limit: 'verifications', max: 3 } });
      expect(rx.controls('verification')).toHaveLength(3);
      // A URL verified already needs no handshake: its refresh passes.
      await subscribe(limited.client, `${rx.url}/a`, secret);
    } finally {
      await rx.close();
      await limited.close();
    }
  });
});

describe('per-principal caps', () => {
  it('refuses a webhook subscription past the cap with ResourceExhausted; a refresh passes, an unsubscribe makes room', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const names = ['category.overspent', 'account.reconcile_due', 'review.queue_grew'];
      for (const name of names) await subscribe(capped.client, rx.url, secret, { name });
      const over = subscribe(capped.client, rx.url, secret, { name: 'bill.uncovered' });
      await expect(over).rejects.toMatchObject({ code: -32025, data: { limit: 'subscriptions', max: 3 } });
      await expect(over).rejects.toThrow(/events\/unsubscribe/);
      await subscribe(capped.client, rx.url, secret, { name: names[0] });
      await request(capped.client, 'events/unsubscribe', { name: names[0], arguments: {}, delivery: { url: rx.url } });
      await subscribe(capped.client, rx.url, secret, { name: 'bill.uncovered' });
    } finally {
      await rx.close();
    }
  });

  it('a burst of subscribes at once keeps no more than the cap', async () => {
    const burst = await own({ webhooks: 3 });
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const tried = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => subscribe(burst.client, rx.url, secret, { arguments: { min_milliunits: i } })),
      );
      const refused = tried.filter((t) => t.status === 'rejected').map((t) => (t as PromiseRejectedResult).reason);
      expect(refused.every((e) => e.code === -32025 && e.data.limit === 'subscriptions')).toBe(true);
      expect(tried.filter((t) => t.status === 'fulfilled')).toHaveLength(3);
      // What the server holds: each of the ten unsubscribed, and only the kept are found.
      let held = 0;
      for (let i = 0; i < 10; i++)
        held += await request(burst.client, 'events/unsubscribe', {
          name: 'category.overspent',
          arguments: { min_milliunits: i },
          delivery: { url: rx.url },
        }).then(
          () => 1,
          () => 0,
        );
      expect(held).toBe(3);
    } finally {
      await rx.close();
      await burst.close();
    }
  });

  it('refuses an events/stream past the cap; closing one makes room', async () => {
    let active = 0;
    capped.client.setNotificationHandler(
      'notifications/events/active' as never,
      { params: z.record(z.string(), z.any()) } as never,
      (() => void (active += 1)) as never,
    );
    const until = async (n: number) => {
      for (let i = 0; i < 200 && active < n; i++) await new Promise((r) => setTimeout(r, 50));
    };
    const open = () => {
      const ac = new AbortController();
      const done = capped.client
        .request({ method: 'events/stream', params: { name: 'category.overspent', arguments: {}, cursor: null } } as never, z.any(), { signal: ac.signal })
        .catch(() => 'closed');
      return { ac, done };
    };
    const a = open();
    const b = open();
    await until(2);
    expect(active).toBe(2);
    await expect(request(capped.client, 'events/stream', { name: 'category.overspent', arguments: {}, cursor: null })).rejects.toMatchObject({
      code: -32025,
      data: { limit: 'streams', max: 2 },
    });
    a.ac.abort();
    await a.done;
    // The server hears the cancellation; a new stream is let in once it has.
    let c: ReturnType<typeof open> | undefined;
    for (let i = 0; i < 40 && active < 3; i++) {
      c = open();
      await Promise.race([c.done, until(3)]);
    }
    expect(active).toBe(3);
    b.ac.abort();
    c?.ac.abort();
  });
});

describe('cursors', () => {
  it('are parsed strictly: <epoch>.1.5 is InvalidParams in poll, stream and subscribe', async () => {
    const { cursor } = await poll(ep.client, 'category.overspent', null);
    const [epoch] = cursor.split('.');
    for (const bad of [`${epoch}.1.5`, `${epoch}.01`, `${epoch}.-1`, `${epoch}.1e0`, `${epoch}. 1`])
      await expect(poll(ep.client, 'category.overspent', bad)).rejects.toMatchObject({ code: -32602 });
    await expect(request(ep.client, 'events/stream', { name: 'category.overspent', arguments: {}, cursor: `${epoch}.1.5` })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(subscribe(ep.client, 'http://127.0.0.1:9/hook', whsec(), { cursor: `${epoch}.1.5` })).rejects.toMatchObject({ code: -32602 });
    // A well-formed cursor of another log is not an error: the SEP's truncated.
    expect((await poll(ep.client, 'category.overspent', 'abcdefabcdef.1')).truncated).toBe(true);
    expect((await poll(ep.client, 'category.overspent', cursor)).truncated).toBe(false);
  });
});

describe('a read-only server', () => {
  it('may subscribe to webhooks (they read the budget, and write nothing to YNAB)', async () => {
    const readOnly = await own({}, { readOnly: true });
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const sub = await subscribe(readOnly.client, rx.url, secret);
      expect(sub.id).toMatch(/^sub_/);
      expect(rx.controls('verification')).toHaveLength(1);
    } finally {
      await rx.close();
      await readOnly.close();
    }
  });
});
