/**
 * 2025-era clients over Streamable HTTP, served statelessly, get MCP Apps views through the
 * signed session id their initialize is answered with (src/transport/http-sessions.ts): the id is
 * given only where there is something to carry, an id that does not verify is served as no id at
 * all (never an error), the key kept in the state directory carries views across a restart, and
 * DELETE is answered as the specification lets a server that keeps no sessions answer it.
 * (Hosted mode, several instances and two users: test/hosted/sessions.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { SessionIds } from '../../src/transport/session-id.js';
import { fileKey } from '../../src/storage/key-file.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { UI_CAPABILITIES } from '../helpers/views.js';
import { INITIALIZE, MCP_HEADERS, raw, served, type Served } from '../mcp/http-harness.js';

const VIEW_URI = 'ui://ynab/spending';

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

function initialize(capabilities: Record<string, unknown>, protocolVersion = '2025-11-25'): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1' } } });
}

/** A 2025-era client that announces MCP Apps, connected by its own initialize or resuming with `sessionId` (no initialize then). */
async function legacyClient(
  url: string,
  opts: { sessionId?: string; ui?: boolean } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sessions', version: '1' }, opts.ui === false ? {} : { capabilities: UI_CAPABILITIES });
  const transport = new StreamableHTTPClientTransport(new URL(url), opts.sessionId ? { sessionId: opts.sessionId, protocolVersion: '2025-11-25' } : {});
  await client.connect(transport);
  return { client, transport };
}

async function hasViews(client: Client): Promise<boolean> {
  // Asked directly: a resuming client never heard the server's capabilities, and listTools() would answer [] itself.
  const { tools } = (await client.request({ method: 'tools/list', params: {} })) as { tools: { name: string; _meta?: Record<string, unknown> }[] };
  expect(tools.length).toBeGreaterThan(20);
  return tools.find((t) => t.name === 'spending_summary')?._meta?.ui !== undefined;
}

describe('the session id a 2025-era initialize is answered with', () => {
  it('is given to a client announcing MCP Apps: visible ASCII, compact, unique per initialize', async () => {
    const a = await raw(s.url, { headers: MCP_HEADERS, body: initialize(UI_CAPABILITIES) });
    const b = await raw(s.url, { headers: MCP_HEADERS, body: initialize(UI_CAPABILITIES) });
    expect(a.status).toBe(200);
    const id = a.headers['mcp-session-id'] as string;
    expect(id).toMatch(/^[\x21-\x7e]+$/);
    expect(id.length).toBeLessThan(200);
    expect(b.headers['mcp-session-id']).not.toBe(id);
  });

  it('is not given to a client announcing nothing the server acts on: it stays exactly as stateless as before', async () => {
    for (const body of [
      INITIALIZE,
      initialize({ elicitation: { form: {} } }),
      initialize({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/plain'] } } }),
    ]) {
      const r = await raw(s.url, { headers: MCP_HEADERS, body });
      expect(r.status).toBe(200);
      expect(r.headers['mcp-session-id']).toBeUndefined();
    }
  });

  it('never reaches a log', async () => {
    const logged: string[] = [];
    const v = await served(sb, { log: (l) => logged.push(l) });
    try {
      const { client, transport } = await legacyClient(v.url);
      expect(await hasViews(client)).toBe(true);
      const id = transport.sessionId!;
      await client.close();
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.join('\n')).not.toContain(id.split('.')[2]);
    } finally {
      await v.close();
    }
  });
});

describe('a 2025-era client resuming with a session id', () => {
  let id: string;
  beforeAll(async () => {
    const { client, transport } = await legacyClient(s.url);
    id = transport.sessionId!;
    expect(id).toBeDefined();
    await client.close();
  });

  it('gets its views, its ui:// resources and result _meta from the id alone, on every request', async () => {
    const { client } = await legacyClient(s.url, { sessionId: id });
    try {
      expect(await hasViews(client)).toBe(true);
      expect((await client.readResource({ uri: VIEW_URI })).contents[0]!.mimeType).toBe('text/html;profile=mcp-app');
      const res: any = await client.callTool({ name: 'spending_summary', arguments: {} });
      expect(res._meta?.['ynab-mcp/view']?.budget_id).toBeDefined();
    } finally {
      await client.close();
    }
  });

  it('is not trusted when the id is forged or altered: served as any stateless client, no views and no error', async () => {
    const [prefix, payload, mac] = id.split('.') as [string, string, string];
    const flip = (t: string) => (t[0] === 'A' ? 'B' : 'A') + t.slice(1);
    const claims = Buffer.from(JSON.stringify({ protocolVersion: '2025-11-25', uiMimeTypes: ['text/html;profile=mcp-app'] })).toString('base64url');
    const forgedKey = new SessionIds(Buffer.alloc(32, 7)).mint({ uiMimeTypes: ['text/html;profile=mcp-app'] });
    for (const bad of [
      `${prefix}.${payload}.${flip(mac)}`,
      `${prefix}.${flip(payload)}.${mac}`,
      `${prefix}.${claims}.${mac}`,
      forgedKey,
      'not-a-session-id',
      `${id}.x`,
    ]) {
      const { client } = await legacyClient(s.url, { sessionId: bad });
      try {
        expect(await hasViews(client), bad).toBe(false);
        await expect(client.readResource({ uri: VIEW_URI })).rejects.toThrow(/not found/i);
        const res: any = await client.callTool({ name: 'spending_summary', arguments: {} });
        expect(res.isError).toBeFalsy();
        expect(res._meta).toBeUndefined();
      } finally {
        await client.close();
      }
    }
  });

  it('is not trusted for a request that speaks another protocol version than the one the id was given for', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const tools = async (version: string) => {
      const r = await raw(s.url, { headers: { ...MCP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': version }, body });
      expect(r.status).toBe(200);
      return r.text;
    };
    expect(await tools('2025-11-25')).toContain(VIEW_URI);
    expect(await tools('2025-06-18')).not.toContain(VIEW_URI);
  });

  it('DELETE with the id: 405 (the server keeps no session a client could end), and the client closes cleanly', async () => {
    const r = await raw(s.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('POST');
    const { client, transport } = await legacyClient(s.url, { sessionId: id });
    await transport.terminateSession();
    await client.close();
    // Still an id of this server: nothing was ended.
    const again = await legacyClient(s.url, { sessionId: id });
    expect(await hasViews(again.client)).toBe(true);
    await again.client.close();
  });
});

describe('a restarted single-user server', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-session-key-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps a connected client its views with the key kept in the state directory; with another key, the client is served without them, never refused', async () => {
    const sessionKey = await fileKey(join(dir, 'http-session.key')).key();
    const first = await served(sb, { sessionKey });
    const { client, transport } = await legacyClient(first.url);
    expect(await hasViews(client)).toBe(true);
    const port = first.port;
    await first.close();
    // The same port, so that the connected client's next request reaches the new process.
    const again = await served(sb, { sessionKey: await fileKey(join(dir, 'http-session.key')).key(), port });
    try {
      expect(transport.sessionId).toBeDefined();
      expect(await hasViews(client)).toBe(true);
    } finally {
      await again.close();
    }
    const otherKey = await served(sb, { port });
    try {
      expect(await hasViews(client)).toBe(false);
      expect((await client.callTool({ name: 'list_accounts', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
      await otherKey.close();
    }
  });
});

describe('the confirm dialog over stateless 2025-era HTTP', () => {
  it('cannot work: a stateless instance asks, but the answer is posted to another instance and the call times out (the SDK, pinned)', async () => {
    // The SDK's own stateless legacy serving, told the client can answer forms (as a session id
    // could tell it): the client is asked and answers, and the call still fails. Should an SDK
    // update make this pass, the dialog could be offered to 2025-era HTTP clients too.
    const handler = createMcpHandler((ctx) => {
      const server = new McpServer({ name: 'pin', version: '1' }, { inputRequired: { roundTimeoutMs: 1500 } });
      if (ctx.era === 'legacy') (server.server as unknown as { _clientCapabilities: unknown })._clientCapabilities = { elicitation: { form: {} } };
      server.registerTool('ask', { inputSchema: z.object({}) }, async (_args, c) => {
        if (c.mcpReq.inputResponses?.q) return { content: [{ type: 'text', text: 'answered' }] };
        return inputRequired({
          inputRequests: {
            q: inputRequired.elicit({ mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }),
          },
        });
      });
      return server;
    });
    const node = toNodeHandler(handler);
    const http = createServer((req, res) => void node(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const client = new Client({ name: 'pin', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked++;
      return { action: 'accept', content: { ok: true } };
    });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as { port: number }).port}/`)));
      const res: any = await client.callTool({ name: 'ask', arguments: {} });
      expect(asked).toBe(1);
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/timed out/i);
    } finally {
      await client.close();
      http.close();
      await handler.close();
    }
  }, 20_000);
});
