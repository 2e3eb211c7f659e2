/**
 * `--from FILE` on the command line, as real child processes: `ynab-mcp sandbox --from FILE`
 * announces itself and serves the export's budget, with the load's report on stderr; a file that
 * cannot be loaded ends the process with exit code 1, one stderr line and nothing on stdout; and
 * `ynab-mcp serve --sandbox --from FILE` answers a real MCP client over stdio from that budget.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { killAllCli, runCli, startCli } from './cli-process.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/actual-ynab5/ynab5-demo-budget.json');
const e = JSON.parse(readFileSync(FIXTURE, 'utf8')).budget;
const dir = mkdtempSync(join(tmpdir(), 'export-cli-'));

afterAll(() => {
  killAllCli();
  rmSync(dir, { recursive: true, force: true });
});

describe('--from on the command line', () => {
  it('sandbox --from FILE serves the export and reports what its own arithmetic reproduces', async () => {
    const p = startCli(['sandbox', '--from', FIXTURE]);
    try {
      const a = await p.announcement;
      const res = await fetch(`${a.base_url}/budgets`, { headers: { authorization: `Bearer ${a.access_token}` } });
      expect(((await res.json()) as any).data.budgets.map((b: any) => [b.id, b.name])).toEqual([[e.id, e.name]]);
      expect(p.stderr).toMatch(/sandbox: the sandbox's own arithmetic reproduces 111 of 114 category-month figures/);
      expect(p.stderr).toContain('sandbox: differs: 2023-09 "Inflow: Ready to Assign" balance: the export says $1,000.00, the sandbox computes $850.00');
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('a file that cannot be loaded: exit code 1, one line saying what and where, nothing served', async () => {
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, readFileSync(FIXTURE, 'utf8').slice(0, 5_000));
    const run = await runCli(['sandbox', '--from', cut]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/cut\.json: the JSON is truncated: it ends at byte 5,000 \(line \d+, column \d+\)/)]);
  });

  it('serve --sandbox --from FILE answers an MCP client over stdio from the export', async () => {
    const root = mkdtempSync(join(dir, 'serve-'));
    const env = { PATH: process.env.PATH, YNAB_MCP_STATE_DIR: join(root, 'state'), YNAB_MCP_CONFIG_DIR: join(root, 'config'), YNAB_MCP_KEYCHAIN: 'off' };
    const { client, transport } = await cliMcp(['serve', '--sandbox', '--from', FIXTURE, '--toolsets', 'accounts'], env);
    try {
      const res: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent.accounts.map((a: any) => [a.name, a.balance])).toEqual(e.accounts.map((a: any) => [a.name, a.balance]));
      expect(transport.stderr).toContain(`serving the budget exported in ${FIXTURE}`);
    } finally {
      await client.close();
      await transport.close();
    }
  });

  it('--from without --sandbox is a usage error', async () => {
    const run = await runCli(['serve', '--from', FIXTURE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--from only applies with --sandbox');
  });
});
