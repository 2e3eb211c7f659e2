/**
 * A real MCP client connected to this process's own server over an in-memory transport, for the
 * commands that show what a host gets (`ynab-mcp tools`, `ynab-mcp call`): the same ServerState
 * and buildServer as `serve`, the same protocol messages, only no pipe in between.
 * The client library is loaded here, on use; serving never loads it.
 */
import type { Client } from '@modelcontextprotocol/client';
import { VERSION, buildServer } from '../mcp/server.js';
import type { ServerState } from '../mcp/state/state.js';

export interface InProcessConnection {
  client: Client;
  close(): Promise<void>;
}

export async function connectInProcess(state: ServerState): Promise<InProcessConnection> {
  const { Client, InMemoryTransport } = await import('@modelcontextprotocol/client');
  const server = buildServer(state, { live: true });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'ynab-mcp-cli', version: VERSION });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
