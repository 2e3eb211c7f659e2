/**
 * The client asking, as the alerts it pulls are kept for it (src/events/pull.ts): the authenticated
 * principal (hosted mode's user, `serve`'s bearer token; `local` on stdio) and the name the client
 * gives itself (clientInfo: at initialize, or in each 2026-07-28 request's envelope), which
 * survives reconnects and restarts where a session would not. A 2025-era client over HTTP, whose
 * initialize the request's server never saw, is known by its principal alone.
 */
import { CLIENT_INFO_META_KEY, type McpServer, type ServerContext } from '@modelcontextprotocol/server';

export function callerOf(server: McpServer, ctx: ServerContext, principal: string | undefined): string {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined;
  return clientKey(principal, typeof info?.name === 'string' ? info.name : server.server.getClientVersion()?.name);
}

/** The key of a principal's client of this name. */
export const clientKey = (principal: string | undefined, name: string | undefined): string => JSON.stringify([principal ?? 'local', name ?? '']);
