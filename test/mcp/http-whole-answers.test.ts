/**
 * 2025-era calls over HTTP answered with one JSON body when nothing can come before their result
 * (src/transport/http-whole-answers.ts), and with the SDK's SSE stream when something may: a
 * request asking for progress. Real listening servers on a sandbox, raw requests and a real client.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredWhole } from '../../src/transport/http-whole-answers.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { INITIALIZE, MCP_HEADERS, raw, served, type Served } from './http-harness.js';

let sb: TestSandbox;
let s: Served;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  s = await served(sb);
});
afterAll(async () => {
  await s?.close();
  await sb?.close();
});

const LEGACY = { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' };
const call = (id: number, name: string, meta?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...(meta ? { _meta: meta } : {}) } });

describe('which requests are answered whole', () => {
  it('one request with nothing to send before its result', () => {
    expect(answeredWhole({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_accounts' } })).toBe(true);
    expect(answeredWhole({ jsonrpc: '2.0', id: 'a', method: 'tools/list' })).toBe(true);
    expect(answeredWhole({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { other: 1 } } })).toBe(true);
  });

  it('not a request asking for progress, a stream, a notification, a response, a batch or no JSON', () => {
    expect(answeredWhole({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', _meta: { progressToken: 7 } } })).toBe(false);
    expect(answeredWhole({ jsonrpc: '2.0', id: 1, method: 'events/stream', params: {} })).toBe(false);
    expect(answeredWhole({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: {} })).toBe(false);
    expect(answeredWhole({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(answeredWhole({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    expect(answeredWhole([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }])).toBe(false);
    expect(answeredWhole(undefined)).toBe(false);
    expect(answeredWhole('tools/list')).toBe(false);
  });
});

describe('2025-era requests over HTTP', () => {
  it('a call is answered with its result as one JSON body', async () => {
    const res = await raw(s.url, { headers: LEGACY, body: call(5, 'list_accounts') });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.id).toBe(5);
    expect(body.result.structuredContent.accounts.length).toBeGreaterThan(0);
  });

  it('a JSON answer goes out in one piece, its length given; a stream stays chunked', async () => {
    const whole = await raw(s.url, { headers: LEGACY, body: call(11, 'list_accounts') });
    expect(whole.headers['content-length']).toBe(String(Buffer.byteLength(whole.text)));
    expect(whole.headers['transfer-encoding']).toBeUndefined();
    const stream = await raw(s.url, { headers: LEGACY, body: call(12, 'list_accounts', { progressToken: 'p-12' }) });
    expect(stream.headers['content-length']).toBeUndefined();
    expect(stream.headers['transfer-encoding']).toBe('chunked');
  });

  it('initialize too', async () => {
    const res = await raw(s.url, { headers: MCP_HEADERS, body: INITIALIZE });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().result.serverInfo.name).toBeTruthy();
  });

  it('a call asking for progress keeps its SSE stream, with the same result in it', async () => {
    const res = await raw(s.url, { headers: LEGACY, body: call(6, 'list_accounts', { progressToken: 'p-6' }) });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const data = res.text.split('\n').filter((l) => l.startsWith('data: '));
    const answer = JSON.parse(data.at(-1)!.slice('data: '.length));
    expect(answer.id).toBe(6);
    const whole = (await raw(s.url, { headers: LEGACY, body: call(6, 'list_accounts') })).json();
    // The accounts alike: the answer's freshness (age_seconds) moves with the clock between the two calls.
    expect(answer.result.structuredContent.accounts).toEqual(whole.result.structuredContent.accounts);
  });

  it('an error answers in JSON with the request id, as the stream would have carried it', async () => {
    const res = await raw(s.url, { headers: LEGACY, body: call(8, 'no_such_tool') });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json();
    expect(body.id).toBe(8);
    expect(JSON.stringify(body.result ?? body.error)).toMatch(/no_such_tool/);
  });

  it('a request without the Accept the transport requires is refused as before (406)', async () => {
    const res = await raw(s.url, { headers: { ...LEGACY, accept: 'application/json' }, body: call(9, 'list_accounts') });
    expect(res.status).toBe(406);
  });

  it("the SDK's client takes the JSON answers: every call of a session, no stream opened", async () => {
    const types: string[] = [];
    const fetchSeen: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      types.push(`${(init?.method ?? 'GET').toUpperCase()} ${res.status} ${res.headers.get('content-type') ?? '-'}`);
      return res;
    };
    const client = new Client({ name: 'whole-answers', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { fetch: fetchSeen }));
    const accounts: any = await client.callTool({ name: 'list_accounts', arguments: {} });
    expect(accounts.structuredContent.accounts.length).toBeGreaterThan(0);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    const posts = types.filter((t) => t.startsWith('POST') && !t.includes(' 202 '));
    expect(posts.length).toBeGreaterThanOrEqual(3); // initialize, the call, tools/list
    expect(
      posts.every((t) => /application\/json/.test(t)),
      types.join('\n'),
    ).toBe(true);
  });

  it.each([
    ['answered whole: the timeout error as its JSON body', undefined, /^application\/json/],
    ['asking for progress: its stream ended with the timeout error as its last event', { progressToken: 'p-10' }, /^text\/event-stream/],
  ] as const)('a call past its deadline, %s', async (_, meta, type) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = await served(sb, { requestTimeoutMs: 500 }, { gate });
    try {
      const res = await raw(slow.url, { headers: LEGACY, body: call(10, 'list_accounts', meta) });
      expect(res.headers['content-type']).toMatch(type);
      // Whole: one body of the length it says (the direct path's timeout, as the web path's Response).
      if (!meta) expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      const last = meta
        ? JSON.parse(
            res.text
              .split('\n')
              .filter((l) => l.startsWith('data: '))
              .at(-1)!
              .slice('data: '.length),
          )
        : res.json();
      expect(last.id).toBe(10);
      expect(last.error.message).toMatch(/timed out after 500 ms/);
      expect(slow.logs.some((l) => l.includes('tools/call list_accounts, timed out'))).toBe(true);
    } finally {
      release();
      await slow.close();
    }
  });
});
