/**
 * The node side of the MCP handler (src/transport/http-deadline.ts), on a loopback server with a
 * handler of the test's own: what the handler is given, what a handler that throws answers, an SSE
 * answer ended at the deadline, and a client that leaves. The SDK's handler behind it, in both
 * eras, is in http.test.ts.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import { afterEach, describe, expect, it } from 'vitest';
import { answerWithin, type Exchange } from '../../src/transport/http-deadline.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A loopback server answering each request with `handler` under `ms`, as http-requests.ts does. */
async function serve(handler: FetchLikeMcpHandler, ms = 5_000, onerror?: (e: Error) => void) {
  const exchanges: Exchange[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let parsed: unknown;
      try {
        parsed = body.length ? JSON.parse(body.toString('utf8')) : undefined;
      } catch {
        parsed = undefined;
      }
      const exchange: Exchange = { id: null };
      exchanges.push(exchange);
      (req as IncomingMessage & { auth?: unknown }).auth = { token: 'a-token-of-the-test', clientId: 'c', scopes: [] };
      void answerWithin({ handler, ms, exchange, onerror }, req, res, body, parsed);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/mcp`, exchanges };
}

const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_accounts', arguments: {} } };
const post = (url: string, body: string) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-extra': 'yes' } });

describe('answering a request under its deadline', () => {
  it('gives the handler the method, address, headers, auth and the parsed body; a body that is not JSON as it came', async () => {
    const seen: { method: string; url: string; extra: string | null; body: string | null; options: unknown }[] = [];
    const handler: FetchLikeMcpHandler = {
      async fetch(request, options) {
        seen.push({
          method: request.method,
          url: request.url,
          extra: request.headers.get('x-extra'),
          body: request.body ? await request.text() : null,
          options,
        });
        return Response.json({ ok: true });
      },
    };
    const { url, exchanges } = await serve(handler);
    expect(await (await post(url, JSON.stringify(call))).json()).toEqual({ ok: true });
    expect(await (await post(url, 'not json')).json()).toEqual({ ok: true });
    expect(seen[0]).toMatchObject({ method: 'POST', url, extra: 'yes', body: null });
    expect(seen[0]!.options).toEqual({ authInfo: { token: 'a-token-of-the-test', clientId: 'c', scopes: [] }, parsedBody: call });
    expect(seen[1]).toMatchObject({ body: 'not json', options: { authInfo: { token: 'a-token-of-the-test', clientId: 'c', scopes: [] } } });
    expect(exchanges).toEqual([{ id: 7, rpc: 'tools/call list_accounts' }, { id: null }]);
  });

  it('answers a handler that throws with a JSON-RPC internal error for the request id, and reports it', async () => {
    const errors: string[] = [];
    const { url } = await serve({ fetch: async () => Promise.reject(new Error('broken inside')) }, 5_000, (e) => errors.push(e.message));
    const res = await post(url, JSON.stringify(call));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: 7 });
    expect(errors).toEqual(['broken inside']);
  });

  it('ends an SSE answer at the deadline with the timeout error as its last event, and aborts the handler', async () => {
    let aborted = false;
    const handler: FetchLikeMcpHandler = {
      async fetch(request) {
        request.signal.addEventListener('abort', () => (aborted = true));
        const encoder = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n'));
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
    };
    const { url, exchanges } = await serve(handler, 300);
    const text = await (await post(url, JSON.stringify(call))).text();
    expect(text.split('\n\n').filter(Boolean)).toEqual([
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}',
      `event: message\ndata: ${JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32000, message: 'Request timed out after 300 ms and was cancelled; the server is still running, try again or ask for less.' },
      })}`,
    ]);
    expect(aborted).toBe(true);
    expect(exchanges[0]!.timedOut).toBe(true);
  });

  it('aborts the handler when the client leaves, and is not timed out', async () => {
    let resolveAborted!: () => void;
    const abortedNow = new Promise<void>((r) => (resolveAborted = r));
    const handler: FetchLikeMcpHandler = {
      async fetch(request) {
        request.signal.addEventListener('abort', () => resolveAborted());
        return new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }), { headers: { 'content-type': 'text/event-stream' } });
      },
    };
    const { url, exchanges } = await serve(handler, 60_000);
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.on('error', () => {});
    req.end(JSON.stringify(call));
    // Gone while the handler's stream is still open (its headers wait for its first bytes).
    setTimeout(() => req.destroy(), 200);
    await abortedNow;
    expect(exchanges[0]!.timedOut).toBeUndefined();
  });
});
