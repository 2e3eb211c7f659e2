/**
 * A write tool called by name on a read-only server. Its definition is not listed (a read-only
 * host pays for no write tool's definition), so the SDK would answer the protocol error "Tool …
 * not found" (or "disabled", once a 403.3 withdrew it), which sends a model looking for a typo.
 * The call is answered instead as a tool error that says the server is read-only, why, and how to
 * change that, before anything is asked of YNAB.
 */
import type { CallToolResult, JSONRPCRequest, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ServerState } from '../state/state.js';
import { toolCards } from './cards.js';
import { selected } from './toolsets.js';
import { escapeText } from '../output/sanitize.js';

type StoredHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<unknown>;

/** The write tool `name` that this server's toolsets offer but its read-only mode withholds, if it is one. */
export function withheldWrite(state: ServerState, name: string): boolean {
  if (!state.readOnly) return false;
  return toolCards(state.config.writes).some((t) => t.name === name && t.access === 'write' && selected(state.config.toolsets, t));
}

/**
 * Answers tools/call for withheld writes before the SDK's handler looks the tool up. The SDK
 * offers no public way to wrap it, so it is taken through the protocol's handler accessor, as the
 * views' list gate does (views/register.ts).
 */
export function answerWithheldWrites(server: McpServer, state: ServerState): void {
  const protocol = server.server as unknown as { _getRequestHandler(method: string): StoredHandler | undefined };
  const sdkHandler = protocol._getRequestHandler('tools/call');
  if (!sdkHandler) throw new Error('ynab-mcp: no tools/call handler to answer withheld writes with (has the MCP SDK changed?)');
  server.server.removeRequestHandler('tools/call');
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    const name = (request as { params?: { name?: unknown } }).params?.name;
    if (typeof name === 'string' && withheldWrite(state, name)) {
      const refused: CallToolResult = { content: [{ type: 'text', text: escapeText(state.readOnlyRefusal(name)) }], isError: true };
      return refused as never;
    }
    return (await sdkHandler(request as unknown as JSONRPCRequest, ctx)) as never;
  });
}
