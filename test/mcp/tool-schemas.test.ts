/**
 * The tools' JSON Schemas converted at build time (dist/mcp/tool-schemas.json) are exactly what
 * converting at run time gives, the built server's tools/list equals the one from the sources, and
 * an entry that no longer matches its tool is not used.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { convertToolSchemas, signatureOf } from '../../src/mcp/tools/tool-schemas.js';
import { TOOL_DEFINITIONS, withConfirm } from '../../src/mcp/tools/definitions.js';
import { WRITE_MODES } from '../../src/writes/pipeline/policy.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { EVERY_TOOLSET, mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { listed } from '../helpers/tools-list.js';

const BUILT = join(REPO_ROOT, 'dist', 'mcp', 'tool-schemas.json');
let h: McpHarness;
beforeAll(async () => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run "npm run build" (tsc, then scripts/tool-schemas.mjs)`);
  h = await mcpHarness();
});
afterAll(() => h?.close());

it("the build wrote every tool's schemas, equal to converting them now", () => {
  const built = JSON.parse(readFileSync(BUILT, 'utf8'));
  expect(built).toEqual(convertToolSchemas(TOOL_DEFINITIONS));
});

it.each(WRITE_MODES)('with --writes %s, every tool is offered in a form the build converted (nothing is converted at start)', (mode) => {
  const built = JSON.parse(readFileSync(BUILT, 'utf8')) as Record<string, { signature: string }[]>;
  const missing = TOOL_DEFINITIONS.map((def) => withConfirm(def, mode)).filter(
    (def) => !built[def.name]?.some((entry) => entry.signature === signatureOf(def)),
  );
  expect(missing.map((def) => def.name)).toEqual([]);
});

/** tools/list of the built server at `dist` (null: its default list). */
async function builtList(dist: string, toolsets: string | null = EVERY_TOOLSET) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(dist, 'cli.js'), 'serve', ...(toolsets ? ['--toolsets', toolsets] : [])],
    env: { PATH: process.env.PATH!, YNAB_MCP_STATE_DIR: join(tmpdir(), 'ynab-mcp-tool-schemas-unused') },
  });
  const client = new Client({ name: 'built', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

it('the built server lists exactly what the sources list: every tool, and the default list with call_api', async () => {
  expect(await builtList(join(REPO_ROOT, 'dist'))).toEqual((await h.client.listTools()).tools);
  expect(await builtList(join(REPO_ROOT, 'dist'), null)).toEqual(await listed());
});

it('a tool-schemas.json changed after the bundle was built is checked tool by tool, and a stale entry is not used', async () => {
  // A copy of the build (its packages linked), whose file says get_user takes an argument it does not.
  const home = mkdtempSync(join(tmpdir(), 'ynab-mcp-stale-schemas-'));
  try {
    cpSync(join(REPO_ROOT, 'dist'), join(home, 'dist'), { recursive: true });
    cpSync(join(REPO_ROOT, 'package.json'), join(home, 'package.json'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(home, 'node_modules'));
    const file = join(home, 'dist', 'mcp', 'tool-schemas.json');
    const built = JSON.parse(readFileSync(file, 'utf8'));
    for (const entry of built.get_user) Object.assign(entry, { signature: 'stale', input: { type: 'object', properties: { stale: { type: 'string' } } } });
    writeFileSync(file, JSON.stringify(built));
    const tools = await builtList(join(home, 'dist'));
    expect(tools.find((t) => t.name === 'get_user')!.inputSchema).not.toHaveProperty('properties.stale');
    expect(tools).toEqual((await h.client.listTools()).tools);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

it('a signature names what would make a built entry stale', () => {
  const def = TOOL_DEFINITIONS.find((d) => d.name === 'list_transactions')!;
  const sig = signatureOf(def);
  expect(sig).toContain('list_transactions');
  expect(sig).toContain(JSON.stringify(def.description));
  for (const key of Object.keys(def.input.shape)) expect(sig).toContain(JSON.stringify(key));
  expect(signatureOf({ ...def, description: `${def.description} More.` })).not.toBe(sig);
});
