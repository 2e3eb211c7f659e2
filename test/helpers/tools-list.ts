/**
 * tools/list as a client receives it (a real MCP client over an in-memory transport; listing
 * needs no token and asks YNAB nothing), for a toolset selection, read-only or not, a `--writes`
 * mode, and a client that shows MCP Apps views or not; and the byte budgets the lists are held
 * to. Both are read by test/mcp/definitions-budget.test.ts (which fails above a budget) and by
 * scripts/docs-tables.ts (which writes the README's size table), so the numbers live here once.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { DEFAULT_TOOLSETS, listed as listedTool } from '../../src/mcp/tools/toolsets.js';

export const KB = 1000;

/**
 * What tools/list may cost at most, in bytes of its JSON `tools` array (KB = 1,000 bytes): as a
 * host gets it by default (`--writes direct`, no views; issue 59 item 3: the default list within
 * 30,000 bytes and core within 15,000, the server's instructions counted apart), and with any
 * `--writes` mode and views (confirm_token on every write and a view's `_meta` on its tool cost up
 * to 2 KB more); and, listed by toolset, every definition on average and the 44 API tools.
 */
export const DEFINITION_BUDGETS = {
  /** The 44 API tools (`--toolsets all`), with every operation, argument and unit statement kept, in any mode. */
  api: 40 * KB,
  /** The default list: a few tools and call_api (issue 59 item 3). */
  all: 30_000,
  /** The `core` profile (issue 59 item 3). */
  core: 15_000,
  /** The default list, whatever the `--writes` mode and views: 2 KB over it. */
  allAnyMode: 32 * KB,
  /** The `core` profile, whatever the `--writes` mode and views: 600 bytes over it. */
  coreAnyMode: 15.6 * KB,
  /** One tool of every toolset but alerts (what the default listed before issue 59), on average. */
  perTool: 950,
} as const;

/** tools/list as a client receives it, for a toolset selection; `ui`: a client that shows MCP Apps views. */
export async function listed(toolsets?: string, readOnly = false, ui = false, writes?: string): Promise<any[]> {
  const state = new ServerState(mcpConfig({ toolsets, readOnly, writes }, {}), async () => {
    throw new Error('listing must not connect');
  });
  const server = buildServer(state);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client(
    { name: 'budget', version: '1' },
    ui ? { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } } : {},
  );
  await client.connect(a);
  const { tools } = await client.listTools();
  await client.close();
  await server.close();
  return tools;
}

/** What a definition (or a list of them) costs: the bytes of its JSON, as `ynab-mcp tools` counts them. */
export const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** How many tools the default list shows (call_api with them), and how many a read-only server shows. */
export async function defaultListCounts(): Promise<{ all: number; reads: number }> {
  const { TOOL_DEFINITIONS } = await import('../../src/mcp/tools/definitions.js');
  const shown = TOOL_DEFINITIONS.filter((t) => listedTool(new Set(DEFAULT_TOOLSETS), t));
  return { all: shown.length + 1, reads: shown.filter((t) => t.access === 'read').length + 1 };
}
