/**
 * The warm-up's mcp step (warm-up.ts): the request path every call takes, run in this process
 * until V8 has optimized it (code run once is still interpreted: bench/RESULTS.md, a restarted
 * instance's first wave). Each round serves one request as Streamable HTTP does (a server built
 * for the one tool called), over an in-memory pair: the SDK parses and checks an initialize and a
 * tools/call, and our call path answers it whole, from the arguments' check to the output's, for
 * a made-up user whose copy of the made-up budget (warm-budget.ts) is saved in memory
 * (warm-store.ts) and fresh. The tools are the reads a session starts with, in turn.
 *
 * Why whole calls: run only as far as the user's connection (as it once was), the step left the
 * answers' builders and each tool's output check cold, and the first calls after a restart cost
 * three times a later call on the instance (bench/RESULTS.md, hosted).
 *
 * The made-up user has no YNAB token: a request to YNAB would fail before it is sent, so nothing
 * leaves the process. A round that answers with an error fails the step (a warning; the first
 * calls then pay for that code).
 */
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { buildServer } from '../mcp/server.js';
import type { McpConfig } from '../mcp/state/config.js';
import { NoTokenError, ServerState } from '../mcp/state/state.js';
import { BudgetReplica } from '../sync/replica.js';
import { ReplicaFiles } from '../sync/persist.js';
import { ephemeralKey } from '../sync/seal.js';
import { warmBudget, WARM_BUDGET_ID } from './warm-budget.js';
import { MemoryStore, WARM_IDENTITY } from './warm-store.js';

const PROTOCOL = '2025-06-18';

/** The reads a session starts with, and their arguments (the budget's added), one a round in turn. */
export const WARM_CALLS: readonly (readonly [string, Record<string, unknown>])[] = [
  ['list_accounts', {}],
  ['list_transactions', {}],
  ['get_month', { month: 'current' }],
  ['list_categories', {}],
  ['list_payees', {}],
  ['list_scheduled_transactions', {}],
];

/** The copy's age the warm-up user's calls accept: the step's whole length, so none asks YNAB. */
const FRESH_FOR_MS = 3_600_000;

/**
 * The made-up user's state: their copy saved in memory now (so fresh), and a connection without a
 * token. Built as a signed-in user's is (users.ts), but nothing of it is shared or kept.
 */
async function warmState(config: McpConfig, now: Date): Promise<ServerState> {
  const store = new MemoryStore();
  const keySource = ephemeralKey();
  const replica = BudgetReplica.fromExport(warmBudget(now.toISOString().slice(0, 10)), 1, now.getTime());
  await new ReplicaFiles(store, keySource, () => undefined).save(WARM_IDENTITY, replica.snapshot());
  const connect = async () => ({
    credentials: { token: () => Promise.reject(new NoTokenError('the warm-up user has no YNAB token: nothing of the warm-up leaves the process')) },
    info: { source: 'hosted' as const, kind: 'oauth' as const, scope: 'full' as const },
    identity: async () => WARM_IDENTITY,
  });
  return new ServerState(config, connect, { store, persist: true, keySource, maxStalenessMs: FRESH_FOR_MS, log: () => undefined }, 'full');
}

type Answer = { result?: { isError?: boolean; content?: { text?: string }[] }; error?: { message: string } };

/** One request through a fresh server, as an HTTP request is served; resolves with the call's answer. */
async function serveOnce(state: ServerState, tool: string, args: Record<string, unknown>): Promise<Answer> {
  const server = buildServer(state, { live: false, onlyTool: tool, events: true, principal: 'warm-up' });
  const [client, side] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number | string, (m: Answer) => void>();
  client.onmessage = (m) => {
    if ('id' in m && m.id !== undefined) waiting.get(m.id)?.(m as Answer);
  };
  const messages: JSONRPCMessage[] = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'warm-up', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: { budget_id: WARM_BUDGET_ID, ...args } } },
  ];
  await server.connect(side);
  const answers = [1, 2].map((id) => new Promise<Answer>((r) => waiting.set(id, r)));
  for (const m of messages) await client.send(m);
  const [, answer] = await Promise.all(answers);
  await server.close();
  return answer!;
}

/** Rounds of the request path until `budgetMs` has passed (at least `minRounds`, which may be 0); resolves with how many ran. */
export async function warmRequests(config: McpConfig, budgetMs: number, minRounds: number, now = new Date()): Promise<number> {
  const until = performance.now() + budgetMs;
  const state = await warmState(config, now);
  let rounds = 0;
  try {
    while (rounds < minRounds || performance.now() < until) {
      const [tool, args] = WARM_CALLS[rounds % WARM_CALLS.length]!;
      const answer = await serveOnce(state, tool, args);
      if (answer.error || answer.result?.isError)
        throw new Error(`${tool} answered an error: ${(answer.error?.message ?? answer.result?.content?.[0]?.text ?? '').slice(0, 200)}`);
      rounds++;
    }
  } finally {
    await state.close();
  }
  return rounds;
}
