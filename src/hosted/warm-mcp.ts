/**
 * The warm-up's mcp step (warm-up.ts): the request path every call takes, run in this process
 * until V8 has optimized it (code run once is still interpreted: bench/RESULTS.md, a restarted
 * instance's first wave). Each round serves a tools/call as a 2025-era call over Streamable HTTP
 * is served (http-direct-answers.ts): its headers and body checked as the SDK would, a server
 * built for the one tool called, the SDK's checks of the request, and our call path, which checks
 * the arguments and asks for the user's connection, which a warm-up user has not got (an error
 * answer; nothing leaves the process). No initialize: a client sends one when it connects, not
 * with each call, and a crowd after a restart is of clients connected before it.
 */
import type { IncomingMessage } from 'node:http';
import { buildServer } from '../mcp/server.js';
import type { McpConfig } from '../mcp/state/config.js';
import { NoTokenError, ServerState } from '../mcp/state/state.js';
import { answerDirect, directRequest } from '../transport/http-direct-answers.js';

const PROTOCOL = '2025-06-18';
const TOOL = 'list_accounts';

/** The request as node:http hands it on: what the checks read. */
const REQUEST = {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL },
} as unknown as IncomingMessage;

/** Rounds of the request path until `budgetMs` has passed (at least `minRounds`, which may be 0); resolves with how many ran. */
export async function warmRequests(config: McpConfig, budgetMs: number, minRounds: number): Promise<number> {
  const state = new ServerState(config, () => Promise.reject(new NoTokenError('a warm-up user has no YNAB connection')), {}, 'full');
  const serverFor = () => buildServer(state, { live: false, onlyTool: TOOL, events: true, principal: 'warm-up' });
  const until = performance.now() + budgetMs;
  const never = new AbortController().signal;
  let rounds = 0;
  while (rounds < minRounds || performance.now() < until) {
    const body = { jsonrpc: '2.0', id: rounds + 1, method: 'tools/call', params: { name: TOOL, arguments: { budget_id: 'last-used' } } };
    const request = directRequest(REQUEST, body);
    if (!request) throw new Error('the warm-up call is not one served straight from node:http (has the MCP SDK changed?)');
    const answer = await answerDirect(serverFor, REQUEST, request, never);
    if (answer.status !== 200) throw new Error(`the warm-up call was answered ${answer.status}`);
    rounds++;
  }
  return rounds;
}
