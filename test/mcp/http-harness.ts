/**
 * Real listening MCP HTTP servers over a sandbox for the HTTP transport tests, real MCP clients
 * for them (either protocol era), and a raw request helper that can send any Host header.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { serveHttp, type HttpServeOptions, type HttpServer } from '../../src/transport/http.js';
import { ServerState, type TokenInfo } from '../../src/mcp/state/state.js';
import type { TestSandbox } from '../helpers/sandbox.js';

export interface StateOptions {
  /** The first tool call waits for this before connecting (to make calls slow on demand). */
  gate?: Promise<void>;
  /** Connect with the sandbox's read-only token, reported as a read-only grant. */
  readOnlyGrant?: boolean;
}

/** A ServerState over the sandbox, built as test/helpers/mcp.ts builds it. */
export function sandboxState(sb: TestSandbox, opts: StateOptions = {}): { state: ServerState; dispose(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-http-'));
  const token = opts.readOnlyGrant ? sb.readOnlyToken : sb.accessToken;
  const info: TokenInfo = opts.readOnlyGrant ? { source: 'sandbox', kind: 'oauth', scope: 'read-only' } : { source: 'sandbox', kind: 'personal' };
  const state = new ServerState(
    mcpConfig({}, {}),
    async () => {
      await opts.gate;
      return { credentials: { token: async () => token }, info, baseUrl: sb.baseUrl };
    },
    { stateDir: dir, persist: false, maxStalenessMs: 60_000 },
  );
  return {
    state,
    async dispose() {
      // A call that timed out may still be running: it writes nothing once this has returned
      // (test/mcp/close-during-call.test.ts), so the directory goes at once.
      await state.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Served extends HttpServer {
  state: ServerState;
  port: number;
  /** Lines the server logged. */
  logs: string[];
}

/** serveHttp on a free port with a fresh state; closed by `close()` (server, then state). */
export async function served(sb: TestSandbox, http: HttpServeOptions = {}, stateOpts: StateOptions = {}): Promise<Served> {
  const { state, dispose } = sandboxState(sb, stateOpts);
  const logs: string[] = [];
  const server = await serveHttp(state, { port: 0, log: (l) => logs.push(l), ...http }).catch(async (e: unknown) => {
    await dispose();
    throw e;
  });
  return {
    ...server,
    state,
    port: Number(new URL(server.url).port),
    logs,
    async close() {
      await server.close();
      await dispose();
    },
  };
}

export type Era = 'legacy' | 'modern';

/** A real MCP client: the SDK default (2025-era handshake) or a negotiating 2026-07-28 client. */
export async function connect(url: string, era: Era, token?: string): Promise<Client> {
  const client = new Client({ name: `http-test-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  await client.connect(transport);
  return client;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
export function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: init.method ?? 'POST', headers: init.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (init.body !== undefined && !init.chunked) req.setHeader('content-length', Buffer.byteLength(init.body));
    req.end(init.body);
  });
}

/** A 2025-era initialize request, the first thing any legacy client sends. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
});

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Host header value for a served port. */
export const hostOf = (s: Served) => `127.0.0.1:${s.port}`;
