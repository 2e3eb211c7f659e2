/**
 * The real CLI over stdio. Starting is cheap and side-effect free (hosts may start the server
 * twice to negotiate): initialize and tools/list read no keychain, write no file and make no
 * request. Without a token, a tool call says how to get one. `--sandbox` works out of the box.
 */
import { defaultListCounts } from '../helpers/tools-list.js';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-stdio-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function env(extra: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    YNAB_MCP_STATE_DIR: join(root, 'state'),
    YNAB_MCP_CONFIG_DIR: join(root, 'config'),
    // Any request would go here and fail loudly.
    YNAB_BASE_URL: 'http://127.0.0.1:9/v1',
    ...extra,
  };
}

describe('serve over stdio', () => {
  it('starts without side effects and asks for a token only when a tool needs one', async () => {
    const { client, transport } = await cliMcp(['serve'], env());
    const tools = await client.listTools();
    expect(tools.tools).toHaveLength((await defaultListCounts()).all);
    await client.listPrompts();
    // Nothing was created by starting, initializing and listing.
    expect(existsSync(join(root, 'state'))).toBe(false);
    expect(existsSync(join(root, 'config'))).toBe(false);
    expect(existsSync(join(root, 'home'))).toBe(false);
    const res: any = await client.callTool({ name: 'list_accounts', arguments: {} });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/No YNAB access token: run "ynab-mcp login"/);
    await client.close();
    await transport.close();
    // stdout carried only JSON-RPC: the transport would have failed on anything else.
    for (const line of transport.stdout.split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0');
  }, 60_000);

  it('serves the demo budgets with --sandbox', async () => {
    const { client, transport } = await cliMcp(['--sandbox'], env());
    const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent.budgets.map((b: any) => b.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
    const accounts: any = await client.callTool({ name: 'list_accounts', arguments: { fields: ['balance_formatted'] } });
    expect(accounts.structuredContent.accounts.length).toBeGreaterThan(3);
    await client.close();
    await transport.close();
    expect(transport.stderr).toMatch(/serving the sandbox's demo budgets/);
    // The demo keeps nothing in the user's state directory.
    expect(existsSync(join(root, 'state')) ? readdirSync(join(root, 'state')) : []).toEqual([]);
  }, 60_000);

  it('serves them with YNAB_MCP_SANDBOX=1 (as an MCPB host sets it), and not with "false" or a placeholder left unfilled', async () => {
    for (const [value, demo] of [
      ['1', true],
      ['false', false],
      ['${user_config.demo}', false],
    ] as const) {
      const { client, transport } = await cliMcp(['serve'], env({ YNAB_MCP_SANDBOX: value }));
      const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
      await client.close();
      await transport.close();
      if (demo)
        expect(
          res.structuredContent.budgets.map((b: any) => b.name),
          value,
        ).toEqual(['Demo Household', 'Haushalt Berlin']);
      else expect(res.content[0].text, value).toMatch(/No YNAB access token/);
    }
  }, 90_000);
});
