/**
 * Streamable HTTP builds a server per request. One built for a `tools/call` registers only the
 * tool called (when offered), and answers that call exactly as a server with everything does; for
 * a name not offered it has everything, so the answer is the full server's too. The deadline
 * wrapper tells the factory which tool a request calls.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildServer } from '../../src/mcp/server.js';
import { answerWithin, calledTool, type Exchange } from '../../src/transport/http-deadline.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { sandboxState } from './http-harness.js';

let sb: TestSandbox;
let made: ReturnType<typeof sandboxState>;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  made = sandboxState(sb);
});
afterAll(async () => {
  await made?.dispose();
  await sb?.close();
});

async function connect(onlyTool?: string): Promise<{ client: Client; close(): Promise<void> }> {
  const server = buildServer(made.state, { onlyTool });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await server.connect(s);
  const client = new Client({ name: 'one-tool test', version: '1.0.0' });
  await client.connect(c);
  return { client, close: async () => (await client.close(), await server.close()) };
}

/** An answer without how old its copy is and its per-answer data marker (what differs between two calls). */
const settled = (result: any) =>
  JSON.parse(
    JSON.stringify(result)
      .replace(/"age_seconds":\d+/g, '"age_seconds":0')
      .replace(/budget-data-[0-9a-f]+/g, 'budget-data-x'),
  );

it('registers only the tool called, and answers it as the full server does', async () => {
  const full = await connect();
  const one = await connect('list_accounts');
  try {
    expect((await one.client.listTools()).tools.map((t) => t.name)).toEqual(['list_accounts']);
    expect((await full.client.listTools()).tools.length).toBeGreaterThan(20);
    const args = { name: 'list_accounts', arguments: { fields: ['name', 'balance'] } };
    // The state's first answer says which budget the session took as its default (item 1 of
    // issue 32): taken before the two answers compared, so neither is the first.
    await full.client.callTool(args);
    expect(settled(await one.client.callTool(args))).toEqual(settled(await full.client.callTool(args)));
    const bad = { name: 'list_accounts', arguments: { no_such_argument: 1 } };
    expect(settled(await one.client.callTool(bad))).toEqual(settled(await full.client.callTool(bad)));
  } finally {
    await full.close();
    await one.close();
  }
});

it('call_api gets every tool registered, and answers as the full server does', async () => {
  const full = await connect();
  const one = await connect('call_api');
  try {
    const args = { name: 'call_api', arguments: { operation: 'list_accounts', args: { fields: ['name', 'balance'] } } };
    await full.client.callTool(args);
    const answer = settled(await one.client.callTool(args));
    expect(answer.isError).toBeFalsy();
    expect(answer).toEqual(settled(await full.client.callTool(args)));
  } finally {
    await full.close();
    await one.close();
  }
});

it('a name that is not offered gets the full server, so the same error', async () => {
  const full = await connect();
  const other = await connect('no_such_tool');
  try {
    expect((await other.client.listTools()).tools.length).toBe((await full.client.listTools()).tools.length);
    const call = { name: 'no_such_tool', arguments: {} };
    const [a, b] = await Promise.all([other.client.callTool(call).catch((e: Error) => e.message), full.client.callTool(call).catch((e: Error) => e.message)]);
    expect(a).toEqual(b);
  } finally {
    await full.close();
    await other.close();
  }
});

it('the deadline wrapper tells what tool the request being served calls', async () => {
  const seen: (string | undefined)[] = [];
  const handler = { fetch: async () => (seen.push(calledTool()), new Response('{}', { headers: { 'content-type': 'application/json' } })) };
  // Each request answered as http-requests.ts does: its body read, then parsed once.
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const exchange: Exchange = { id: null };
      void answerWithin({ handler: handler as never, ms: 5_000, exchange }, req, res, body, JSON.parse(body.toString('utf8')));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const post = (body: unknown) => fetch(url, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  try {
    for (const body of [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_month', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'not a name!', arguments: {} } },
    ]) {
      expect((await post(body)).status).toBe(200);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  expect(seen).toEqual(['get_month', undefined, undefined]);
  expect(calledTool()).toBeUndefined();
});
