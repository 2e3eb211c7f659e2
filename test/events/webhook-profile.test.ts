/**
 * The webhook profile SEP-3415 and ChatGPT's guide share, to receivers on loopback that verify every
 * signature on their own (receiver.ts):
 *  - the secret is the client's, `whsec_` and the base64 of 24 to 64 bytes (23, 65, none, not base64
 *    or without the prefix refused), and the URL https (plain http to loopback only under the
 *    operator's flag); the first subscribe to a URL is verified with a signed challenge;
 *  - 410 and 413 end one body, not the subscription: each POSTed once, never retried, the refresh
 *    says `lastError: "http_4xx"` with the subscription active, and the next occurrence is delivered;
 *  - a body over 256 KiB is never sent;
 *  - the control envelopes go only where the subscriber takes them: a ChatGPT subscriber gets no
 *    `gap` (its next refresh says `truncated`) and no `terminated`; a 2025-era subscriber's
 *    `terminated` carries the design sketch's Forbidden (-32012), a SEP subscriber's SEP-3415's
 *    (-32024).
 */
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, urlProblem } from '../../src/events/webhook-send.js';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { serveHttp } from '../../src/transport/http.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect } from '../mcp/http-harness.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, whsec } from './receiver.js';

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

/** A 2026-07-28 client: ChatGPT (by its clientInfo), or one declaring the SEP's extension. */
async function modern(url: string, who: 'chatgpt' | 'sep'): Promise<Client> {
  const client =
    who === 'chatgpt'
      ? new Client({ name: 'openai-mcp', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
      : new Client(
          { name: 'sep-client', version: '1.0.0' },
          { capabilities: { extensions: { 'io.modelcontextprotocol/events': {} } } as never, versionNegotiation: { mode: 'auto' } },
        );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

const subscribe = (client: Client, url: string, secret: string, cursor: string | null = null) =>
  request(client, 'events/subscribe', { name: 'category.overspent', arguments: {}, delivery: { mode: 'webhook', url, secret }, cursor, ttlMs: 600_000 });

/** Overspends a category not overspent yet (from the API's raw data); its id. */
async function overspend(): Promise<string> {
  const facts = await budgetFacts(sb);
  const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
  await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 3_000) });
  return target.id;
}

/** Polls (each poll syncs the copy and runs detection) until `done`, as a client would. */
async function until(client: Client, done: () => boolean): Promise<void> {
  for (let i = 0; i < 40 && !done(); i++) {
    await poll(client, 'review.queue_grew', null);
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(done()).toBe(true);
}

describe('the webhook profile', () => {
  it('410 and 413 end one body, never retried, and the subscription goes on', async () => {
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      await subscribe(ep.client, rx.url, secret);
      const statuses = [413, 410];
      let n = 0;
      rx.state.answer = () => statuses[n++];
      await overspend();
      await overspend();
      await until(ep.client, () => rx.events().length >= 2);
      await new Promise((r) => setTimeout(r, 300));
      // Each body once: no retry after either.
      expect(rx.events().map((e) => e.status)).toEqual([413, 410]);
      expect(new Set(rx.events().map((e) => e.headers['webhook-id'])).size).toBe(2);
      const refreshed = await subscribe(ep.client, rx.url, secret);
      expect(refreshed.deliveryStatus).toMatchObject({ active: true, lastError: 'http_4xx' });
      expect(refreshed.deliveryStatus.failedSince).toBeUndefined();
      // The next occurrence is delivered.
      const third = await overspend();
      await until(ep.client, () => rx.events().length >= 3);
      expect(rx.events()[2]!.status).toBe(200);
      expect(JSON.parse(rx.events()[2]!.body).data.category_id).toBe(third);
      await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
    } finally {
      await rx.close();
    }
  });

  it("takes only the client's secret, whsec_ and 24 to 64 bytes, and https (loopback http only under the operator's flag)", async () => {
    const rx = await receiver([]);
    try {
      const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
      const sub = (secret: string | undefined, url = rx.url) =>
        request(ep.client, 'events/subscribe', {
          name: 'category.overspent',
          arguments: {},
          delivery: { url, ...(secret === undefined ? {} : { secret }) },
          cursor: null,
        });
      for (const bad of [
        undefined,
        secretOf(23),
        secretOf(65),
        `whsec_${'!'.repeat(40)}`,
        `whsec${randomBytes(32).toString('base64')}`,
        randomBytes(32).toString('hex'),
      ])
        await expect(sub(bad)).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/whsec_.*24 to 64/) });
      expect(rx.got).toHaveLength(0);
      for (const bytes of [24, 64]) {
        const secret = secretOf(bytes);
        rx.state.secrets.push(secret);
        await sub(secret);
        await request(ep.client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx.url } });
      }
      // The first subscribe to the URL was verified with a signed challenge, and only it (cached per principal and URL).
      expect(rx.controls('verification').map((v) => v.valid)).toEqual([true]);
      await expect(sub(secretOf(32), 'http://example.com/hook')).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/must be https/) });
      expect(urlProblem(rx.url, false)).toMatch(/must be https/);
      expect(urlProblem(rx.url, true)).toBeUndefined();
    } finally {
      await rx.close();
    }
  });

  it('never sends a body over 256 KiB', async () => {
    const rx = await receiver(whsec());
    try {
      const largest = JSON.stringify({ pad: 'x'.repeat(256 * 1024 - 10) });
      expect(Buffer.byteLength(largest)).toBe(256 * 1024);
      // 256 KiB goes out (unsigned here, so the receiver refuses it: it was sent).
      expect((await post(rx.url, {}, largest, { allowLoopback: true })).outcome).toBe('http_4xx');
      expect(rx.got).toHaveLength(1);
      expect((await post(rx.url, {}, `${largest} `, { allowLoopback: true })).outcome).toBe('too_large');
      expect(rx.got).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it('sends a gap envelope to a SEP subscriber, and to ChatGPT none: its refresh says truncated', async () => {
    const [chatgpt, sep] = [await modern(ep.http.url, 'chatgpt'), await modern(ep.http.url, 'sep')];
    const secrets = [whsec(), whsec()];
    const [rxC, rxS] = [await receiver(secrets[0]!), await receiver(secrets[1]!)];
    try {
      await subscribe(chatgpt, rxC.url, secrets[0]!);
      await subscribe(sep, rxS.url, secrets[1]!);
      const stack = await ep.state.ready();
      const facts = await budgetFacts(sb);
      // The log made anew (its store key lost, as a flushed Redis would): every open condition fires again in it.
      const [logKey] = (await stack.store.list('events/')).filter((k) => k.endsWith(`${facts.id}.log`));
      await stack.store.delete(logKey!);
      const overspent = (await budgetFacts(sb)).overspent;
      await until(sep, () => rxS.events().length >= overspent.size && rxC.events().length >= overspent.size);
      expect(rxS.controls('gap')).toHaveLength(1);
      expect(rxS.controls('gap')[0]!.valid).toBe(true);
      expect(rxC.controls('gap')).toHaveLength(0);
      const cursor = JSON.parse(rxC.events().at(-1)!.body).cursor;
      expect((await subscribe(chatgpt, rxC.url, secrets[0]!, cursor)).truncated).toBe(true);
      expect((await subscribe(chatgpt, rxC.url, secrets[0]!, cursor)).truncated).toBe(false);
      for (const [client, url] of [
        [chatgpt, rxC.url],
        [sep, rxS.url],
      ] as const)
        await request(client, 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url } });
    } finally {
      await Promise.all([rxC.close(), rxS.close(), chatgpt.close(), sep.close()]);
    }
  });

  it('ends subscriptions with a terminated envelope in each subscriber codes, and ChatGPT with none', async () => {
    let ynabToken = sb.accessToken;
    const own = lasting();
    const state = new ServerState(
      mcpConfig({}, {}),
      async () => ({
        credentials: { token: async () => ynabToken },
        info: { source: 'sandbox', kind: 'personal' },
        identity: async () => 'the-user',
        baseUrl: sb.baseUrl,
      }),
      { stateDir: own.dir, persist: false, maxStalenessMs: 0, keySource: { key: async () => own.key }, ...hooks },
    );
    const http = await serveHttp(state, { port: 0, token: TOKEN });
    const clients = { chatgpt: await modern(http.url, 'chatgpt'), legacy: await connect(http.url, 'legacy', TOKEN), sep: await modern(http.url, 'sep') };
    const secrets = { chatgpt: whsec(), legacy: whsec(), sep: whsec() };
    const rx = { chatgpt: await receiver(secrets.chatgpt), legacy: await receiver(secrets.legacy), sep: await receiver(secrets.sep) };
    const who = ['chatgpt', 'legacy', 'sep'] as const;
    try {
      const subs = await Promise.all(who.map((w) => subscribe(clients[w], rx[w].url, secrets[w])));
      const stack = await state.ready();
      await Promise.all(subs.map((s) => stack.webhooks.deliver(s.id))); // settled while the sign-in still works
      ynabToken = 'revoked-by-the-user';
      const budgetId = (await budgetFacts(sb)).id;
      const failed = await stack.events.refresh(budgetId).catch((e: unknown) => e);
      expect(await stack.webhooks.readFailed(budgetId, failed)).toBe(true);
      expect(rx.chatgpt.controls('terminated')).toHaveLength(0);
      const code = (w: 'legacy' | 'sep') => rx[w].controls('terminated').map((e) => (e.valid ? JSON.parse(e.body).error.code : 'unsigned'));
      expect(code('legacy')).toEqual([-32012]);
      expect(code('sep')).toEqual([-32024]);
      // All three are gone: unsubscribing is NotFound, in each client's codes.
      ynabToken = sb.accessToken;
      const notFound = { chatgpt: -32011, legacy: -32011, sep: -32023 };
      for (const w of who)
        await expect(
          request(clients[w], 'events/unsubscribe', { name: 'category.overspent', arguments: {}, delivery: { url: rx[w].url } }),
        ).rejects.toMatchObject({
          code: notFound[w],
        });
    } finally {
      await Promise.all(who.map((w) => rx[w].close()));
      await Promise.all(who.map((w) => clients[w].close()));
      await http.close();
      await state.close();
      own.remove();
    }
  });
});
