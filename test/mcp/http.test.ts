/**
 * The Streamable HTTP transport against real listening servers on a sandbox: both protocol eras
 * through real MCP clients, the Host/Origin/bearer gates, the refusal to bind off loopback
 * without a token, body size and time limits, slow clients, paths, tool-change notifications,
 * and the request log.
 */
import * as crypto from 'node:crypto';
import { connect as netConnect, type Socket } from 'node:net';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/api/client/errors.js';
import { serveHttp } from '../../src/transport/http.js';
import { bearerToken, hostAllowed, hostAllowList, isLoopbackHost, tokenMatches } from '../../src/transport/http-guards.js';
import { serveStdioServer } from '../../src/transport/stdio.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect, hostOf, INITIALIZE, MCP_HEADERS, raw, sandboxState, served, type Era, type Served } from './http-harness.js';

// Wraps the real timingSafeEqual in a spy, to see that the token check goes through it.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const TOKEN = 'http-test-token-7Qz9-very-distinctive';

let sb: TestSandbox;
let open: Served;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  open = await served(sb);
});
afterAll(async () => {
  await open?.close();
  await sb?.close();
});

/** Resolves with what `promise` gives, or fails the test after `ms` naming what was awaited. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

describe.each<Era>(['legacy', 'modern'])('a %s-era client over HTTP', (era) => {
  it('negotiates its era, lists the tools and calls list_accounts', async () => {
    const client = await connect(open.url, era);
    try {
      expect(client.getProtocolEra()).toBe(era);
      const names = (await client.listTools()).tools.map((t) => t.name);
      // The default list: list_accounts is one call_api away, and answers by name too.
      expect(names).toContain('call_api');
      expect(names).toContain('create_transactions');
      const result: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.accounts.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });
});

describe('Host and Origin checks', () => {
  const post = (headers: Record<string, string>) => raw(open.url, { headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });

  it('answers a loopback Host on the bound port', async () => {
    for (const host of [hostOf(open), `localhost:${open.port}`, `LOCALHOST:${open.port}`]) {
      expect((await post({ host })).status, host).toBe(200);
    }
  });

  it('refuses a foreign Host (DNS rebinding) with 403 and a JSON-RPC error', async () => {
    for (const host of [
      `evil.example:${open.port}`,
      'evil.example',
      `localhost:${open.port + 1}`,
      `127.0.0.1:${open.port}@evil.example`,
      `localhost.evil.example:${open.port}`,
    ]) {
      const res = await post({ host });
      expect(res.status, host).toBe(403);
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/Host/) } });
    }
  });

  it('refuses a foreign or opaque Origin with 403', async () => {
    for (const origin of ['https://evil.example', `http://evil.example:${open.port}`, 'null']) {
      const res = await post({ origin });
      expect(res.status, origin).toBe(403);
      expect(res.json().error.message).toMatch(/Origin/);
    }
  });

  it('answers a localhost Origin (any port) and a request without Origin', async () => {
    expect((await post({ origin: `http://localhost:${open.port}` })).status).toBe(200);
    expect((await post({ origin: 'http://127.0.0.1:6274' })).status).toBe(200);
    expect((await post({})).status).toBe(200);
  });

  it('takes extra hosts and origins from the options', async () => {
    const s = await served(sb, { allowedHosts: ['mcp.example:8443', 'any-port.example'], allowedOrigins: ['https://app.example'] });
    try {
      const at = (headers: Record<string, string>) => raw(s.url, { headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });
      expect((await at({ host: 'mcp.example:8443' })).status).toBe(200);
      expect((await at({ host: 'mcp.example:8444' })).status).toBe(403);
      expect((await at({ host: 'any-port.example:1234' })).status).toBe(200);
      expect((await at({ origin: 'https://app.example' })).status).toBe(200);
      expect((await at({ origin: 'https://other.example' })).status).toBe(403);
    } finally {
      await s.close();
    }
  });

  it('parses Host values strictly', () => {
    const rules = hostAllowList('127.0.0.1', 4000, ['[fd00::1]:9000']);
    expect(hostAllowed('127.0.0.1:4000', rules)).toBe(true);
    expect(hostAllowed('[::1]:4000', rules)).toBe(true);
    expect(hostAllowed('[fd00::1]:9000', rules)).toBe(true);
    expect(hostAllowed('localhost', rules)).toBe(false); // port 80, not the bound one
    expect(hostAllowed('localhost:4000/x', rules)).toBe(false);
    expect(hostAllowed(undefined, rules)).toBe(false);
    expect(() => hostAllowList('127.0.0.1', 4000, ['http://x/'])).toThrow(/not a hostname/);
  });
});

describe('the bearer token', () => {
  let s: Served;
  beforeAll(async () => {
    s = await served(sb, { token: TOKEN });
  });
  afterAll(() => s?.close());
  const post = (headers: Record<string, string>) => raw(s.url, { headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE });

  it('is required: none or a wrong one gets 401 with a Bearer challenge that does not echo it', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', `Basic ${TOKEN}`, TOKEN]) {
      const res = await post(authorization === undefined ? {} : { authorization });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer\b/);
      expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      expect(res.text).not.toContain(TOKEN.slice(0, 12));
    }
  });

  it('lets the right one through (200), in any case of the scheme name', async () => {
    expect((await post({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await post({ authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });

  it.each<Era>(['legacy', 'modern'])('serves a %s-era client that sends it', async (era) => {
    const client = await connect(s.url, era, TOKEN);
    try {
      const result: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(result.structuredContent.accounts.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    await expect(connect(s.url, era)).rejects.toThrow();
  });

  it('is compared in constant time over equal-length digests', () => {
    const spy = vi.mocked(crypto.timingSafeEqual);
    spy.mockClear();
    expect(tokenMatches(TOKEN, TOKEN)).toBe(true);
    expect(tokenMatches(TOKEN, `${TOKEN.slice(0, -1)}!`)).toBe(false); // same length, differs at the end
    expect(tokenMatches(TOKEN, 'short')).toBe(false); // different lengths do not throw
    expect(tokenMatches(TOKEN, `${TOKEN}${TOKEN}`)).toBe(false);
    expect(tokenMatches(TOKEN, '')).toBe(false);
    expect(tokenMatches(TOKEN, undefined)).toBe(false);
    expect(spy).toHaveBeenCalledTimes(6);
    for (const [a, b] of spy.mock.calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
  });

  it('is read only from an "Authorization: Bearer" header', () => {
    expect(bearerToken(`Bearer ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`BEARER   ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`Basic ${TOKEN}`)).toBeUndefined();
    expect(bearerToken(`Bearer ${TOKEN} extra`)).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it('is scrubbed from SDK error reports that quote a request back', async () => {
    // A 2026-07-28 request naming the token as its protocol version: the SDK reports the
    // rejection, quoting the version, through the handler's onerror, which goes to the log.
    const meta = {
      'io.modelcontextprotocol/protocolVersion': TOKEN,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: meta } });
    const res = await raw(s.url, { headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` }, body });
    expect(res.status).toBe(400);
    expect(s.logs.some((l) => l.includes('Unsupported protocol version: [token]'))).toBe(true);
  });

  it('never reaches the log, nor do headers', () => {
    expect(s.logs.length).toBeGreaterThan(0);
    for (const line of s.logs) {
      expect(line).not.toContain(TOKEN);
      expect(line.toLowerCase()).not.toMatch(/authorization|bearer|user-agent|content-type/);
    }
  });
});

describe('binding', () => {
  it('defaults to 127.0.0.1', () => {
    expect(new URL(open.url).hostname).toBe('127.0.0.1');
    expect(new URL(open.url).pathname).toBe('/mcp');
  });

  it('refuses a non-loopback address without a token, before binding anything', async () => {
    const { state, dispose } = sandboxState(sb);
    try {
      for (const host of ['0.0.0.0', '::', '192.168.1.20', 'my-laptop.lan']) {
        const err = await serveHttp(state, { host, port: 0 }).catch((e: unknown) => e);
        expect(err, host).toBeInstanceOf(ConfigError);
        expect((err as Error).message).toMatch(/not a loopback address.*--http-token/);
      }
      await expect(serveHttp(state, { host: '127.0.0.1', port: 0, token: ' ' })).rejects.toThrow(/empty/);
    } finally {
      await dispose();
    }
  });

  it('binds every interface with a token, still checking Host and the token', async () => {
    const s = await served(sb, { host: '0.0.0.0', token: TOKEN });
    try {
      const auth = { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` };
      expect((await raw(s.url, { headers: auth, body: INITIALIZE })).status).toBe(200);
      expect((await raw(s.url, { headers: { ...auth, host: `evil.example:${s.port}` }, body: INITIALIZE })).status).toBe(403);
      expect((await raw(s.url, { headers: MCP_HEADERS, body: INITIALIZE })).status).toBe(401);
    } finally {
      await s.close();
    }
  });

  it('knows loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.20', 'localhost.evil.example', '128.0.0.1']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('limits', () => {
  it('refuses a body over the limit with 413, declared or streamed, and keeps serving', async () => {
    const s = await served(sb, { maxBodyBytes: 16 * 1024 });
    try {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(20 * 1024) } });
      const declared = await raw(s.url, { headers: MCP_HEADERS, body: big });
      expect(declared.status).toBe(413);
      expect(declared.json().error.message).toMatch(/16384 bytes/);
      const streamed = await raw(s.url, { headers: MCP_HEADERS, body: big, chunked: true });
      expect(streamed.status).toBe(413);
      const client = await connect(s.url, 'legacy');
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await s.close();
    }
  });

  it.each<Era>(['legacy', 'modern'])('ends a %s-era call that takes too long with an error, and keeps serving', async (era) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = await served(sb, { requestTimeoutMs: 500 }, { gate });
    try {
      const client = await connect(s.url, era);
      const started = performance.now();
      // The client's own timeout is a backstop only; the server's error must come first.
      await expect(client.callTool({ name: 'list_accounts', arguments: {} }, { timeout: 10_000 })).rejects.toThrow(/timed out after 500 ms/);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(s.logs.some((l) => l.includes('tools/call list_accounts, timed out'))).toBe(true);
      // The server is still up: other requests are answered, and the call works once YNAB does.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      release();
      const result: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(result.structuredContent.accounts.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      release();
      await s.close();
    }
  });
});

describe('slow clients', () => {
  /** Opens a socket, sends `partial`, and reports what came back and when the server closed it. */
  function trickle(port: number, partial: string) {
    const socket: Socket = netConnect(port, '127.0.0.1');
    const opened = performance.now();
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
    socket.on('error', () => {});
    socket.write(partial);
    const closed = new Promise<{ afterMs: number; received: string }>((resolve) =>
      socket.on('close', () => resolve({ afterMs: performance.now() - opened, received })),
    );
    return { socket, closed, isOpen: () => !socket.destroyed && !socket.readableEnded };
  }

  it('cuts off a client trickling headers without blocking a normal one meanwhile', async () => {
    const s = await served(sb, { headersTimeoutMs: 1_500, requestTimeoutMs: 3_000 });
    try {
      const loris = trickle(s.port, `POST /mcp HTTP/1.1\r\nHost: ${hostOf(s)}\r\nX-Slow: a`);
      const client = await connect(s.url, 'legacy');
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
      expect(loris.isOpen()).toBe(true); // served while the slow client still held its socket
      const { afterMs, received } = await within(loris.closed, 5_000, 'the slow client to be cut off');
      expect(afterMs).toBeLessThan(1_500 + 1_000);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await s.close();
    }
  });

  it('cuts off a client trickling a body within the request timeout', async () => {
    const s = await served(sb, { headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    try {
      const loris = trickle(
        s.port,
        `POST /mcp HTTP/1.1\r\nHost: ${hostOf(s)}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
      );
      const answer = await raw(s.url, { headers: MCP_HEADERS, body: INITIALIZE });
      expect(answer.status).toBe(200);
      expect(loris.isOpen()).toBe(true);
      const { afterMs } = await within(loris.closed, 5_000, 'the slow body to be cut off');
      expect(afterMs).toBeLessThan(1_000 + 1_000);
    } finally {
      await s.close();
    }
  });

  it('closes a connection that never sends anything', async () => {
    const s = await served(sb, { headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    try {
      const idle = trickle(s.port, '');
      const { afterMs } = await within(idle.closed, 5_000, 'the idle connection to be closed');
      expect(afterMs).toBeLessThan(500 + 1_000);
    } finally {
      await s.close();
    }
  });
});

describe('routing', () => {
  it('answers other paths with 404', async () => {
    for (const path of ['/', '/mcp/', '/other', '/mcpx']) {
      const res = await raw(new URL(path, open.url).href, { headers: MCP_HEADERS, body: INITIALIZE });
      expect(res.status, path).toBe(404);
    }
  });

  it('answers GET on the endpoint as the SDK does for stateless 2025-era serving (405)', async () => {
    const res = await raw(open.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
  });

  it('logs one line per request, without query strings or unknown paths', async () => {
    const s = await served(sb);
    try {
      await raw(`${s.url}?secret=abc`, { headers: MCP_HEADERS, body: INITIALIZE });
      await raw(new URL('/private-path', s.url).href, { headers: MCP_HEADERS, body: INITIALIZE });
      await raw(s.url, { headers: { ...MCP_HEADERS, host: 'evil.example' }, body: INITIALIZE });
      expect(s.logs).toHaveLength(3);
      expect(s.logs[0]).toMatch(/^http: POST \/mcp 200 \d+ms \(initialize\)$/);
      expect(s.logs[1]).toMatch(/^http: POST \(other path\) 404 /);
      expect(s.logs[2]).toMatch(/^http: POST \/mcp 403 /);
      expect(s.logs.join('\n')).not.toMatch(/secret|private-path|evil/);
    } finally {
      await s.close();
    }
  });
});

describe('turning read-only', () => {
  it('tells a modern client listening for tool changes, and the next list has no write tools', async () => {
    const s = await served(sb, {}, { readOnlyGrant: true });
    try {
      const client = await connect(s.url, 'modern');
      const before = (await client.listTools()).tools.map((t) => t.name);
      expect(before).toContain('create_transactions');
      let heard!: () => void;
      const changed = new Promise<void>((r) => (heard = r));
      client.setNotificationHandler('notifications/tools/list_changed', () => heard());
      const sub = await client.listen({ toolsListChanged: true });
      expect(sub.honoredFilter.toolsListChanged).toBe(true);
      // The first call connects with the read-only grant, which turns the server read-only.
      await client.callTool({ name: 'list_accounts', arguments: {} });
      await within(changed, 5_000, 'notifications/tools/list_changed');
      const after = (await client.listTools({}, { cacheMode: 'bypass' })).tools.map((t) => t.name);
      expect(after).toContain('search_transactions');
      expect(after).not.toContain('create_transactions');
      await sub.close();
      await client.close();
    } finally {
      await s.close();
    }
  });
});

describe('stdio', () => {
  it('serves a live instance: tools, calls, and write tools withdrawn with a notice when read-only', async () => {
    const { state, dispose } = sandboxState(sb, { readOnlyGrant: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const stdio = serveStdioServer(state, { transport: serverSide });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    try {
      await client.connect(clientSide);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('create_transactions');
      let heard!: () => void;
      const changed = new Promise<void>((r) => (heard = r));
      client.setNotificationHandler('notifications/tools/list_changed', () => heard());
      const result: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(result.structuredContent.accounts.length).toBeGreaterThan(0);
      await within(changed, 5_000, 'notifications/tools/list_changed');
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('create_transactions');
    } finally {
      await client.close();
      await stdio.close();
      await dispose();
    }
  });
});
