/**
 * call_api (issue 59 item 3): one listed tool that runs any other tool of the server by name, so
 * the `default` and `core` profiles list a few definitions and every v1 operation is still one
 * call away in every host, also in one that never rereads tools/list. The call is answered by the
 * SDK's own tools/call handler, as if the tool had been called by name: the same schema check,
 * the same write pipeline, confirm and read-only rules, the same answer. `describe: true` answers
 * with the tool's description and argument schema instead, as tools/list would show it.
 */
import type { CallToolResult, JSONRPCRequest, McpServer, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { guardedString } from '../../shared/arg-schemas.js';
import { escapeText } from '../output/sanitize.js';
import { toolSchema } from './schema.js';
import { toolCards } from './cards.js';
import { CALL_API } from './toolsets.js';

type StoredHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<unknown>;
type Protocol = { _getRequestHandler(method: string): StoredHandler | undefined };

/**
 * The 44 operations' tools by area, as the description names them (the rest of the server's tools are in docs/tools.md).
 * From the API tools' cards (in the operations' order), not the operations table: a built server
 * lists its tools without loading that table (bench: footprint).
 */
function operationNames(): string {
  const byToolset = new Map<string, string[]>();
  for (const card of toolCards('direct')) if (card.kind === 'api') byToolset.set(card.toolset, [...(byToolset.get(card.toolset) ?? []), card.name]);
  return [...byToolset.values()].map((names) => names.join(' ')).join('; ');
}

export const CALL_API_INPUT = z.strictObject({
  operation: guardedString(100).describe('The tool to run: a v1 operation below, or any other tool of this server.'),
  args: z.looseObject({}).optional().describe('Its arguments, as that tool takes them (describe: true gives them). Default {}.'),
  describe: z.boolean().optional().describe("true: answer with the tool's description and argument schema, run nothing."),
});

export const CALL_API_DESCRIPTION = () =>
  `Use to run a YNAB API operation (or another tool of this server) that is not listed, in one call. Same checks and answers as calling it by name. Operations: ${operationNames()}.`;

/** A tool error with a specific message. */
const refusal = (text: string): CallToolResult => ({ content: [{ type: 'text', text: escapeText(text) }], isError: true });

/**
 * Registers call_api. `names`: the tools it may run (those the server answers by name); `describeTool`:
 * one of them as tools/list would show it. Runs each call through the server's
 * tools/call handler as it stands once registration ends (withheld writes answered first).
 */
export function registerCallApi(
  server: McpServer,
  names: () => readonly string[],
  describeTool: (name: string) => Record<string, unknown>,
  readOnly: boolean,
): void {
  const protocol = server.server as unknown as Protocol;
  server.registerTool(
    CALL_API,
    {
      title: 'Run an API operation',
      description: CALL_API_DESCRIPTION(),
      inputSchema: toolSchema(CALL_API_INPUT),
      // On a read-only server it runs reads only (a write is refused as by name).
      annotations: { readOnlyHint: readOnly },
    },
    async (input, ctx) => {
      const { operation, args, describe } = input as z.output<typeof CALL_API_INPUT>;
      if (operation === CALL_API || !names().includes(operation))
        return refusal(
          `operation ${JSON.stringify(operation)} is not a tool of this server; give one of: ${names()
            .filter((n) => n !== CALL_API)
            .join(', ')}`,
        );
      if (describe) {
        const described = describeTool(operation);
        return { content: [{ type: 'text', text: JSON.stringify(described) }], structuredContent: described };
      }
      const handler = protocol._getRequestHandler('tools/call');
      if (!handler) throw new Error('ynab-mcp: no tools/call handler for call_api (has the MCP SDK changed?)');
      const request = { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: operation, arguments: args ?? {} } } as unknown as JSONRPCRequest;
      const result = (await handler(request, ctx)) as CallToolResult;
      return result.isError ? withSchemaHint(result, operation) : result;
    },
  );
}

/** A refused call says where its arguments are described. */
function withSchemaHint(result: CallToolResult, operation: string): CallToolResult {
  const hint = ` (call_api with operation "${operation}" and describe: true gives its arguments)`;
  const content = result.content.map((c, i) =>
    i === 0 && c.type === 'text' && /argument|invalid|expected|required|unknown field/i.test(c.text) ? { ...c, text: c.text + hint } : c,
  );
  return { ...result, content };
}
