/**
 * The MCPB manifest for desktop hosts: generated from the tool definitions (so the committed file
 * must equal what `npm run manifest` writes), and valid for the official mcpb CLI. Its settings
 * need no token to try the server: "Try the demo budgets" alone, as a host fills the manifest's
 * mcp_config in, serves the demo budgets to a real MCP client (the packed bundle: test/install/mcpb.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect, it } from 'vitest';
import { manifest } from '../../scripts/manifest.js';

const root = join(import.meta.dirname, '..', '..');

it('matches the tool definitions (run npm run manifest after changing tools)', () => {
  expect(JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'))).toEqual(manifest());
});

it("passes the mcpb CLI's validation", () => {
  const out = execFileSync(join(root, 'node_modules', '.bin', 'mcpb'), ['validate', join(root, 'manifest.json')], { encoding: 'utf8' });
  expect(out).toMatch(/validation passes/);
});

it('asks for no setting, and its demo setting alone serves the demo budgets, as a host starts it (built dist/)', async () => {
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  const m = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
  expect(Object.entries(m.user_config).filter(([, c]: [string, any]) => c.required)).toEqual([]);
  expect(m.user_config.demo).toMatchObject({ type: 'boolean', title: 'Try the demo budgets', default: false });
  // What a host does: ${__dirname} is where the bundle is, each ${user_config.KEY} the setting or its
  // default, and a setting left empty is an empty string.
  const chosen: Record<string, unknown> = { demo: true };
  const fill = (v: string) =>
    v.replaceAll('${__dirname}', root).replace(/\$\{user_config\.(\w+)\}/g, (_, k: string) => String(chosen[k] ?? m.user_config[k].default ?? ''));
  const home = mkdtempSync(join(tmpdir(), 'ynab-mcp-manifest-'));
  const { args, env } = m.server.mcp_config as { args: string[]; env: Record<string, string> };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: args.map(fill),
    env: {
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, fill(v)])),
      PATH: process.env.PATH!,
      HOME: home,
      YNAB_MCP_STATE_DIR: join(home, 'state'),
      YNAB_MCP_CONFIG_DIR: join(home, 'config'),
      YNAB_MCP_KEYCHAIN: 'off',
      // Were the demo setting ignored, a call would go here and fail.
      YNAB_BASE_URL: 'http://127.0.0.1:9/v1',
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'host', version: '1.0.0' });
  try {
    await client.connect(transport);
    const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
    expect(res.isError, res.content?.[0]?.text).toBeFalsy();
    expect(res.structuredContent.budgets.map((b: any) => b.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);
