/**
 * Events as each host reads them, end to end over HTTP (`serve` with a bearer token, as
 * `--http-token-file` gives it), to webhook receivers on loopback that verify every signature on
 * their own (receiver.ts):
 *  - a ChatGPT-shaped client: raw JSON-RPC at 2026-07-28 with ChatGPT's clientInfo, reading Events
 *    at the top-level `capabilities.events` of the raw `server/discover` (the official client drops
 *    keys it does not know), answered with the codes of OpenAI's guide (-32011…);
 *  - a 2025-era client (initialize), which finds `capabilities.events` in its initialize result and
 *    gets the design sketch's codes (-32011…);
 *  - the SEP client (2026-07-28, declaring `io.modelcontextprotocol/events`), which gets SEP-3415's
 *    (-32023…).
 * Each lists, subscribes, gets the one occurrence a purchase fires, and unsubscribes; the 2025-era
 * and SEP clients also poll it.
 */
import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect } from '../mcp/http-harness.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, signedWith, whsec } from './receiver.js';

const EXT = 'io.modelcontextprotocol/events';
const MODERN = '2026-07-28';
/** What ChatGPT names itself in clientInfo. */
const CHATGPT = { name: 'openai-mcp', version: '1.0.0' };
const TOKEN = randomBytes(16).toString('hex');

let sb: TestSandbox;
let keep: ReturnType<typeof lasting>;
let ep: Endpoint;

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

let ids = 0;

/** The JSON-RPC message of an answer, whether sent as JSON or as one SSE event. */
function message(text: string, type: string | null): any {
  if (!type?.includes('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').filter((l) => l.startsWith('data: '));
  return JSON.parse(data[data.length - 1]!.slice(6));
}

/** One request as ChatGPT sends it at 2026-07-28: the envelope in `_meta`, its headers, no SDK. */
async function chatgpt(method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}): Promise<any> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': CHATGPT,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const res = await fetch(ep.http.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${TOKEN}`,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++ids, method, params: { ...params, _meta } }),
  });
  return message(await res.text(), res.headers.get('content-type'));
}

/** The raw initialize result of a 2025-era client. */
async function initialize(): Promise<any> {
  const res = await fetch(ep.http.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy-host', version: '1.0.0' } },
    }),
  });
  return message(await res.text(), res.headers.get('content-type'));
}

/** A 2026-07-28 client of the official SDK that declares the Events extension, as the SEP has it. */
async function sepClient(): Promise<Client> {
  const client = new Client(
    { name: 'sep-events-client', version: '1.0.0' },
    { capabilities: { extensions: { [EXT]: {} } } as never, versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(ep.http.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

const subscribeParams = (url: string, secret: string) => ({
  name: 'category.overspent',
  arguments: {},
  delivery: { mode: 'webhook', url, secret },
  cursor: null,
  ttlMs: 600_000,
});
const unsubscribeParams = (url: string) => ({ name: 'category.overspent', arguments: {}, delivery: { url } });

describe('Events in each host dialect', () => {
  it('declares both shapes, and delivers to a ChatGPT-shaped, a 2025-era and a SEP client, each in its own codes', async () => {
    // Declared: top-level (ChatGPT, the sketch) and under extensions (SEP-3415), in each era.
    const discover = await chatgpt('server/discover');
    expect(discover.result.capabilities.events).toEqual({});
    expect(discover.result.capabilities.extensions[EXT]).toEqual({});
    const init = await initialize();
    expect(init.result.capabilities.events).toEqual({});
    expect(init.result.capabilities.extensions[EXT]).toEqual({});

    const legacy = await connect(ep.http.url, 'legacy', TOKEN);
    const sep = await sepClient();
    const secrets = { chatgpt: whsec(), legacy: whsec(), sep: whsec() };
    const rx = { chatgpt: await receiver(secrets.chatgpt), legacy: await receiver(secrets.legacy), sep: await receiver(secrets.sep) };
    try {
      // Each lists: every type offers webhook.
      const lists = [(await chatgpt('events/list')).result, await request(legacy, 'events/list'), await request(sep, 'events/list')];
      for (const list of lists) expect(list.events.find((e: any) => e.name === 'category.overspent').delivery).toContain('webhook');

      // Each subscribes; the receiver is asked to confirm first, signed.
      const subs = {
        chatgpt: (await chatgpt('events/subscribe', subscribeParams(rx.chatgpt.url, secrets.chatgpt))).result,
        legacy: await request(legacy, 'events/subscribe', subscribeParams(rx.legacy.url, secrets.legacy)),
        sep: await request(sep, 'events/subscribe', subscribeParams(rx.sep.url, secrets.sep)),
      };
      for (const who of ['chatgpt', 'legacy', 'sep'] as const) {
        expect(subs[who].id).toMatch(/^sub_[0-9a-f]{16}$/);
        expect(Date.parse(subs[who].refreshBefore) - Date.now()).toBeLessThanOrEqual(600_000);
        expect(JSON.parse(rx[who].got[0]!.body).type).toBe('verification');
        expect(rx[who].got[0]!.valid).toBe(true);
      }
      const starts = { legacy: await poll(legacy, 'category.overspent', null), sep: await poll(sep, 'category.overspent', null) };

      // One purchase overspends a category (the API's raw figures): one occurrence, to all three.
      const facts = await budgetFacts(sb);
      const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 2_500) });
      const all = () => rx.chatgpt.events().length && rx.legacy.events().length && rx.sep.events().length;
      for (let i = 0; i < 40 && !all(); i++) {
        await poll(sep, 'review.queue_grew', null);
        await new Promise((r) => setTimeout(r, 250));
      }
      const figures: string[] = [];
      for (const who of ['chatgpt', 'legacy', 'sep'] as const) {
        await rx[who].until(() => rx[who].events().length >= 1);
        const [delivery] = rx[who].events();
        const body = JSON.parse(delivery!.body);
        expect(delivery!.valid).toBe(true);
        expect(signedWith(secrets[who], delivery!)).toBe(true);
        expect(body).toMatchObject({ name: 'category.overspent', data: { category_id: target.id, amount: 2_500 } });
        expect(delivery!.headers['webhook-id']).toBe(body.eventId);
        expect(delivery!.headers['x-mcp-subscription-id']).toBe(subs[who].id);
        expect(Buffer.byteLength(delivery!.body)).toBeLessThanOrEqual(256 * 1024);
        figures.push(
          `${who}: ${Buffer.byteLength(delivery!.body)} bytes, webhook-id ${String(delivery!.headers['webhook-id'])}, webhook-timestamp ${String(delivery!.headers['webhook-timestamp'])}, x-mcp-subscription-id ${String(delivery!.headers['x-mcp-subscription-id'])}, webhook-signature v1 ×${String(delivery!.headers['webhook-signature']).split(' ').length} (verified)`,
        );
      }
      console.log(`webhook deliveries:\n${figures.join('\n')}`);
      const eventId = JSON.parse(rx.sep.events()[0]!.body).eventId;
      expect(new Set([rx.chatgpt, rx.legacy].map((r) => JSON.parse(r.events()[0]!.body).eventId))).toEqual(new Set([eventId]));

      // The 2025-era and SEP clients poll the same occurrence.
      for (const [client, start] of [
        [legacy, starts.legacy],
        [sep, starts.sep],
      ] as const) {
        const got = await poll(client, 'category.overspent', start.cursor);
        expect(got.events.map((e) => e.eventId)).toEqual([eventId]);
      }

      // Each unsubscribes; a second unsubscribe is NotFound in the client's own codes.
      expect((await chatgpt('events/unsubscribe', unsubscribeParams(rx.chatgpt.url))).result).toMatchObject({});
      await request(legacy, 'events/unsubscribe', unsubscribeParams(rx.legacy.url));
      await request(sep, 'events/unsubscribe', unsubscribeParams(rx.sep.url));
      expect((await chatgpt('events/unsubscribe', unsubscribeParams(rx.chatgpt.url))).error.code).toBe(-32011);
      await expect(request(legacy, 'events/unsubscribe', unsubscribeParams(rx.legacy.url))).rejects.toMatchObject({ code: -32011 });
      await expect(request(sep, 'events/unsubscribe', unsubscribeParams(rx.sep.url))).rejects.toMatchObject({ code: -32023 });
      // And an unknown type: NotFound, likewise.
      expect((await chatgpt('events/subscribe', { ...subscribeParams(rx.chatgpt.url, secrets.chatgpt), name: 'nope.nothing' })).error.code).toBe(-32011);
      await expect(poll(legacy, 'nope.nothing', null)).rejects.toMatchObject({ code: -32011 });
      await expect(poll(sep, 'nope.nothing', null)).rejects.toMatchObject({ code: -32023 });
      // A client that declares the extension has said it follows the SEP, whatever its name.
      expect((await chatgpt('events/poll', { name: 'nope.nothing', cursor: null }, { extensions: { [EXT]: {} } })).error.code).toBe(-32023);
    } finally {
      await Promise.all([rx.chatgpt.close(), rx.legacy.close(), rx.sep.close()]);
      await legacy.close();
      await sep.close();
    }
  });
});
