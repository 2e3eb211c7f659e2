/**
 * Which host's documentation an Events request is answered by (src/events/dialect.ts; why, in
 * docs/alerts.md "Dialects"), decided per request from what the client says of itself:
 *  - a 2026-07-28 request whose capabilities declare `io.modelcontextprotocol/events`: `sep`;
 *  - else a 2026-07-28 request from ChatGPT (clientInfo `openai-mcp`, or a name saying ChatGPT or
 *    OpenAI), which reads the top-level `capabilities.events` and documents the older codes:
 *    `chatgpt`;
 *  - else a 2026-07-28 request: `sep` (the extension is defined for that revision);
 *  - a 2025-era request (no envelope): `sketch`, the design sketch being the one Events text for
 *    that era.
 * Handlers throw the SEP's codes (events.ts ERR); `inDialect` renumbers them on the way out.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, ProtocolError, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { codeIn, type Dialect } from '../../events/dialect.js';

const EXTENSION = 'io.modelcontextprotocol/events';
const CHATGPT = /^openai-mcp$|chatgpt|openai/i;

export function dialectOf(ctx: ServerContext): Dialect {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (!envelope) return 'sketch';
  const caps = envelope[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  if (caps?.extensions?.[EXTENSION] !== undefined) return 'sep';
  const name = (envelope[CLIENT_INFO_META_KEY] as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && CHATGPT.test(name) ? 'chatgpt' : 'sep';
}

/** A handler answered in the dialect of the request: its errors carry that dialect's codes. */
export function inDialect<P, R>(handler: (params: P, ctx: ServerContext, dialect: Dialect) => Promise<R>): (params: P, ctx: ServerContext) => Promise<R> {
  return async (params, ctx) => {
    const dialect = dialectOf(ctx);
    try {
      return await handler(params, ctx, dialect);
    } catch (e) {
      if (e instanceof ProtocolError && codeIn(dialect, e.code) !== e.code) throw new ProtocolError(codeIn(dialect, e.code), e.message, e.data);
      throw e;
    }
  };
}

/** Registers an `events/*` method answered in the dialect of each request. */
export function onEvents<S extends z.ZodType, R>(
  s: McpServer['server'],
  method: string,
  schemas: { params: S },
  handler: (params: z.output<S>, ctx: ServerContext, dialect: Dialect) => Promise<R>,
): void {
  s.setRequestHandler(method, schemas, inDialect(handler) as never);
}
