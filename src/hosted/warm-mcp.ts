/**
 * The warm-up's mcp step (warm-up.ts): the request path every call takes, run in this process
 * until V8 has optimized it (code run once is still interpreted: bench/RESULTS.md, a restarted
 * instance's first wave). Each round serves one request as Streamable HTTP does (a server built
 * for the one tool called), over an in-memory pair: the SDK parses and checks an initialize and a
 * tools/call, our call path checks the arguments and asks for the user's connection, which a
 * warm-up user has not got (an error answer; nothing leaves the process).
 */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { buildServer } from '../mcp/server.js';
import type { McpConfig } from '../mcp/state/config.js';
import { NoTokenError, ServerState } from '../mcp/state/state.js';

const PROTOCOL = '2025-06-18';
const TOOL = 'list_accounts';

/** One request through a fresh server, as an HTTP request is served; resolves with its answers. */
async function serveOnce(state: ServerState, messages: JSONRPCMessage[]): Promise<void> {
  const server = buildServer(state, { live: false, onlyTool: TOOL, events: true, principal: 'warm-up' });
  const [client, side] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number | string, () => void>();
  client.onmessage = (m) => {
    if ('id' in m && m.id !== undefined) waiting.get(m.id)?.();
  };
  await server.connect(side);
  const answers = messages.filter((m) => 'id' in m).map((m) => new Promise<void>((r) => waiting.set((m as { id: number }).id, r)));
  for (const m of messages) await client.send(m);
  await Promise.all(answers);
  await server.close();
}

/** Rounds of the request path until `budgetMs` has passed (at least `minRounds`, which may be 0); resolves with how many ran. */
export async function warmRequests(config: McpConfig, budgetMs: number, minRounds: number): Promise<number> {
  const state = new ServerState(config, () => Promise.reject(new NoTokenError('a warm-up user has no YNAB connection')), {}, 'full');
  const messages: JSONRPCMessage[] = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'warm-up', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: TOOL, arguments: { budget_id: 'last-used' } } },
  ];
  const until = performance.now() + budgetMs;
  let rounds = 0;
  while (rounds < minRounds || performance.now() < until) {
    await serveOnce(state, messages);
    rounds++;
  }
  return rounds;
}
