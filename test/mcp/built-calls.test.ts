/**
 * The built server (`node dist/cli.js serve`) lists its tools from the build's tool file alone and
 * loads the definitions with the first call (src/mcp/tools/cards.ts). Its calls, their argument
 * checks, a held write in both forms and the resources answer as the sources do: the same
 * sandbox, the server from src/ beside it (the harness) as the yardstick.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let home: string;
const clients: Client[] = [];

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  h = await mcpHarness();
  home = mkdtempSync(join(tmpdir(), 'ynab-mcp-built-calls-'));
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await h?.close();
  rmSync(home, { recursive: true, force: true });
});

/** The built server on the harness's sandbox, with `flags`. */
async function built(name: string, flags: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO_ROOT, 'dist', 'cli.js'), 'serve', ...flags],
    env: {
      PATH: process.env.PATH!,
      YNAB_ACCESS_TOKEN: h.sb.accessToken,
      YNAB_BASE_URL: h.sb.baseUrl,
      YNAB_MCP_STATE_DIR: join(home, name, 'state'),
      YNAB_MCP_CONFIG_DIR: join(home, name, 'config'),
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'built-calls', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const call = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<any>;

it('answers a first call with the definitions it loads then, as the sources answer it', async () => {
  const c = await built('read');
  const fromBuild = ok(await call(c, 'list_accounts', {}));
  const fromSources = ok(await h.call('list_accounts', {}));
  expect(fromBuild.accounts.length).toBeGreaterThan(0);
  expect(fromBuild.accounts).toEqual(fromSources.accounts);
  // An insight and a task-shaped tool: the other two kinds of definition.
  const spending = ok(await call(c, 'spending_summary', {}));
  const { freshness: _a, ...builtSpending } = spending;
  const { freshness: _b, ...sourceSpending } = ok(await h.call('spending_summary', {}));
  expect(Object.keys(builtSpending).length).toBeGreaterThan(2);
  expect(builtSpending).toEqual(sourceSpending);
  expect(Object.keys(ok(await call(c, 'list_recent_changes', {}))).sort()).toEqual(Object.keys(ok(await h.call('list_recent_changes', {}))).sort());
});

it('checks arguments against the definitions (loaded for the check), with the sources’ messages', async () => {
  const c = await built('args');
  for (const args of [{ since_date: 12 }, { nonsense: true }, { limit: 'many' }]) {
    const fromBuild = await call(c, 'list_transactions', args);
    const fromSources = await h.call('list_transactions', args);
    expect(fromBuild.isError, JSON.stringify(args)).toBe(true);
    expect(fromBuild.content).toEqual(fromSources.content);
  }
});

it('holds and confirms a write in the form its --writes mode offers', async () => {
  const c = await built('confirm', ['--writes', 'confirm']);
  const listed = (await c.listTools()).tools.find((t) => t.name === 'create_transactions')!;
  expect(listed.inputSchema.properties).toHaveProperty('confirm_token');
  const accounts = ok(await call(c, 'list_accounts', {})).accounts as { id: string; closed?: boolean }[];
  const account = accounts.find((a) => !a.closed)!;
  const args = {
    transactions: [{ account_id: account.id, date: '2026-01-02', amount: -1.23, payee_name: 'Built Calls Test Shop', memo: 'built-calls' }],
    allow_new_payee: true,
  };
  const preview = ok(await call(c, 'create_transactions', args));
  expect(preview.preview).toBe(true);
  const done = ok(await call(c, 'create_transactions', { ...args, confirm_token: preview.confirm_token }));
  expect(done.preview).toBeUndefined();
  const after = await h.sb.get('/plans/last-used/transactions?since_date=2026-01-01');
  expect(after.body.data.transactions.some((t: { memo?: string }) => t.memo === 'built-calls')).toBe(true);
});

it('reads resources as the tools they mirror', async () => {
  const c = await built('resources');
  const budgets = await c.readResource({ uri: 'ynab://budgets' });
  const fromSources = await h.client.readResource({ uri: 'ynab://budgets' });
  const names = (text: string) => [...text.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]).sort();
  expect(names((budgets.contents[0] as { text: string }).text)).toEqual(names((fromSources.contents[0] as { text: string }).text));
  const status = await c.readResource({ uri: 'ynab://status' });
  expect((status.contents[0] as { text: string }).text).toContain('"toolsets"');
});
