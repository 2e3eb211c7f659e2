/**
 * What the MCP Apps views cost:
 *  - each built view, raw and gzipped (the budget is 300 KB raw);
 *  - tools/list bytes for a client that shows views against one that does not (the view
 *    metadata is sent only to the first), for the default list and the core profile;
 *  - the result `_meta` a view tool adds for such a client;
 *  - building a server instance (per connection over stdio, per request over HTTP) and the first
 *    and later reads of a view: the HTML is read from disk on first use, never at start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { buildViews } from '../scripts/build-views.js';
import { mcpConfig } from '../src/mcp/state/config.js';
import { buildServer } from '../src/mcp/server.js';
import { ServerState } from '../src/mcp/state/state.js';
import { VIEW_META_KEY } from '../src/mcp/views/table.js';
import { startSandbox } from '../src/sandbox/app.js';
import { kb, median, ms, timed } from './stats.js';

import type { BenchSection } from './section.js';

type Report = (row: Record<string, string | number>) => void;

const UI = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

async function connected(state: ServerState, ui: boolean): Promise<{ client: Client; close(): Promise<void> }> {
  const server = buildServer(state);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'bench', version: '1' }, ui ? { capabilities: UI } : {});
  await client.connect(a);
  return { client, close: async () => (await client.close(), await server.close()) };
}

export async function viewsBench(report: Report): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-views-'));
  try {
    for (const v of await buildViews(out)) report({ bench: 'views', view: v.name, raw: kb(v.bytes), gzip: kb(v.gzipBytes) });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }

  for (const toolsets of [undefined, 'core']) {
    const state = new ServerState(mcpConfig({ toolsets }, {}), async () => {
      throw new Error('listing needs no token');
    });
    const sizes: Record<string, number> = {};
    for (const ui of [false, true]) {
      const c = await connected(state, ui);
      sizes[ui ? 'ui' : 'plain'] = bytes((await c.client.listTools()).tools);
      await c.close();
    }
    report({
      bench: 'views',
      'tools/list': toolsets ?? 'all',
      'without views': kb(sizes.plain!),
      'with views': kb(sizes.ui!),
      extra: `${sizes.ui! - sizes.plain!} B`,
    });
  }

  const builds: number[] = [];
  const plainState = new ServerState(mcpConfig({}, {}), async () => {
    throw new Error('building needs no token');
  });
  for (let i = 0; i < 50; i++) builds.push((await timed(async () => buildServer(plainState)))[1]);
  report({ bench: 'views', 'server instance': 'build (tools, resources, prompts, views)', median: ms(median(builds)) });

  const sb = await startSandbox({ seed: 'bench', rateLimit: 10_000_000, log: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-views-state-'));
  try {
    const state = new ServerState(
      mcpConfig({}, {}),
      async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
      { stateDir: dir, persist: false, maxStalenessMs: 600_000, quotaLimit: 10_000_000 },
    );
    const c = await connected(state, true);
    const [, first] = await timed(() => c.client.readResource({ uri: 'ui://ynab/month' }));
    const later: number[] = [];
    for (let i = 0; i < 20; i++) later.push((await timed(() => c.client.readResource({ uri: 'ui://ynab/month' })))[1]);
    report({ bench: 'views', 'resources/read ui://ynab/month': 'first (from disk)', time: ms(first), later: ms(median(later)) });
    for (const [tool, args] of [
      ['get_month', { month: 'current' }],
      ['spending_summary', {}],
    ] as const) {
      const res: any = await c.client.callTool({ name: tool, arguments: args });
      report({
        bench: 'views',
        result: tool,
        'structured bytes': kb(bytes(res.structuredContent)),
        '_meta for the view': `${bytes({ [VIEW_META_KEY]: res._meta[VIEW_META_KEY] })} B`,
      });
    }
    await c.close();
    await state.close();
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const viewsSection: BenchSection = {
  name: 'views',
  title: 'MCP Apps views',
  about:
    'The views (spending, cash flow, the month, what needs attention): their sizes raw and gzipped, tools/list with and without views, first and later reads, and the _meta results carry for clients that show views.',
  run: (r) => viewsBench((row) => r.row(row)),
};
