/**
 * A first run, as a person starts the server by hand (issue 41): `serve` at a terminal with no
 * token says at start how to get one (and says nothing of the kind once there is one), and
 * `npm start` prints only what can be used as printed: the MCP endpoint, which a real MCP client
 * then reaches with nothing else; not the in-process sandbox's URL, whose token is kept off the output.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli, REPO_ROOT, runCli, startCli } from '../helpers/cli.js';
import { HAS_SCRIPT, onTerminal } from '../helpers/terminal.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-first-run-'));
});
afterEach(() => killAllCli());
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A user of their own (state and config under `dir`), no token, no keychain; any request to YNAB would fail. */
function env(dir: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    YNAB_ACCESS_TOKEN: undefined,
    YNAB_MCP_SANDBOX: undefined,
    YNAB_BASE_URL: 'http://127.0.0.1:9/v1',
    YNAB_MCP_STATE_DIR: join(dir, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
    ...extra,
  };
}

const WAITING = /waiting for an MCP host on stdin/;
const HTTP_READY = /connect with Claude Code/;
/** The hint names the three ways to a token. */
const HINT = /no YNAB token yet .*`ynab-mcp login`.*YNAB_ACCESS_TOKEN.*--sandbox/;
const lines = (shown: string) => shown.trim().split(/\r?\n/);

describe.skipIf(!HAS_SCRIPT)('serve at a terminal', () => {
  it('with no token says at start, once, how to get one: login, YNAB_ACCESS_TOKEN or --sandbox', async () => {
    const shown = await onTerminal(['serve'], env(join(root, 'none')), WAITING);
    expect(shown.match(new RegExp(HINT, 'g'))).toHaveLength(1);
    expect(lines(shown)).toHaveLength(2);
  });

  it('over HTTP too', async () => {
    const shown = await onTerminal(['serve', '--transport', 'http', '--port', '0'], env(join(root, 'none-http')), HTTP_READY);
    expect(shown).toMatch(HINT);
  });

  it('says nothing of it with a token in YNAB_ACCESS_TOKEN, or with --sandbox', async () => {
    const withToken = await onTerminal(['serve'], env(join(root, 'env'), { YNAB_ACCESS_TOKEN: 'not-a-real-token' }), WAITING);
    expect(lines(withToken)).toEqual([expect.stringMatching(WAITING)]);
    const sandbox = await onTerminal(['serve', '--sandbox'], env(join(root, 'sandbox')), WAITING);
    expect(sandbox).not.toMatch(/no YNAB token/);
  });

  it('says nothing of it after `ynab-mcp login`', async () => {
    const dir = join(root, 'login');
    const sb = startCli(['sandbox', '--port', '0'], { env: env(dir) });
    const { base_url, access_token } = JSON.parse((await sb.waitFor('stdout', /^([^\n]*)\n/))[1]!);
    const login = await runCli(['login', '--token-stdin'], { env: env(dir, { YNAB_BASE_URL: base_url }), stdin: `${access_token}\n` });
    expect(login.code, login.stderr).toBe(0);
    const shown = await onTerminal(['serve'], env(dir, { YNAB_BASE_URL: base_url }), WAITING);
    expect(lines(shown)).toEqual([expect.stringMatching(WAITING)]);
  });
});

describe('npm start', () => {
  it('prints the MCP endpoint, which a client reaches with nothing else, and no URL it could not use', async () => {
    const start = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    // `node dist/cli.js ARGS`: the same arguments, run from the sources, on a free port rather than 8787.
    const [, args = ''] = /^node dist\/cli\.js (.*)$/.exec(start)!;
    const p = startCli([...args.split(' '), '--port', '0'], { env: env(join(root, 'start')) });
    await p.waitFor('stderr', HTTP_READY);
    const urls = new Set(p.stderr.match(/https?:\/\/[^\s,;)]+/g));
    expect(urls.size, p.stderr).toBe(1);
    const [url] = urls;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(p.stderr).toMatch(/serving the sandbox's demo budgets/);
    const client = new Client({ name: 'first-run', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
    expect(res.structuredContent.budgets.map((b: any) => b.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
    await client.close();
  }, 60_000);
});
