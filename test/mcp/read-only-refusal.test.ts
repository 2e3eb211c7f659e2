/**
 * A write called by name on a read-only server (issue 57, item 10): the write tools stay out of
 * tools/list, but a call to one answers that the server is read-only, why (the flag, the variable,
 * the token) and how to change that, not the protocol error "Tool … not found", and no request
 * reaches YNAB. Through the real MCP client in process, and through the CLI (`serve --read-only`
 * over stdio, `call --read-only`), with the sandbox counting the requests it serves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { childEnv, killAllCli, runCli } from '../helpers/cli.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect, served } from './http-harness.js';

/** The API requests a sandbox served, from its one line per request. */
function counted(lines: string[]): () => number {
  return () => lines.filter((l) => / \/v1\//.test(l)).length;
}

const today = new Date().toISOString().slice(0, 10);

let h: McpHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  killAllCli();
});

/** A harness whose sandbox reports every request; returns it with the count so far. */
async function counting(opts: Parameters<typeof mcpHarness>[0] = {}) {
  const lines: string[] = [];
  h = await mcpHarness({ ...opts, sandbox: { verbose: true, log: (l: string) => lines.push(l) } });
  return { h, requests: counted(lines) };
}

/** A create_transactions call's text, checked as a tool error (not a protocol error). */
async function refusedText(harness: McpHarness, accountId: string): Promise<string> {
  const res = await harness.call('create_transactions', { transactions: [{ account_id: accountId, date: today, amount: -1, payee_name: 'Nope' }] });
  expect(res.isError).toBe(true);
  return res.content[0].text as string;
}

describe('a write on a read-only server, through the MCP client', () => {
  const cases = [
    { name: '--read-only', config: { flags: { readOnly: true } }, why: /started with --read-only/, how: /start the server again without --read-only/ },
    { name: 'YNAB_READ_ONLY', config: { env: { YNAB_READ_ONLY: '1' } }, why: /YNAB_READ_ONLY is set/, how: /remove YNAB_READ_ONLY/ },
    { name: '--writes off', config: { flags: { writes: 'off' } }, why: /started with --writes off/, how: /--writes direct or --writes confirm/ },
  ];
  for (const c of cases) {
    it(`${c.name}: the write is not listed, and a call says read-only, why and how to change it, with no request`, async () => {
      const { h, requests } = await counting(c.config);
      const names = (await h.client.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('create_transactions');
      const account = ok(await h.call('list_accounts')).accounts[0];
      const before = requests();
      expect(before).toBeGreaterThan(0);
      const text = await refusedText(h, account.id);
      expect(text).not.toMatch(/not found/);
      expect(text).toMatch(/^create_transactions changes the budget, and this server is read-only/);
      expect(text).toMatch(c.why);
      expect(text).toMatch(c.how);
      expect(text).toMatch(/no request was sent to YNAB/);
      // A task write too (not an API tool), and one the server never loaded a definition of.
      const merge = await h.call('merge_payees', { from: 'x', into: 'y' });
      expect([merge.isError, merge.content[0].text]).toEqual([true, expect.stringMatching(/^merge_payees changes the budget, and this server is read-only/)]);
      expect(requests()).toBe(before);
    });
  }

  it('a tool outside the toolsets is still not found, whatever the mode', async () => {
    const { h } = await counting({ flags: { readOnly: true, toolsets: 'accounts' } });
    await expect(h.call('create_transactions', { transactions: [] })).rejects.toThrow(/not found/);
  });

  it('a token found read-only (403.3): the next write is refused with the token named, and no request', async () => {
    const { h, requests } = await counting({ token: 'read-only' });
    const account = ok(await h.call('list_accounts')).accounts[0];
    // The first write is the one that tells: YNAB answers 403.3 (nothing says so before).
    expect(await refusedText(h, account.id)).toMatch(/403\.3/);
    await new Promise((r) => setTimeout(r, 50));
    const before = requests();
    const text = await refusedText(h, account.id);
    expect(text).not.toMatch(/disabled|not found/);
    expect(text).toMatch(/read-only \(YNAB refused a change because the token only has read-only scope \(403\.3\)\)/);
    expect(text).toMatch(/give the server a token with full access/);
    expect(requests()).toBe(before);
  });
});

describe('a write on a read-only server, through the CLI', () => {
  let sb: TestSandbox;
  const lines: string[] = [];
  const requests = counted(lines);
  let dir: string;
  beforeAll(async () => {
    sb = await testSandbox({ verbose: true, log: (l: string) => lines.push(l) });
    dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-read-only-'));
  });
  afterAll(async () => {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const env = () => ({
    YNAB_ACCESS_TOKEN: sb.accessToken,
    YNAB_BASE_URL: sb.baseUrl,
    YNAB_BUDGET_ID: undefined,
    YNAB_READ_ONLY: undefined,
    YNAB_MCP_WRITES: undefined,
    YNAB_MCP_TOOLSETS: undefined,
    YNAB_MCP_STATE_DIR: join(dir, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
  });

  it('serve --read-only over stdio: a call by name gets the reason and the way out, and YNAB hears nothing', async () => {
    const { client, transport } = await cliMcp(['serve', '--read-only'], childEnv(env()));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('create_payee');
      const before = requests();
      const res: any = await client.callTool({ name: 'create_payee', arguments: { name: 'Nope' } });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/^create_payee changes the budget, and this server is read-only \(started with --read-only\): .*without --read-only/);
      expect(requests()).toBe(before);
    } finally {
      await client.close();
      await transport.close();
    }
  });

  it('over Streamable HTTP (one instance per request), both eras: a read-only grant refuses the write by name, with no request', async () => {
    const s = await served(sb, {}, { readOnlyGrant: true });
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const client = await connect(s.url, era);
        // The first call connects with the read-only grant, which makes the server read-only.
        await client.callTool({ name: 'list_accounts', arguments: {} });
        const before = requests();
        const res: any = await client.callTool({ name: 'create_payee', arguments: { name: 'Nope' } });
        expect(res.isError, era).toBe(true);
        expect(res.content[0].text).toMatch(
          /^create_payee changes the budget, and this server is read-only \(the token was granted read-only access\): to make changes, give the server a token with full access/,
        );
        expect(requests(), era).toBe(before);
        await client.close();
      }
    } finally {
      await s.close();
    }
  });

  it('call --read-only: exit 1 with the reason, not "no tool"', async () => {
    const before = requests();
    const r = await runCli(['call', 'create_payee', '{"name": "x"}', '--read-only'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/create_payee changes the budget, and this server is read-only \(started with --read-only\)/);
    expect(r.stderr).not.toMatch(/no tool/);
    expect(requests()).toBe(before);
  });
});
