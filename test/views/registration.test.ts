/**
 * The views are offered only to clients that announce MCP Apps (`io.modelcontextprotocol/ui`
 * with the `text/html;profile=mcp-app` profile), in both protocol eras and over each transport:
 * for them, spending_summary, cash_flow, get_month and needs_attention point at `ui://ynab/…`
 * resources that list and read as `text/html;profile=mcp-app`, and their results carry what the
 * view needs in `_meta`. Every other client sees the tools, resources and results it always saw
 * (the tool snapshots in test/mcp/__toolsnaps__ pin the rest of each definition).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { VIEW_META_KEY, VIEWS } from '../../src/mcp/views/table.js';
import { cliMcp } from '../helpers/cli-mcp.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { UI_CAPABILITIES } from '../helpers/views.js';
import { served, type Era, type Served } from '../mcp/http-harness.js';

const VIEW_TOOLS = Object.fromEntries(VIEWS.map((v) => [v.tool, `ui://ynab/${v.name}`]));

/** What a client that shows views must see. */
async function expectViews(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  for (const t of tools) {
    const uri = VIEW_TOOLS[t.name];
    if (uri) {
      expect(t._meta, t.name).toEqual({ ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri });
    } else expect(t._meta, t.name).toBeUndefined();
  }
  const { resources } = await client.listResources();
  const views = resources.filter((r) => r.uri.startsWith('ui://'));
  expect(views.map((r) => r.uri).sort()).toEqual(Object.values(VIEW_TOOLS).sort());
  for (const r of views) expect(r.mimeType, r.uri).toBe(RESOURCE_MIME_TYPE);
  for (const uri of Object.values(VIEW_TOOLS)) {
    const read = await client.readResource({ uri });
    expect(read.contents).toHaveLength(1);
    const content = read.contents[0] as { uri: string; mimeType?: string; text?: string; _meta?: any };
    expect(content.uri).toBe(uri);
    expect(content.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(content.text).toMatch(/^<!doctype html>/);
    // Everything inline, and the page closes the network itself.
    expect(content.text).toContain(`http-equiv="Content-Security-Policy" content="default-src 'none';`);
    expect(content.text).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    // No csp declared: hosts apply the specification's strict default.
    expect(content._meta?.ui?.csp).toBeUndefined();
  }
}

/** What every other client must see: no view metadata, no ui:// resources, no reading them. */
async function expectNoViews(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  // The default list: a few tools and call_api (src/mcp/tools/toolsets.ts).
  expect(tools.length).toBeGreaterThan(20);
  for (const t of tools) expect(t._meta, t.name).toBeUndefined();
  expect(JSON.stringify(tools)).not.toContain('ui://');
  const { resources } = await client.listResources();
  expect(resources.length).toBeGreaterThan(0);
  expect(resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([]);
  await expect(client.readResource({ uri: 'ui://ynab/spending' })).rejects.toThrow(/not found/i);
}

describe('in process (2025 era)', () => {
  let withUi: McpHarness;
  let without: McpHarness;
  beforeAll(async () => {
    withUi = await mcpHarness({ clientCapabilities: UI_CAPABILITIES });
    without = await mcpHarness();
  });
  afterAll(async () => {
    await withUi?.close();
    await without?.close();
  });

  it('a client announcing MCP Apps gets the four views', async () => {
    await expectViews(withUi.client);
  });

  it('a client without it gets no views', async () => {
    await expectNoViews(without.client);
  });

  it('a client announcing the extension without the HTML profile gets no views', async () => {
    const h = await mcpHarness({ clientCapabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: ['text/plain'] } } } });
    try {
      await expectNoViews(h.client);
    } finally {
      await h.close();
    }
  });

  it('results carry the budget, its currency format and the drill-down tools in _meta for a view, and nothing more for anyone else', async () => {
    const res: any = await withUi.call('get_month', { month: 'current' });
    const meta = res._meta[VIEW_META_KEY];
    const budget = ok(await withUi.call('get_budget_settings', {}));
    expect(meta.budget_id).toBe(ok(res).budget.id);
    expect(meta.currency_format).toEqual(budget.settings.currency_format);
    expect(meta.tools).toEqual(['search_transactions', 'spending_summary']);
    // The model's part of the answer is the same for both clients.
    const plain: any = await without.call('get_month', { month: 'current' });
    expect(plain._meta).toBeUndefined();
    const strip = (r: any) => JSON.stringify(r.structuredContent, (k, v) => (k === 'freshness' ? undefined : v));
    expect(strip(res)).toBe(strip(plain));
    // Tools without a view answer alike.
    expect(((await withUi.call('list_accounts', {})) as any)._meta).toBeUndefined();
  });

  it('offers the views of the tools the toolsets offer, and drill-downs only through offered tools', async () => {
    const h = await mcpHarness({ clientCapabilities: UI_CAPABILITIES, flags: { toolsets: 'months' } });
    try {
      const { resources } = await h.client.listResources();
      expect(resources.filter((r) => r.uri.startsWith('ui://')).map((r) => r.uri)).toEqual(['ui://ynab/month']);
      const res: any = await h.call('get_month', { month: 'current' });
      expect(res._meta[VIEW_META_KEY].tools).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('over HTTP', () => {
  let sb: TestSandbox;
  let s: Served;
  beforeAll(async () => {
    sb = await testSandbox({ rateLimit: 100_000 });
    s = await served(sb);
  });
  afterAll(async () => {
    await s?.close();
    await sb?.close();
  });

  async function connect(era: Era, ui: boolean): Promise<Client> {
    const client = new Client(
      { name: `views-${era}`, version: '1.0.0' },
      { ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}), ...(ui ? { capabilities: UI_CAPABILITIES } : {}) },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url)));
    return client;
  }

  it('a 2026-07-28 client announcing MCP Apps gets the views, each request deciding for itself', async () => {
    const client = await connect('modern', true);
    try {
      expect(client.getProtocolEra()).toBe('modern');
      await expectViews(client);
      const res: any = await client.callTool({ name: 'cash_flow', arguments: {} });
      expect(res._meta[VIEW_META_KEY].currency_format.iso_code).toBe('USD');
    } finally {
      await client.close();
    }
  });

  it('a 2026-07-28 client without it gets none', async () => {
    const client = await connect('modern', false);
    try {
      await expectNoViews(client);
      expect(((await client.callTool({ name: 'cash_flow', arguments: {} })) as any)._meta?.[VIEW_META_KEY]).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('a 2025-era client announcing MCP Apps gets the views: its signed session id carries what it declared at initialize', async () => {
    const client = await connect('legacy', true);
    try {
      expect(client.getProtocolEra()).toBe('legacy');
      await expectViews(client);
      const res: any = await client.callTool({ name: 'cash_flow', arguments: {} });
      expect(res._meta[VIEW_META_KEY].currency_format.iso_code).toBe('USD');
    } finally {
      await client.close();
    }
  });

  it('a 2025-era client without it gets none', async () => {
    const client = await connect('legacy', false);
    try {
      await expectNoViews(client);
      expect(((await client.callTool({ name: 'cash_flow', arguments: {} })) as any)._meta?.[VIEW_META_KEY]).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});

describe('over stdio (the CLI)', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ynab-mcp-views-stdio-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const env = () => ({ PATH: process.env.PATH, HOME: join(root, 'home'), YNAB_MCP_STATE_DIR: join(root, 'state'), YNAB_MCP_CONFIG_DIR: join(root, 'config') });

  it.each<[Era, boolean]>([
    ['legacy', true],
    ['modern', true],
    ['modern', false],
  ])(
    'a %s-era client (announcing MCP Apps: %s)',
    async (era, ui) => {
      const { client, transport } = await cliMcp(['--sandbox'], env(), {
        ...(era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {}),
        ...(ui ? { capabilities: UI_CAPABILITIES } : {}),
      });
      try {
        expect(client.getProtocolEra()).toBe(era);
        await (ui ? expectViews(client) : expectNoViews(client));
        const res: any = await client.callTool({ name: 'needs_attention', arguments: {} });
        expect(res.isError).toBeFalsy();
        expect(res._meta?.[VIEW_META_KEY]?.budget_id !== undefined).toBe(ui);
      } finally {
        await client.close();
        await transport.close();
      }
    },
    90_000,
  );
});

describe('the list gate', () => {
  it('wraps the SDK handlers it narrows (an SDK update that moves them fails here, not in front of users)', async () => {
    const state = new ServerState(mcpConfig({}, {}), async () => {
      throw new Error('listing must not connect');
    });
    const server = buildServer(state);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'gate', version: '1' });
    await client.connect(a);
    // Listing works without a token and without views for this client.
    await expectNoViews(client);
    await client.close();
    await server.close();
  });
});
