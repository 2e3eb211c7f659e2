/**
 * tools/list as a client receives it (a real MCP client over an in-memory transport; listing
 * needs no token and asks YNAB nothing), for a toolset selection, read-only or not, a `--writes`
 * mode, and a client that shows MCP Apps views or not; and the byte budgets the lists are held
 * to. Both are read by test/mcp/definitions-budget.test.ts (which fails above a budget) and by
 * scripts/docs-tables.ts (which writes the README's size table), so the numbers live here once.
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { mcpConfig } from '../../src/mcp/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { ServerState } from '../../src/mcp/state.js';

export const KB = 1000;

/**
 * What tools/list may cost at most, in bytes of its JSON `tools` array (KB = 1,000 bytes): as a
 * host gets it by default (`--writes direct`, no views; issue 35 item 12; issue 44 item 6 holds it
 * to 60 KB and core to 18 KB, "as today", with descriptions that say what every argument means
 * since issue 43 item 5), and with any `--writes` mode and views (confirm_token on every write and
 * a view's `_meta` on its tool cost up to 2 KB more); and every definition of the default list, on
 * average.
 */
export const DEFINITION_BUDGETS = {
  /** The 44 API tools, with every operation, argument and unit statement kept, in any mode. */
  api: 40 * KB,
  /** The default list: every tool but the alerts toolset's. 60 KB = 60,000 bytes (issue 44 item 6). */
  all: 60_000,
  /** The `core` profile: 18 KB = 18,000 bytes (issue 44 item 6). */
  core: 18_000,
  /** Every tool, whatever the `--writes` mode and views: 2 KB over the default list, as core's is 600 bytes over core. */
  allAnyMode: 62 * KB,
  /** The `core` profile, whatever the `--writes` mode and views. */
  coreAnyMode: 18.6 * KB,
  /** One tool of the default list, on average. */
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
