/**
 * Serves MCP over stdio: one server instance pinned per connection, built `live` so it withdraws
 * write tools (and tells the client) when the server turns read-only. stdout carries the protocol
 * only; diagnostics go to `log` (stderr).
 */
import type { Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { buildServer } from '../mcp/server.js';
import type { ServerState } from '../mcp/state/state.js';

export interface StdioServeOptions {
  /** Out-of-band errors (a malformed line, a closed pipe). */
  log?: (line: string) => void;
  /** Another stream-shaped transport instead of this process's stdin/stdout (tests). */
  transport?: Transport;
}

export function serveStdioServer(state: ServerState, opts: StdioServeOptions = {}): { close(): Promise<void> } {
  const log = opts.log;
  return serveStdio(() => buildServer(state, { live: true }), {
    ...(opts.transport ? { transport: opts.transport } : {}),
    ...(log ? { onerror: (e: Error) => log(`stdio: ${e.message}`) } : {}),
  });
}
