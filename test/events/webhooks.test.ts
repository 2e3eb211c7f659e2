/**
 * Webhook delivery of the Events extension, to a real receiver on loopback (allowed by the
 * operator's setting) that checks every delivery's Standard Webhooks signature on its own (the
 * HMAC computed here, not by the server's code): the verification handshake, one signed POST per
 * occurrence, exactly once; a failing endpoint retried, then marked failing and reactivated by a
 * refresh; unsubscribe stops delivery; and the refusals: no principal, a bad secret, plain http,
 * private addresses, a rebinding name (through the DNS seam), a redirect not followed. A
 * subscription kept before its id was (no webhooks.ids) is still found, and its id kept from then.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressAllowed, post } from '../../src/events/webhook-send.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, whsec } from './receiver.js';

let sb: TestSandbox;
let keep: ReturnType<typeof lasting>;
let ep: Endpoint;
const TOKEN = randomBytes(16).toString('hex');

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  keep = lasting();
  ep = await endpoint(sb, keep, { webhooks: { allowLoopback: true, retryDelaysMs: [20, 20] } }, TOKEN);
});

afterAll(async () => {
  await ep?.close();
  await sb?.close();
  keep?.remove();
});

describe('webhook delivery', () => {
  it('verifies the endpoint, then POSTs each occurrence once, signed', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const sub = await request(ep.client, 'events/subscribe', {
        name: 'category.overspent',
        arguments: {},
        delivery: { mode: 'webhook', url: rx.url, secret },
        cursor: null,
        ttlMs: 600_000,
      });
      expect(sub.id).toMatch(/^sub_[0-9a-f]{16}$/);
      expect(Date.parse(sub.refreshBefore) - Date.now()).toBeLessThanOrEqual(600_000);
      expect(JSON.parse(rx.got[0]!.body).type).toBe('verification');
      expect(rx.got[0]!.valid).toBe(true);

      const facts = await budgetFacts(sb);
      const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 4_000) });
      // Any sync of the budget is scanned. A poll that joins a sync already under way (the
      // subscription's first delivery pass) may read the copy from before the purchase: asked
      // again, as a client would, until the occurrence is delivered.
      for (let i = 0; i < 40 && !rx.events().length; i++) {
        await poll(ep.client, 'review.queue_grew', null);
        await new Promise((r) => setTimeout(r, 250));
      }
      await rx.until(() => rx.events().length >= 1);
      const [delivery] = rx.events();
      expect(delivery!.valid).toBe(true);
      const body = JSON.parse(delivery!.body);
      expect(body).toMatchObject({ name: 'category.overspent', data: { category_id: target.id, amount: 4_000 } });
      expect(delivery!.headers['webhook-id']).toBe(body.eventId);
      expect(delivery!.headers['x-mcp-subscription-id']).toBe(sub.id);
      expect(typeof body.cursor).toBe('string');
      // No secret in anything the server answered.
      expect(JSON.stringify(sub)).not.toContain(secret.slice(6, 20));

      // Refresh: the same id, healthy; nothing is sent twice.
      const again = await request(ep.client, 'events/subscribe', {
        name: 'category.overspent',
        arguments: {},
        delivery: { url: rx.url, secret },
        cursor: body.cursor,
      });
      expect(again.id).toBe(sub.id);
      expect(again.deliveryStatus).toMatchObject({ active: true, lastError: null });
      await poll(ep.client, 'review.queue_grew', null);
      expect(rx.events()).toHaveLength(1);

      // A receiver holding another secret rejects the delivery (its check fails).
      const wrong = createHmac('sha256', Buffer.from(whsec().slice(6), 'base64'))
        .update(`${body.eventId}.${delivery!.headers['webhook-timestamp']}.${delivery!.body}`)
        .digest('base64');
      expect(String(delivery!.headers['webhook-signature'])).not.toContain(wrong);

      await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
      const other = facts.categories.find((c) => c.balance >= 0 && c.id !== target.id && !facts.overspent.has(c.id))!;
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: other.id, amount: -(other.balance + 1_000) });
      await poll(ep.client, 'category.overspent', null);
      await new Promise((r) => setTimeout(r, 300));
      expect(rx.events()).toHaveLength(1);
      await expect(request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } })).rejects.toMatchObject({
        code: -32023,
      });
    } finally {
      await rx.close();
    }
  });

  it('finds a subscription kept before its id was (no webhooks.ids yet), and keeps its id from then', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const sub = await request(ep.client, 'events/subscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url, secret }, cursor: null });
      const idsFile = readdirSync(keep.dir, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('webhooks.ids'))!;
      expect(JSON.parse(readFileSync(join(keep.dir, idsFile), 'utf8'))).toContain(sub.id);
      rmSync(join(keep.dir, idsFile)); // as a record written by a version without ids
      const facts = await budgetFacts(sb);
      const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 2_000) });
      for (let i = 0; i < 40 && !rx.events().some((e) => JSON.parse(e.body).data?.category_id === target.id); i++) {
        await poll(ep.client, 'review.queue_grew', null);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(rx.events().map((e) => JSON.parse(e.body).data?.category_id)).toContain(target.id);
      expect(JSON.parse(readFileSync(join(keep.dir, idsFile), 'utf8'))).toContain(sub.id);
      await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
      expect(JSON.parse(readFileSync(join(keep.dir, idsFile), 'utf8'))).not.toContain(sub.id);
    } finally {
      await rx.close();
    }
  });

  it('retries a failing endpoint, marks the subscription failing, and a refresh resumes it', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const args = { name: 'review.queue_grew', arguments: {}, delivery: { url: rx.url, secret } };
      await request(ep.client, 'events/subscribe', { ...args, cursor: null });
      rx.state.failing = true;
      const facts = await budgetFacts(sb);
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: facts.categories[0]!.id, amount: -1_000, approved: false });
      await poll(ep.client, 'category.overspent', null);
      await new Promise<void>((resolve) => {
        const check = () => (rx.got.filter((g) => !JSON.parse(g.body).type).length >= 3 ? resolve() : setTimeout(check, 20));
        check();
      });
      await new Promise((r) => setTimeout(r, 100));
      const failing = await request(ep.client, 'events/subscribe', { ...args, cursor: null });
      expect(failing.deliveryStatus).toMatchObject({ active: false, lastError: 'http_5xx' });
      expect(rx.events().every((e) => e.valid)).toBe(true);
      rx.state.failing = false;
      await rx.until(() => rx.events().length >= 4);
      const ids = new Set(rx.events().map((e) => JSON.parse(e.body).eventId));
      expect(ids.size).toBe(1); // one occurrence, retried: the same eventId every time
    } finally {
      await rx.close();
    }
  });

  it('refuses what it must', async () => {
    const secret = whsec();
    const base = { name: 'category.overspent', arguments: {}, cursor: null };
    await expect(request(ep.client, 'events/subscribe', { ...base, delivery: { url: 'https://example.com/h', secret: 'whsec_short' } })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(request(ep.client, 'events/subscribe', { ...base, delivery: { url: 'http://example.com/h', secret } })).rejects.toThrow(/must be https/);
    // (Loopback is allowed by this server's operator setting; without it, it is refused too.)
    expect(addressAllowed('127.0.0.1')).toBe(false);
    expect(addressAllowed('::ffff:10.0.0.1')).toBe(false);
    expect(addressAllowed('93.184.216.34')).toBe(true);
    for (const url of [
      'https://10.1.2.3/h',
      'https://192.168.1.1/h',
      'https://169.254.169.254/latest',
      'https://[fe80::1]/h',
      'https://100.64.0.1/h',
      'https://[fd00::1]/h',
    ])
      await expect(request(ep.client, 'events/subscribe', { ...base, delivery: { url, secret } })).rejects.toThrow(/no public address/);
    // A name that resolves to a public address at subscribe and a private one at delivery: every POST resolves again.
    const rebinding = async () => [{ address: '10.0.0.7', family: 4 }];
    expect((await post('https://rebind.example/h', {}, '{}', { lookup: rebinding })).outcome).toBe('blocked');
    const mixed = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect((await post('https://mixed.example/h', {}, '{}', { lookup: mixed })).outcome).toBe('blocked');
    // A redirect is not followed.
    const target = await receiver(secret);
    const hop = await receiver(secret);
    try {
      hop.state.redirect = target.url;
      expect((await post(hop.url, {}, '{}', { allowLoopback: true })).outcome).toBe('http_4xx');
      expect(target.got).toHaveLength(0);
      await expect(request(ep.client, 'events/subscribe', { ...base, delivery: { url: hop.url, secret } })).rejects.toMatchObject({ code: -32027 });
    } finally {
      await target.close();
      await hop.close();
    }
    // Without an authenticated principal (no bearer token), webhooks are refused.
    const open = await endpoint(sb, keep);
    try {
      await expect(request(open.client, 'events/subscribe', { ...base, delivery: { url: 'https://example.com/h', secret } })).rejects.toMatchObject({
        code: -32024,
      });
    } finally {
      await open.close();
    }
  });
});
