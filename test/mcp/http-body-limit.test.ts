/**
 * A body over the MCP endpoint's limit always gets its 413, over the connection it came on, never
 * a cut connection: the server answers, reads and throws away what the client is still sending,
 * and closes only then (src/transport/http-body.ts). Measured before: a 5 MiB POST was answered
 * in one run of three and cut off in the other two. Real clients (fetch, node:http) against a
 * real listening server with its default limit of 1 MiB.
 */
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/transport/http.js';
import { postThenRead } from '../helpers/post-then-read.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect, INITIALIZE, MCP_HEADERS, served, type Served } from './http-harness.js';

const MiB = 1024 * 1024;
const EXPECTED_MESSAGE = `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_BODY_BYTES} bytes`;

let sb: TestSandbox;
let s: Served;

beforeAll(async () => {
  sb = await testSandbox();
  s = await served(sb);
});
afterAll(async () => {
  await s?.close();
  await sb?.close();
});

/** A JSON-RPC request padded to `bytes`, as a client that sends too much would. */
function padded(bytes: number): Buffer {
  const head = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accounts","pad":"');
  const tail = Buffer.from('"}}');
  return Buffer.concat([head, Buffer.alloc(bytes - head.length - tail.length, 'x'), tail]);
}

/** node:http, streaming the body in 64 KiB pieces without a Content-Length (chunked), reading the answer whenever it comes. */
function postChunked(url: string, total: number): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: MCP_HEADERS, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const piece = Buffer.alloc(64 * 1024, 'x');
    let sent = 0;
    const more = () => {
      while (sent < total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
}

/** node:http with a declared length, reading the answer whenever it comes (as http-harness's raw() does). */
function postWithNode(url: string, body: Buffer): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...MCP_HEADERS, 'content-length': String(body.length) }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(`${res.statusCode} ${JSON.parse(text).error.message}`));
      },
    );
    req.on('error', (e) => resolve(`no answer: ${e.message}`));
    req.end(body);
  });
}

describe('a body over the limit', () => {
  it('declared by Content-Length (5 MiB), 50 times in a row by node:http, and by a client that reads only after sending: a 413 every time', async () => {
    const body = padded(5 * MiB);
    const answers: string[] = [];
    for (let i = 0; i < 50; i++) answers.push(await postWithNode(s.url, body));
    for (let i = 0; i < 50; i++) answers.push(await postThenRead(s.url, MCP_HEADERS, body));
    expect(answers).toEqual(Array(100).fill(`413 ${EXPECTED_MESSAGE}`));
  });

  it('declared by Content-Length (5 MiB), 50 times in a row with fetch: a 413 with its JSON-RPC error every time', async () => {
    const body = padded(5 * MiB);
    const answers: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(s.url, { method: 'POST', headers: { ...MCP_HEADERS, 'content-length': String(body.length) }, body }).then(
        async (r) => `${r.status} ${r.headers.get('connection')} ${((await r.json()) as { error: { message: string } }).error.message}`,
        (e: Error) => `no answer: ${e.message} (${String((e.cause as Error | undefined)?.message)})`,
      );
      answers.push(res);
    }
    expect(answers).toEqual(Array(50).fill(`413 close ${EXPECTED_MESSAGE}`));
  });

  it('streamed without a length (20 MiB chunked): a 413, by a client that reads only after sending, by node:http and by fetch', async () => {
    expect(await postThenRead(s.url, MCP_HEADERS, padded(20 * MiB), true)).toBe(`413 ${EXPECTED_MESSAGE}`);
    const byNode = await postChunked(s.url, 20 * MiB);
    expect([byNode.status, JSON.parse(byNode.text).error.message]).toEqual([413, EXPECTED_MESSAGE]);

    const piece = new Uint8Array(64 * 1024).fill(120);
    const stream = Readable.toWeb(
      Readable.from(
        (function* () {
          for (let sent = 0; sent < 20 * MiB; sent += piece.length) yield piece;
        })(),
      ),
    );
    const byFetch = await fetch(s.url, { method: 'POST', headers: MCP_HEADERS, body: stream as ReadableStream, duplex: 'half' } as RequestInit);
    expect([byFetch.status, ((await byFetch.json()) as { error: { message: string } }).error.message]).toEqual([413, EXPECTED_MESSAGE]);
  });

  it('of exactly the limit, declared or streamed, is read whole and answered; one byte more is refused', async () => {
    // An initialize request padded with the whitespace JSON allows after a value.
    const exact = Buffer.from(INITIALIZE.padEnd(DEFAULT_MAX_BODY_BYTES, ' '));
    const stream = (body: Buffer) => Readable.toWeb(Readable.from([body.subarray(0, body.length >> 1), body.subarray(body.length >> 1)])) as ReadableStream;
    const answers = [
      await fetch(s.url, { method: 'POST', headers: MCP_HEADERS, body: exact }),
      await fetch(s.url, { method: 'POST', headers: MCP_HEADERS, body: stream(exact), duplex: 'half' } as RequestInit),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('"serverInfo"');
    }
    const over = Buffer.concat([exact, Buffer.from(' ')]);
    expect((await fetch(s.url, { method: 'POST', headers: MCP_HEADERS, body: over })).status).toBe(413);
    expect((await fetch(s.url, { method: 'POST', headers: MCP_HEADERS, body: stream(over), duplex: 'half' } as RequestInit)).status).toBe(413);
    // And the server keeps serving real clients.
    const client = await connect(s.url, 'modern');
    try {
      const result: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
