/**
 * The MCP Inspector's CLI (@modelcontextprotocol/inspector 2.12.0, as a user would run it) against
 * the built server, over stdio and over Streamable HTTP: tools/list and three tool calls each,
 * and a tool error reported as one (exit 5). On Node 20 the Inspector's options go before the
 * server command: `mcp-inspector --cli --method tools/list node dist/cli.js serve --sandbox`.
 * The Inspector is installed apart from the project (test/inspector, see test/helpers/inspector.ts):
 * without it, these tests skip.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli, REPO_ROOT, startCli, type CliProcess } from '../helpers/cli.js';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { REHEARSAL_ONLY } from '../../src/mcp/tools/toolsets.js';
import { INSPECTOR, skipWithoutInspector } from '../helpers/inspector.js';

/** Every tool: what a server with the default options lists. */
/** What the default toolsets offer (src/mcp/tools/toolsets.ts). */
// The default list: its few tools and call_api (test/helpers/tools-list.ts).
/** Every tool, one per operation: what `--toolsets all` lists. */
// Every tool --toolsets all offers: apply_rehearsal only with a rehearsal (toolsets.ts REHEARSAL_ONLY).
const ALL = TOOL_DEFINITIONS.filter((t) => !REHEARSAL_ONLY.has(t.name)).length;

const skip = skipWithoutInspector();

let home: string;
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  home = mkdtempSync(join(tmpdir(), 'ynab-mcp-inspector-'));
});
afterAll(async () => {
  await killAllCli();
  rmSync(home, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  json: any;
  stderr: string;
}

/** Runs the Inspector CLI with `args`; its JSON result (or error envelope) parsed. */
function inspector(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      INSPECTOR,
      ['--cli', '--format', 'json', ...args],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          HOME: home,
          YNAB_MCP_STATE_DIR: join(home, 'state'),
          YNAB_MCP_CONFIG_DIR: join(home, 'config'),
          YNAB_MCP_KEYCHAIN: 'off',
        },
        timeout: 120_000,
        maxBuffer: 32 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        let json: any;
        try {
          json = JSON.parse(stdout || stderr.slice(stderr.indexOf('{')));
        } catch {
          json = undefined;
        }
        resolve({ code, json, stderr });
      },
    );
  });
}

const CALLS: [string, Record<string, unknown>, (r: any) => void][] = [
  ['list_accounts', { limit: 2 }, (r) => expect(r.structuredContent.accounts).toHaveLength(2)],
  ['get_month', { month: 'current', limit: 3 }, (r) => expect(r.structuredContent.month.categories).toHaveLength(3)],
  ['list_transactions', { type: 'unapproved', limit: 5 }, (r) => expect(r.structuredContent.transactions.length).toBeGreaterThan(0)],
];

function expectToolList(o: Outcome) {
  expect(o.code, o.stderr).toBe(0);
  const names = o.json.result.tools.map((t: any) => t.name);
  expect(names).toHaveLength(ALL);
  expect(names).toEqual(expect.arrayContaining(['list_accounts', 'get_month', 'create_transactions']));
}

describe.skipIf(skip)('over stdio', () => {
  // --toolsets all: the Inspector calls only the tools it has listed (the default lists a few and call_api).
  const server = ['node', 'dist/cli.js', 'serve', '--sandbox', '--toolsets', 'all'];

  it('tools/list, with the options before the server command', async () => {
    expectToolList(await inspector(['--method', 'tools/list', ...server]));
  });

  it.each(CALLS)('tools/call %s', async (name, args, check) => {
    const o = await inspector(['--method', 'tools/call', '--tool-name', name, '--tool-args-json', JSON.stringify(args), ...server]);
    expect(o.code, o.stderr).toBe(0);
    expect(o.json.result.isError).toBeFalsy();
    check(o.json.result);
  });

  it('a tool error is reported as one (exit 5)', async () => {
    const o = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'get_account',
      '--tool-args-json',
      '{"account_id":"00000000-0000-4000-8000-000000000000"}',
      ...server,
    ]);
    expect(o.code).toBe(5);
    expect(o.json.result.isError).toBe(true);
    expect(o.json.result.content[0].text).toMatch(/^Not found \(404\.2 resource_not_found\): account 0{8}-/);
  });
});

describe.skipIf(skip)('over Streamable HTTP', () => {
  let p: CliProcess;
  let url: string;
  beforeAll(async () => {
    p = startCli(['serve', '--sandbox', '--toolsets', 'all', '--transport', 'http', '--port', '0'], {
      env: { YNAB_MCP_STATE_DIR: join(home, 'http-state'), YNAB_MCP_KEYCHAIN: 'off' },
    });
    [, url] = (await p.waitFor('stderr', /MCP endpoint at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)) as [string, string];
  });
  afterAll(() => p?.stop());

  it('tools/list', async () => {
    expectToolList(await inspector(['--method', 'tools/list', '--transport', 'http', url]));
  });

  it.each(CALLS)('tools/call %s', async (name, args, check) => {
    const o = await inspector(['--method', 'tools/call', '--tool-name', name, '--tool-args-json', JSON.stringify(args), '--transport', 'http', url]);
    expect(o.code, o.stderr).toBe(0);
    expect(o.json.result.isError).toBeFalsy();
    check(o.json.result);
  });
});
