/**
 * The tools' JSON Schemas converted at build time (dist/mcp/tool-schemas.json) are exactly what
 * converting at run time gives, the built server's tools/list equals the one from the sources, and
 * an entry that no longer matches its tool is not used.
 */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { convertToolSchemas, signatureOf } from '../../src/mcp/tool-schemas.js';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';

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

it('the built server lists exactly what the sources list', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO_ROOT, 'dist', 'cli.js'), 'serve'],
    env: { PATH: process.env.PATH!, YNAB_MCP_STATE_DIR: join(tmpdir(), 'ynab-mcp-tool-schemas-unused') },
  });
  const client = new Client({ name: 'built', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect((await client.listTools()).tools).toEqual((await h.client.listTools()).tools);
  } finally {
    await client.close();
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
