/**
 * The command line as a new user meets it, through the real CLI (child processes): --version,
 * serve --help naming every environment variable the code reads, flags that only apply to HTTP
 * refused without --transport http, `tools` (sizes of exactly what a host lists) and `call` (one
 * call as a host makes it), and the line that says how to connect after `npm start`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { killAllCli, REPO_ROOT, runCli, startCli } from '../helpers/cli.js';
import { defaultListCounts } from '../helpers/tools-list.js';

/** Every tool: what a server with the default options lists. */
// Offered by default: every tool but the alerts toolset's (asked for by name, or --toolsets all).
// The default list: its few tools and call_api (test/helpers/tools-list.ts).
const { all: ALL } = await defaultListCounts();

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-commands-'));
});
afterEach(() => killAllCli());
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** No developer token, API or directory leaks in; any real request would fail loudly. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    YNAB_ACCESS_TOKEN: undefined,
    YNAB_BUDGET_ID: undefined,
    YNAB_READ_ONLY: undefined,
    YNAB_MCP_TOOLSETS: undefined,
    YNAB_BASE_URL: 'http://127.0.0.1:9/v1',
    YNAB_MCP_STATE_DIR: join(root, 'state'),
    YNAB_MCP_CONFIG_DIR: join(root, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
    ...extra,
  };
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string> };

describe('--version and --help', () => {
  it('--version prints the package version', async () => {
    const r = await runCli(['--version'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`ynab-mcp ${pkg.version}\n`);
  });

  it('serve --help names every environment variable the code reads', async () => {
    const r = await runCli(['serve', '--help'], { env: env() });
    expect(r.code).toBe(0);
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.ts')) for (const m of readFileSync(join(dir, e.name), 'utf8').matchAll(/\bYNAB_[A-Z_]+\b/g)) read.add(m[0]);
      }
    };
    walk(join(REPO_ROOT, 'src'));
    expect(read.size).toBeGreaterThan(8);
    const missing = [...read].filter((name) => !r.stdout.includes(name));
    expect(missing, `serve --help does not name ${missing.join(', ')}`).toEqual([]);
  });

  it('the top-level help lists tools and call', async () => {
    const r = await runCli(['--help'], { env: env() });
    expect(r.stdout).toMatch(/^ {2}tools {2,}/m);
    expect(r.stdout).toMatch(/^ {2}call {2,}/m);
  });
});

describe('flags that only apply over HTTP', () => {
  it.each([[['--port', '9000']], [['--host', '0.0.0.0']], [['--allowed-hosts', 'box.local']], [['--transport', 'stdio', '--port', '9000']]])(
    '%j without --transport http is a usage error',
    async (args) => {
      const r = await runCli(['serve', ...args], { env: env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`--${args.at(-2)!.replace(/^--/, '')} only applies to HTTP: add --transport http`));
    },
  );

  it('--seed without --sandbox is a usage error', async () => {
    const r = await runCli(['serve', '--seed', 'x'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--seed only applies with --sandbox/);
  });
});

describe('after npm start', () => {
  it('one line says how to connect: Claude Code and the MCP Inspector, with the real URL', async () => {
    // npm start runs exactly this (on port 8787; here a free port).
    expect(pkg.scripts.start).toBe('node dist/cli.js serve --sandbox --transport http');
    const p = startCli(['serve', '--sandbox', '--transport', 'http', '--port', '0'], { env: env() });
    const [, url] = await p.waitFor('stderr', /MCP endpoint at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/);
    const [line] = await p.waitFor('stderr', /^ynab-mcp: connect with .*$/m);
    expect(line).toContain(`claude mcp add --transport http ynab ${url}`);
    expect(line).toMatch(/npx @modelcontextprotocol\/inspector/);
    expect(line).not.toMatch(/Bearer/); // no token configured, none to send
    await p.stop();
  });

  it('with an HTTP token the hint says to send it, without printing it', async () => {
    const token = 'start-token-DISTINCTIVE-93jd8';
    const p = startCli(['serve', '--sandbox', '--transport', 'http', '--port', '0'], { env: env({ YNAB_MCP_HTTP_TOKEN: token }) });
    const [line] = await p.waitFor('stderr', /^ynab-mcp: connect with .*$/m);
    expect(line).toContain('--header "Authorization: Bearer $YNAB_MCP_HTTP_TOKEN"');
    await p.stop();
    expect(p.stderr + p.stdout).not.toContain(token);
  });
});

describe('ynab-mcp tools', () => {
  it('lists each tool with the size of its definition, and the total', async () => {
    const r = await runCli(['tools'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^TOOL\s+BYTES\s+ACCESS$/);
    const tools = rows.slice(1, -1).map((line) => line.split(/\s+/));
    expect(tools).toHaveLength(ALL);
    const total = tools.reduce((n, [, bytes]) => n + Number(bytes!.replace(/,/g, '')), 0);
    expect(rows.at(-1)).toContain(`${ALL} tools: ${total.toLocaleString('en-US')} bytes`);
  });

  it('--json sizes are the bytes a host receives in tools/list, honouring --read-only and --toolsets', async () => {
    const report = async (args: string[]) => {
      const r = await runCli(['tools', '--json', ...args], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as {
        count: number;
        total_bytes: number;
        instructions_bytes: number;
        tools: { name: string; bytes: number; access: string }[];
      };
    };
    const all = await report([]);
    const readOnly = await report(['--read-only']);
    const accounts = await report(['--toolsets', 'accounts']);
    expect(readOnly.count).toBeLessThan(all.count);
    expect(readOnly.tools.every((t) => t.access === 'read')).toBe(true);
    expect(readOnly.total_bytes).toBeLessThan(all.total_bytes);
    expect(accounts.tools.map((t) => t.name).sort()).toEqual(['create_account', 'get_account', 'list_accounts', 'list_budgets', 'reconcile_account']);

    // What a host connected to `serve --read-only` over stdio receives, byte for byte.
    const { client, transport } = await cliMcp(['serve', '--read-only'], { PATH: process.env.PATH, ...env() });
    try {
      const listed = (await client.listTools()).tools;
      expect(readOnly.tools.map((t) => [t.name, t.bytes])).toEqual(listed.map((t) => [t.name, Buffer.byteLength(JSON.stringify(t))]));
      expect(readOnly.instructions_bytes).toBe(Buffer.byteLength(client.getInstructions() ?? ''));
    } finally {
      await client.close();
      await transport.close();
    }
  });
});

describe('ynab-mcp call', () => {
  it('prints the structured result as JSON and exits 0', async () => {
    const r = await runCli(['call', 'list_accounts', '{"limit": 2, "fields": ["balance_formatted"]}', '--sandbox'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.accounts).toHaveLength(2);
    expect(out.count).toBeGreaterThan(2);
    expect(out.accounts[0].balance_formatted).toMatch(/\$/);
    expect(out.freshness).toEqual({ age_seconds: expect.any(Number) });
  });

  it('reads the arguments from stdin with "-"', async () => {
    const r = await runCli(['call', 'get_month', '-', '--sandbox'], { env: env(), stdin: '{"month": "current", "limit": 1}' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).month.categories).toHaveLength(1);
  });

  it('exits 1 on a tool error, with the message on stderr', async () => {
    const r = await runCli(['call', 'get_account', '{"account_id": "00000000-0000-4000-8000-000000000000"}', '--sandbox'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/get_account: Not found .*00000000-0000-4000-8000-000000000000/);
  });

  it('without a token, says how to get one (exit 1)', async () => {
    const r = await runCli(['call', 'list_budgets'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No YNAB access token: run "ynab-mcp login"/);
  });

  it('refuses an unknown tool (suggesting the nearest) and bad JSON with exit 2, a write tool under --read-only with exit 1', async () => {
    const typo = await runCli(['call', 'list_acounts', '--sandbox'], { env: env() });
    expect([typo.code, typo.stderr]).toEqual([2, expect.stringMatching(/no tool "list_acounts".*did you mean list_accounts\?/)]);
    const json = await runCli(['call', 'list_accounts', '{limit: 2}'], { env: env() });
    expect([json.code, json.stderr]).toEqual([2, expect.stringMatching(/ARGUMENTS must be a JSON object/)]);
    const list = await runCli(['call', 'list_accounts', '[1]'], { env: env() });
    expect([list.code, list.stderr]).toEqual([2, expect.stringMatching(/must be a JSON object.*not a list/)]);
    // A write withheld by --read-only is a tool error saying so (test/mcp/read-only-refusal.test.ts), exit 1.
    const readOnly = await runCli(['call', 'create_payee', '{"name": "x"}', '--read-only'], { env: env() });
    expect([readOnly.code, readOnly.stderr]).toEqual([
      1,
      expect.stringMatching(/create_payee changes the budget, and this server is read-only \(started with --read-only\)/),
    ]);
  });
});
