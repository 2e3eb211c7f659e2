/**
 * `ynab-mcp serve --rehearse` as a real child process (docs/rehearsal.md, issue 60 item 2): one
 * sandbox plays YNAB and counts every request it gets; the rehearsal holds its own copy in process.
 * The copy is taken in one request, every tool (writes included) answers from it with the
 * rehearsal's notice, nothing more reaches "YNAB", the copy is kept and reopened without a request,
 * `--rehearse-new` takes a new one, `--rehearse-discard` removes it, and a read-only token rehearses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/app.js';
import { cliMcp } from '../helpers/cli-mcp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { killAllCli, runCli, startCli } from '../helpers/cli.js';

let real: RunningSandbox;
/** Every API request "YNAB" got, as `GET /v1/budgets/...` (the client names them /plans, the same endpoints). */
const requests: string[] = [];
const root = mkdtempSync(join(tmpdir(), 'rehearse-'));
let budget: { id: string; name: string };

const NOTICE = /^rehearsal copy of "(.+)" taken \d{4}-\d\d-\d\d \d\d:\d\d UTC; nothing changes in YNAB$/;

beforeAll(async () => {
  real = await startSandbox({
    verbose: true,
    log: (l) => void (/^sandbox: [A-Z]+ \/v1\//.test(l) && requests.push(l.split(' ').slice(1, 3).join(' ').replace('/v1/plans', '/v1/budgets'))),
  });
  const raw: any = await (await fetch(`${real.baseUrl}/budgets`, { headers: { authorization: `Bearer ${real.accessToken}` } })).json();
  budget = { id: raw.data.budgets[0].id, name: raw.data.budgets[0].name };
  requests.length = 0;
});

afterAll(async () => {
  killAllCli();
  await real.close();
  rmSync(root, { recursive: true, force: true });
});

const envOf = (dir: string, token: string) => ({
  PATH: process.env.PATH,
  YNAB_ACCESS_TOKEN: token,
  YNAB_BASE_URL: real.baseUrl,
  YNAB_MCP_STATE_DIR: join(dir, 'state'),
  YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
  YNAB_MCP_KEYCHAIN: 'off',
});

/** The real budget's transactions, read from "YNAB"'s raw API (not counted: the test's own reads). */
async function realTransactionCount(): Promise<number> {
  const before = requests.length;
  const raw: any = await (
    await fetch(`${real.baseUrl}/budgets/${budget.id}/transactions`, { headers: { authorization: `Bearer ${real.accessToken}` } })
  ).json();
  requests.length = before;
  return raw.data.transactions.filter((t: any) => !t.deleted).length;
}

async function withServer<T>(args: string[], env: Record<string, string | undefined>, fn: (c: Awaited<ReturnType<typeof cliMcp>>) => Promise<T>): Promise<T> {
  const opened = await cliMcp(['serve', ...args], env);
  try {
    return await fn(opened);
  } finally {
    await opened.client.close();
    await opened.transport.close();
  }
}

async function logPurchase(client: any, memo: string): Promise<any> {
  const accounts: any = await client.callTool({ name: 'list_accounts', arguments: {} });
  const account = accounts.structuredContent.accounts.find((a: any) => a.type === 'checking').id;
  return client.callTool({
    name: 'create_transactions',
    arguments: { transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -12.34, memo }] },
  });
}

describe('serve --rehearse', () => {
  it('takes the copy in one request; every answer says it is a rehearsal; writes never reach YNAB', async () => {
    const dir = mkdtempSync(join(root, 'full-'));
    const before = await realTransactionCount();
    await withServer(['--rehearse', '--budget', budget.id], envOf(dir, real.accessToken), async ({ client, transport }) => {
      const listed: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(requests).toEqual([`GET /v1/budgets/${budget.id}`]);
      expect(listed.structuredContent.rehearsal).toMatch(NOTICE);
      expect(listed.structuredContent.rehearsal.match(NOTICE)[1]).toBe(budget.name);
      const created = await logPurchase(client, 'rehearsed purchase');
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent.rehearsal).toMatch(NOTICE);
      const summary: any = await client.callTool({ name: 'spending_summary', arguments: {} });
      expect(summary.structuredContent.rehearsal).toMatch(NOTICE);
      const found: any = await client.callTool({ name: 'search_transactions', arguments: { query: 'rehearsed purchase' } });
      expect(found.structuredContent.rehearsal).toMatch(NOTICE);
      expect(JSON.stringify(found.structuredContent)).toContain('rehearsed purchase');
      const refused: any = await client.callTool({ name: 'get_transaction', arguments: { transaction_id: '00000000-0000-4000-8000-000000000000' } });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toMatch(/\(rehearsal copy of ".+" taken .+ UTC; nothing changes in YNAB\)$/);
      expect(transport.stderr).toContain(`ynab-mcp: serving a new rehearsal copy of ${JSON.stringify(budget.name)}`);
    });
    expect(requests).toEqual([`GET /v1/budgets/${budget.id}`]);
    expect(await realTransactionCount()).toBe(before);

    // Kept: reopened with no request, the rehearsed purchase still in it.
    requests.length = 0;
    await withServer(['--rehearse'], envOf(dir, real.accessToken), async ({ client, transport }) => {
      const found: any = await client.callTool({ name: 'search_transactions', arguments: { query: 'rehearsed purchase' } });
      expect(JSON.stringify(found.structuredContent)).toContain('rehearsed purchase');
      expect(transport.stderr).toContain('serving a kept rehearsal copy');
    });
    expect(requests).toEqual([]);

    // --rehearse-new: a new copy (one request), without the rehearsed purchase.
    await withServer(['--rehearse-new', '--budget', budget.id], envOf(dir, real.accessToken), async ({ client }) => {
      const found: any = await client.callTool({ name: 'search_transactions', arguments: { query: 'rehearsed purchase' } });
      expect(JSON.stringify(found.structuredContent)).not.toContain('rehearsed purchase');
    });
    expect(requests).toEqual([`GET /v1/budgets/${budget.id}`]);

    // One copy is kept at a time: another budget named while it is kept is refused, saying how to replace it.
    const other = await runCli(['serve', '--rehearse', '--budget', 'Haushalt Berlin'], { env: envOf(dir, real.accessToken) });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`a rehearsal copy of ${JSON.stringify(budget.name)} taken`);
    expect(other.stderr).toContain('is kept, not of "Haushalt Berlin": add --rehearse-new to discard it and copy "Haushalt Berlin"');

    const discarded = await runCli(['serve', '--rehearse-discard'], { env: envOf(dir, real.accessToken) });
    expect(discarded.code).toBe(0);
    expect(discarded.stderr).toContain(`ynab-mcp: discarded the rehearsal copy of ${JSON.stringify(budget.name)}`);
    expect((await runCli(['serve', '--rehearse-discard'], { env: envOf(dir, real.accessToken) })).stderr).toContain('no rehearsal copy was kept');
  }, 120_000);

  it('a read-only token rehearses writes; a budget by name costs the list first', async () => {
    const dir = mkdtempSync(join(root, 'ro-'));
    requests.length = 0;
    await withServer(['--rehearse', '--budget', budget.name], envOf(dir, real.readOnlyToken), async ({ client }) => {
      const created = await logPurchase(client, 'read-only rehearsal');
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent.rehearsal).toMatch(NOTICE);
    });
    expect(requests).toEqual(['GET /v1/budgets', `GET /v1/budgets/${budget.id}`]);
    // Counted in the token's request ledger, as every request to YNAB is (this token made no others).
    expect((await runCli(['status'], { env: envOf(dir, real.readOnlyToken) })).stdout).toMatch(/Quota:\s+2 of \d+ requests used in the last hour/);
  }, 120_000);

  it('over HTTP too: the copy in one request, answers with the notice, nothing more sent', async () => {
    const dir = mkdtempSync(join(root, 'http-'));
    requests.length = 0;
    const p = startCli(['serve', '--rehearse', '--budget', budget.id, '--transport', 'http', '--port', '0'], { env: envOf(dir, real.accessToken) });
    try {
      const [line] = await p.waitFor('stderr', /^ynab-mcp: MCP endpoint at \S+/m);
      const client = new Client({ name: 'rehearse-http', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(line.split(' ').at(-1)!)));
      try {
        const created = await logPurchase(client, 'over http');
        expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
        expect(created.structuredContent.rehearsal).toMatch(NOTICE);
        const listed: any = await client.callTool({ name: 'rehearsal_changes', arguments: {} });
        expect(listed.structuredContent.changes.map((c: any) => c.tool)).toEqual(['create_transactions']);
      } finally {
        await client.close();
      }
    } finally {
      await p.stop();
    }
    expect(requests).toEqual([`GET /v1/budgets/${budget.id}`]);
  }, 120_000);

  it('--budget naming no budget: a usage error listing the budgets, nothing served', async () => {
    const dir = mkdtempSync(join(root, 'none-'));
    const run = await runCli(['serve', '--rehearse', '--budget', 'No Such Budget'], { env: envOf(dir, real.accessToken) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--budget "No Such Budget" names no budget; the budgets: ${JSON.stringify(budget.name)} (${budget.id})`);
  }, 60_000);

  it('--rehearse with --sandbox or --hosted: a usage error, nothing read', async () => {
    const dir = mkdtempSync(join(root, 'mixed-'));
    requests.length = 0;
    const sandbox = await runCli(['serve', '--rehearse', '--sandbox'], { env: envOf(dir, real.accessToken) });
    expect([sandbox.code, sandbox.stderr]).toEqual([2, expect.stringContaining('--rehearse copies a real budget: it cannot be combined with --sandbox')]);
    const hosted = await runCli(['serve', '--rehearse', '--hosted', '--transport', 'http'], { env: envOf(dir, real.accessToken) });
    expect([hosted.code, hosted.stderr]).toEqual([2, expect.stringContaining("--rehearse serves one user's copy: it cannot be combined with --hosted")]);
    expect(requests).toEqual([]);
  }, 60_000);
});
