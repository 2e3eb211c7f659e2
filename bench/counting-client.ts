/**
 * A server on a sandbox through a real MCP client, every request it sends to YNAB counted: what
 * the benches measure calls with (the requests a call costs are the scarce thing, 200 an
 * hour). One budget copy per server, kept in memory, the quota out of the way. Without a sandbox
 * the server only lists (a call that needs YNAB fails).
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { mcpConfig } from '../src/mcp/state/config.js';
import { buildServer } from '../src/mcp/server.js';
import { ServerState } from '../src/mcp/state/state.js';
import type { RunningSandbox } from '../src/sandbox/app.js';

export interface CountingClient {
  client: Client;
  /** Requests sent to YNAB so far. */
  requests(): number;
  close(): Promise<void>;
}

export interface CountingOptions {
  toolsets?: string;
  /** How old a copy may answer (default 60 s). */
  maxStalenessMs?: number;
  /** The server runs for one local user, so a statement may be given by `path` (default false). */
  localFiles?: boolean;
}

export async function countingClient(sb: RunningSandbox | undefined, stateDir: string, opts: CountingOptions = {}): Promise<CountingClient> {
  let requests = 0;
  const state = new ServerState(
    mcpConfig({ toolsets: opts.toolsets, ...(opts.localFiles ? { localFiles: true } : {}) }, {}),
    async () => {
      if (!sb) throw new Error('no sandbox');
      return { credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl };
    },
    { stateDir, persist: false, maxStalenessMs: opts.maxStalenessMs ?? 60_000, quotaLimit: 10_000_000, onRequest: () => (requests += 1) },
  );
  const server = buildServer(state);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(a);
  return {
    client,
    requests: () => requests,
    async close() {
      await client.close();
      await server.close();
      await state.close();
    },
  };
}
