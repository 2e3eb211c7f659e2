/**
 * A real MCP client connected to a ynab-mcp server whose API is a sandbox over real HTTP.
 * In-process (linked transports) for speed; the stdio and HTTP suites spawn the CLI instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { MCP_TOOLSETS } from '../../src/mcp/tools/toolsets.js';
import { buildServer } from '../../src/mcp/server.js';
import type { SessionBudget } from '../../src/mcp/state/session-budget.js';
import { ServerState } from '../../src/mcp/state/state.js';
import type { SandboxOptions } from '../../src/sandbox/app.js';
import type { StackOptions } from '../../src/stack/stack.js';
import { testSandbox, type TestSandbox } from './sandbox.js';
import { HELD_WRITE_MAX_AGE_MS } from '../../src/writes/pipeline/reads.js';

export interface McpHarness {
  sb: TestSandbox;
  state: ServerState;
  client: Client;
  /** Calls a tool; returns the raw result. */
  call(name: string, args?: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  sandbox?: SandboxOptions;
  flags?: Parameters<typeof mcpConfig>[0];
  env?: Record<string, string | undefined>;
  token?: 'full' | 'read-only';
  /** The scope the token was granted (an OAuth grant's), as the connection reports it. */
  scope?: 'full' | 'read-only';
  maxStalenessMs?: number;
  stack?: Partial<StackOptions>;
  /** Where the server reaches the sandbox, given the sandbox's base URL (e.g. through a proxy). Default: directly. */
  via?: (sandboxBaseUrl: string) => Promise<string>;
  /** What the client announces (e.g. the MCP Apps extension). */
  clientCapabilities?: ClientCapabilities;
  /** Where the session's default budget is kept (hosted: the store). */
  session?: SessionBudget;
}

/**
 * Every toolset but alerts, listed: what the default offered before issue 59 item 3. The harness
 * lists it unless a test names its toolsets, so suites about the tools themselves see every one
 * of them (the default list, a few tools and call_api, is test/mcp/call-api.test.ts's).
 */
export const EVERY_TOOLSET = MCP_TOOLSETS.filter((t) => t !== 'alerts').join(',');

export async function mcpHarness(opts: HarnessOptions = {}): Promise<McpHarness> {
  // Strict: the server's own requests must send only fields the API defines (the sandbox's
  // default ignores the others, as the service does, and would hide a client bug).
  const sb = await testSandbox({ rateLimit: 100_000, strict: true, ...opts.sandbox });
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-harness-'));
  const token = opts.token === 'read-only' ? sb.readOnlyToken : sb.accessToken;
  const baseUrl = opts.via ? await opts.via(sb.baseUrl) : sb.baseUrl;
  const state = new ServerState(
    mcpConfig({ toolsets: EVERY_TOOLSET, ...opts.flags }, opts.env ?? {}),
    async () => ({
      credentials: { token: async () => token },
      info: { source: 'sandbox', kind: 'personal', ...(opts.scope ? { scope: opts.scope } : {}) },
      baseUrl,
    }),
    { stateDir: dir, persist: false, maxStalenessMs: opts.maxStalenessMs ?? 60_000, ...opts.stack },
    undefined,
    opts.session,
  );
  const server = buildServer(state, { live: true });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1.0.0' }, opts.clientCapabilities ? { capabilities: opts.clientCapabilities } : {});
  await client.connect(clientTransport);
  return {
    sb,
    state,
    client,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    async close() {
      await client.close();
      await server.close();
      await state.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * After a change made in YNAB outside the server (through the sandbox's API, as a user in the app):
 * waits until a held write's preview no longer plans from the copy synced before it. A preview may
 * plan from a copy up to HELD_WRITE_MAX_AGE_MS old (a run of previews shares one sync); a person
 * changes YNAB and asks seconds apart, a test within milliseconds.
 */
export function afterOutsideChange(): Promise<void> {
  return new Promise((r) => setTimeout(r, HELD_WRITE_MAX_AGE_MS + 50));
}

/**
 * A held write, confirmed: the call answers with a preview (checked: nothing else), then the same
 * call with its confirm_token applies it. Returns the preview and the applied result.
 */
export async function confirmed(h: McpHarness, name: string, args: Record<string, unknown>): Promise<{ preview: any; result: any }> {
  const preview = ok(await h.call(name, args));
  if (!preview.preview || typeof preview.confirm_token !== 'string')
    throw new Error(`${name} did not answer with a preview: ${JSON.stringify(preview).slice(0, 500)}`);
  return { preview, result: await h.call(name, { ...args, confirm_token: preview.confirm_token }) };
}

/** The structured content of a successful result (fails the test with the message otherwise). */
export function ok(result: any): any {
  if (result.isError) throw new Error(`tool error: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}
