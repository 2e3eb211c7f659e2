/**
 * 2025-era calls answered whole straight from node:http (src/transport/http-direct-answers.ts):
 * which requests take that path (every check of the SDK's passes), that their answers are the
 * SDK's (the same results as the SDK's own stream carries), that what the SDK refuses it still
 * refuses as before, and that a client leaving cancels the call. Real listening servers on a
 * sandbox, raw requests, and a real McpServer for the cancelling.
 */
import type { IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerDirect, directRequest } from '../../src/transport/http-direct-answers.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { MCP_HEADERS, raw, served, type Served } from './http-harness.js';

const LEGACY = { ...MCP_HEADERS, 'mcp-protocol-version': '2025-06-18' };
const CALL = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_accounts', arguments: {} } };

/** A node request as the path reads it: its method and (lower-cased) headers. */
const nodeReq = (headers: Record<string, string | string[]>, method = 'POST') => ({ method, headers }) as unknown as IncomingMessage;

describe('which requests are served straight from node:http', () => {
  it('a 2025-era request every check of the SDK passes, with or without a protocol version header', () => {
    expect(directRequest(nodeReq(LEGACY), CALL)).toEqual(CALL);
    expect(directRequest(nodeReq(MCP_HEADERS), { jsonrpc: '2.0', id: 'x', method: 'tools/list' })).toEqual({ jsonrpc: '2.0', id: 'x', method: 'tools/list' });
    expect(directRequest(nodeReq({ ...LEGACY, 'content-type': 'application/json; charset=utf-8' }), CALL)).toEqual(CALL);
  });

  it.each([
    ['initialize (its answer may carry a session id)', LEGACY, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
    ['an Accept without the event stream', { ...LEGACY, accept: 'application/json' }, CALL],
    ['an Accept without JSON', { ...LEGACY, accept: 'text/event-stream' }, CALL],
    ['a Content-Type that is not JSON', { ...LEGACY, 'content-type': 'text/plain' }, CALL],
    ['a protocol version the SDK does not support', { ...LEGACY, 'mcp-protocol-version': '1999-01-01' }, CALL],
    ['a 2026-07-28 request', { ...LEGACY, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_accounts' }, CALL],
    ['a call asking for progress', LEGACY, { ...CALL, params: { ...CALL.params, _meta: { progressToken: 1 } } }],
    ['a batch', LEGACY, [CALL]],
    ['a notification', LEGACY, { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a message the JSON-RPC schema refuses', LEGACY, { ...CALL, jsonrpc: '1.0' }],
    ['a body that was not JSON', LEGACY, undefined],
  ] as const)('not %s: the SDK answers it', (_, headers, body) => {
    expect(directRequest(nodeReq(headers as Record<string, string>), body)).toBeUndefined();
  });

  it('not a GET', () => {
    expect(directRequest(nodeReq(LEGACY, 'GET'), CALL)).toBeUndefined();
  });
});

describe('over HTTP', () => {
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

  /** The result the SDK's own stream carries for the same request (asking for progress keeps it on the SDK's path). */
  async function throughTheSdk(message: { id: number; method: string; params?: object }) {
    const body = { jsonrpc: '2.0', ...message, params: { ...message.params, _meta: { progressToken: `p-${message.id}` } } };
    const res = await raw(s.url, { headers: LEGACY, body: JSON.stringify(body) });
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const data = res.text.split('\n').filter((l) => l.startsWith('data: '));
    return JSON.parse(data.at(-1)!.slice('data: '.length));
  }

  it.each([
    ['ping', { id: 21, method: 'ping' }],
    ['tools/list', { id: 22, method: 'tools/list' }],
    ['resources/list', { id: 23, method: 'resources/list' }],
    ['prompts/list', { id: 24, method: 'prompts/list' }],
    ['a call of a tool there is not', { id: 25, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }],
    ['a call with arguments its tool refuses', { id: 26, method: 'tools/call', params: { name: 'list_accounts', arguments: { budget_id: 7 } } }],
  ] as const)('%s: the answer the SDK gives, whole', async (_, message) => {
    const res = await raw(s.url, { headers: LEGACY, body: JSON.stringify({ jsonrpc: '2.0', ...message }) });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
    expect(res.json()).toEqual(await throughTheSdk(message));
  });

  it.each([
    ['a Content-Type that is not JSON (415)', { ...LEGACY, 'content-type': 'text/plain' }, JSON.stringify(CALL), 415, /Content-Type must be application\/json/],
    [
      'a protocol version not supported (400)',
      { ...LEGACY, 'mcp-protocol-version': '1999-01-01' },
      JSON.stringify(CALL),
      400,
      /Unsupported protocol version: 1999-01-01/,
    ],
    ['an Accept without the event stream (406)', { ...LEGACY, accept: 'application/json' }, JSON.stringify(CALL), 406, /Not Acceptable/],
  ] as const)('refused as the SDK refuses it: %s', async (_, headers, body, status, message) => {
    const res = await raw(s.url, { headers, body });
    expect(res.status).toBe(status);
    expect(res.json().error.message).toMatch(message);
  });
});

describe('a client that leaves', () => {
  it('cancels the call: its server is closed, the tool told to stop, and the answer is no one’s (499)', async () => {
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let stopped = false;
    const server = new McpServer({ name: 't', version: '1' });
    server.registerTool('slow', {}, async (ctx) => {
      started();
      await new Promise<void>((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => resolve()));
      stopped = true;
      return { content: [] };
    });
    const abort = new AbortController();
    const request = { jsonrpc: '2.0' as const, id: 9, method: 'tools/call', params: { name: 'slow', arguments: {} } };
    const answer = answerDirect(() => server, nodeReq(LEGACY), request, abort.signal);
    await running;
    abort.abort();
    expect(await answer).toEqual({ status: 499 });
    await expect.poll(() => stopped).toBe(true);
  });
});
