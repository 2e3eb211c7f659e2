/**
 * Methods at the MCP endpoint, against real listening servers: POST is what both protocol eras
 * use; every other method gets 405 with `Allow: POST`, with or without the bearer token and in
 * either era (GET and DELETE included: stateless 2025-era serving has no session or stream for
 * them, and the 2026 era has none either). Methods node hands elsewhere or cannot parse (CONNECT,
 * TRACE, TRACK, unknown tokens) get the same answer at the socket instead of a 500, a bare 400
 * or a dropped connection, and the server keeps serving.
 */
import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect, INITIALIZE, MCP_HEADERS, raw, served, type Served } from './http-harness.js';

const TOKEN = 'methods-test-token-5Rk2-distinctive';
const ERAS = { legacy: '2025-06-18', modern: '2026-07-28' } as const;
const PARSED = ['GET', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'QUERY', 'MKCOL'];

let sb: TestSandbox;
let open: Served;
let guarded: Served;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  open = await served(sb);
  guarded = await served(sb, { token: TOKEN });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await sb?.close();
});

/** Writes `request` on a fresh socket and collects everything until the server closes it. */
function socketExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', (e) => (text ? resolve(text) : reject(e)));
    socket.on('close', () => resolve(text));
    socket.setTimeout(5_000, () => socket.destroy());
    socket.write(request);
  });
}

function statusLine(response: string): { status: number; allow?: string } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
  const allow = /\r\nallow: ([^\r]*)/i.exec(response)?.[1];
  return { status, allow };
}

describe.each([
  ['without a token configured', () => open, {}],
  ['with a token configured, sending it', () => guarded, { authorization: `Bearer ${TOKEN}` }],
  ['with a token configured, not sending it', () => guarded, {}],
] as const)('every method but POST, %s', (_name, server, auth) => {
  it.each(Object.entries(ERAS))('gets 405 with Allow: POST in the %s era', async (_era, version) => {
    const s = server();
    const wrong: string[] = [];
    for (const method of PARSED) {
      const body = ['PUT', 'PATCH', 'QUERY', 'SEARCH'].includes(method) ? INITIALIZE : undefined;
      const res = await raw(s.url, { method, headers: { ...MCP_HEADERS, host: `127.0.0.1:${s.port}`, 'mcp-protocol-version': version, ...auth }, body });
      if (res.status !== 405 || res.headers.allow !== 'POST') wrong.push(`${method}: ${res.status} allow=${res.headers.allow}`);
      if (method !== 'HEAD' && !/Method not allowed/.test(res.text)) wrong.push(`${method}: body ${res.text.slice(0, 80)}`);
      if (method === 'HEAD' && res.text !== '') wrong.push('HEAD: a body');
    }
    expect(wrong).toEqual([]);
  });

  it('gets 405 for methods node does not route (CONNECT) or cannot parse (TRACK, unknown)', async () => {
    const s = server();
    const authLine = 'authorization' in auth ? `Authorization: ${auth.authorization}\r\n` : '';
    for (const request of [
      `CONNECT 127.0.0.1:${s.port} HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n${authLine}\r\n`,
      `TRACK /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n${authLine}\r\n`,
      `BREW /mcp HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\n${authLine}Content-Length: 0\r\n\r\n`,
    ]) {
      const answer = await socketExchange(s.port, request);
      expect(statusLine(answer), request.split(' ')[0]).toEqual({ status: 405, allow: 'POST' });
      expect(answer).toMatch(/Method not allowed/);
    }
  });
});

describe('POST', () => {
  it('is still served, and still needs the token where one is configured', async () => {
    const headers = { ...MCP_HEADERS, host: `127.0.0.1:${guarded.port}` };
    expect((await raw(guarded.url, { headers, body: INITIALIZE })).status).toBe(401);
    expect((await raw(guarded.url, { headers: { ...headers, authorization: `Bearer ${TOKEN}` }, body: INITIALIZE })).status).toBe(200);
  });

  it('keeps working after refused methods, for clients of both eras', async () => {
    await socketExchange(open.port, `CONNECT 127.0.0.1:${open.port} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await raw(open.url, { method: 'TRACE', headers: { host: `127.0.0.1:${open.port}` } });
    for (const era of ['legacy', 'modern'] as const) {
      const client = await connect(open.url, era);
      try {
        const result: any = await client.callTool({ name: 'get_user', arguments: {} });
        expect(result.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    }
  });

  it("other client errors still get node's own answers", async () => {
    const answer = await socketExchange(open.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: nope\r\n\r\n');
    expect(statusLine(answer).status).toBe(400);
  });
});
