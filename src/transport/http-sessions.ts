/**
 * What a 2025-era client over Streamable HTTP declared at initialize, carried in its session id
 * (session-id.ts) so that the per-request servers of its later requests act on it:
 *  - `withSessionIds` answers a 2025-era `initialize` with an `Mcp-Session-Id` when the client
 *    announced something the server acts on (today: MCP Apps views). Clients that announce
 *    nothing of the kind get no id and stay exactly as stateless as before.
 *  - `sessionCapabilities` reads the id on a later request back into client capabilities for
 *    the request's server; an id that does not verify is read as none (never an error).
 *
 * Only the views are carried. Form elicitation (the confirm dialog) is not: answering a dialog
 * means the client POSTs its answer as a new request, which a stateless server instance cannot
 * route back to the call waiting for it, so a 2025-era client over HTTP gets the preview and
 * confirm_token instead (test/views/http-sessions.test.ts shows the SDK refusing it).
 *
 * The specification lets a server that issued session ids answer DELETE with 405 (it does not
 * let clients end sessions: there is nothing to end), and asks for 404 only for sessions the
 * server ended, which never happens here: an id is never withdrawn.
 */
import { getUiCapability, EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { SUPPORTED_PROTOCOL_VERSIONS, type AuthInfo, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import type { HeaderOf } from './http-direct-answers.js';
import type { SessionClaims, SessionIds } from './session-id.js';

export const SESSION_HEADER = 'mcp-session-id';

/** Signs and reads session ids; `subject` names whom an id is bound to (hosted: the user). */
export interface SessionBinding {
  ids: SessionIds;
  subject(auth: AuthInfo | undefined): string;
}

/** The view MIME types this server serves. */
const SERVED_VIEW_TYPES = [RESOURCE_MIME_TYPE];

/** The claims worth carrying for a 2025-era initialize request's params, or undefined when there are none. */
export function claimsOf(params: unknown): SessionClaims | undefined {
  const p = (params ?? {}) as { protocolVersion?: unknown; capabilities?: ClientCapabilities };
  const ui = getUiCapability(p.capabilities);
  const uiMimeTypes = SERVED_VIEW_TYPES.filter((t) => ui?.mimeTypes?.includes(t));
  if (!uiMimeTypes.length) return undefined;
  // The version the SDK settles on when the client asks for one it speaks; otherwise unknown.
  const version = typeof p.protocolVersion === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(p.protocolVersion) ? p.protocolVersion : undefined;
  return { ...(version ? { protocolVersion: version } : {}), uiMimeTypes };
}

/** A 2025-era initialize request's params, from the body parsed already or a copy of it; undefined for anything else. */
async function initializeParams(request: Request, parsed: unknown): Promise<unknown> {
  // Only an initialize can start a session: it carries no session id, and no negotiated
  // protocol version header yet (2026-07-28 requests always carry theirs). Others are not read.
  if (request.method !== 'POST' || request.headers.has(SESSION_HEADER) || request.headers.has('mcp-protocol-version')) return undefined;
  try {
    const body = (parsed !== undefined ? parsed : JSON.parse(await request.clone().text())) as { method?: unknown; params?: unknown } | null;
    return body && typeof body === 'object' && body.method === 'initialize' ? (body.params ?? {}) : undefined;
  } catch {
    return undefined;
  }
}

/** Answers a successful 2025-era initialize that announced something worth carrying with a signed Mcp-Session-Id. */
export function withSessionIds(handler: FetchLikeMcpHandler, sessions: SessionBinding): FetchLikeMcpHandler {
  return {
    async fetch(request, options) {
      const params = await initializeParams(request, options?.parsedBody);
      const response = await handler.fetch(request, options);
      const claims = params === undefined ? undefined : claimsOf(params);
      if (!claims || response.status < 200 || response.status >= 300) return response;
      const headers = new Headers(response.headers);
      headers.set(SESSION_HEADER, sessions.ids.mint(claims, sessions.subject(options?.authInfo)));
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
  };
}

/** The client capabilities the session id on a request (its headers: `header`) vouches for, or undefined. */
export function sessionCapabilities(header: HeaderOf | undefined, auth: AuthInfo | undefined, sessions: SessionBinding): ClientCapabilities | undefined {
  const claims = sessions.ids.read(header?.(SESSION_HEADER), sessions.subject(auth));
  if (!claims?.uiMimeTypes?.length) return undefined;
  // An id minted for another protocol version than the one this request speaks is not this conversation's.
  const speaks = header?.('mcp-protocol-version');
  if (claims.protocolVersion && speaks && speaks !== claims.protocolVersion) return undefined;
  return { extensions: { [EXTENSION_ID]: { mimeTypes: claims.uiMimeTypes } } };
}
