/**
 * No secret on a command line, none in any output, through the real CLI:
 *  - `serve --http-token VALUE` is refused with a message naming --http-token-file and
 *    YNAB_MCP_HTTP_TOKEN (and never the value); the token comes from a file or the environment,
 *    and the running process's command line (/proc/<pid>/cmdline) does not hold it;
 *  - `--base-url` with credentials in it is refused (login and serve);
 *  - a base URL configured with credentials (user info, access_token=…, a token in the fragment)
 *    through YNAB_BASE_URL or stored by login shows nowhere: not in `status` (text or JSON), the
 *    server's logs, tool results or errors, or the CLI's own error messages;
 *  - budget text quoting a credentialed URL or the token in use is scrubbed in tool results and
 *    resources too.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { killAllCli, runCli, startCli, type CliProcess } from '../helpers/cli.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { INITIALIZE, MCP_HEADERS, raw } from '../mcp/http-harness.js';

const HTTP_TOKEN = 'httpTOKEN-Zq81-distinctive-4c2e';
const URL_SECRET = 'urlSECRET-9d7f-distinctive';
const USER_SECRET = 'pwSECRET-3b1a-distinctive';
const FRAGMENT_SECRET = 'fragSECRET-77aa-distinctive';
const SECRETS = [HTTP_TOKEN, URL_SECRET, USER_SECRET, FRAGMENT_SECRET];

let sb: TestSandbox;
let root: string;
let n = 0;

beforeAll(async () => {
  sb = await testSandbox({ seed: 'secrets-cli' });
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-secrets-cli-'));
});
afterEach(() => killAllCli());
afterAll(async () => {
  await sb?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh, isolated environment: own state and config directories, no keychain, no token. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const dir = join(root, `run-${++n}`);
  return {
    HOME: dir,
    YNAB_MCP_STATE_DIR: join(dir, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
    YNAB_ACCESS_TOKEN: undefined,
    YNAB_BASE_URL: undefined,
    YNAB_MCP_HTTP_TOKEN: undefined,
    ...extra,
  };
}

const leaks = (text: string) => SECRETS.filter((s) => text.includes(s));

/** The sandbox's base URL, carrying credentials the transport never sends (it uses the origin and path). */
const credentialedBaseUrl = () => {
  const u = new URL(sb.baseUrl);
  return `${u.protocol}//apiuser:${USER_SECRET}@${u.host}${u.pathname}?access_token=${URL_SECRET}#refresh_token=${FRAGMENT_SECRET}`;
};

async function startHttp(args: string[], extraEnv: Record<string, string | undefined>): Promise<{ p: CliProcess; url: string }> {
  const p = startCli(['serve', '--transport', 'http', '--port', '0', '--sandbox', ...args], { env: env(extraEnv) });
  const url = (await p.waitFor('stderr', /MCP endpoint at (\S+)/, 60_000))[1]!;
  return { p, url };
}

async function initialize(url: string, token?: string): Promise<number> {
  const host = new URL(url).host;
  const headers: Record<string, string> = { ...MCP_HEADERS, host, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return (await raw(url, { headers, body: INITIALIZE })).status;
}

describe('the HTTP bearer token', () => {
  it.each([
    ['--http-token VALUE', ['--http-token', HTTP_TOKEN]],
    ['--http-token=VALUE', [`--http-token=${HTTP_TOKEN}`]],
    ['--http-token VALUE over stdio too', ['--http-token', HTTP_TOKEN, '--transport', 'stdio']],
  ])('is refused on the command line (%s), naming what to use instead and never the value', async (_name, args) => {
    const argv = args.includes('stdio') ? ['serve', '--sandbox', ...args] : ['serve', '--transport', 'http', '--port', '0', '--sandbox', ...args];
    const run = await runCli(argv, { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--http-token is not accepted/);
    expect(run.stderr).toMatch(/--http-token-file PATH/);
    expect(run.stderr).toMatch(/YNAB_MCP_HTTP_TOKEN/);
    expect(leaks(run.stdout + run.stderr)).toEqual([]);
  });

  it("comes from --http-token-file: required by the endpoint, absent from the process's command line", async () => {
    const file = join(root, 'http-token');
    writeFileSync(file, `${HTTP_TOKEN}\n`, { mode: 0o600 });
    const { p, url } = await startHttp(['--http-token-file', file], {});
    expect(await initialize(url)).toBe(401);
    expect(await initialize(url, 'wrong-token-value')).toBe(401);
    expect(await initialize(url, HTTP_TOKEN)).toBe(200);
    if (process.platform === 'linux') expect(readFileSync(`/proc/${p.child.pid}/cmdline`, 'utf8')).not.toContain(HTTP_TOKEN);
    await p.stop();
    expect(p.stderr).not.toMatch(/warning/);
    expect(leaks(p.stdout + p.stderr)).toEqual([]);
  }, 90_000);

  it('comes from YNAB_MCP_HTTP_TOKEN', async () => {
    const { p, url } = await startHttp([], { YNAB_MCP_HTTP_TOKEN: HTTP_TOKEN });
    expect(await initialize(url)).toBe(401);
    expect(await initialize(url, HTTP_TOKEN)).toBe(200);
    if (process.platform === 'linux') expect(readFileSync(`/proc/${p.child.pid}/cmdline`, 'utf8')).not.toContain(HTTP_TOKEN);
    await p.stop();
    expect(leaks(p.stdout + p.stderr)).toEqual([]);
  }, 90_000);

  it('warns when its file can be read by others, and refuses a missing, empty or multi-word file naming the path', async () => {
    const open = join(root, 'open-token');
    writeFileSync(open, HTTP_TOKEN);
    chmodSync(open, 0o644);
    const { p } = await startHttp(['--http-token-file', open], {});
    await p.stop();
    expect(p.stderr).toMatch(new RegExp(`warning: --http-token-file ${open} can be read by other users \\(mode 644\\); run: chmod 600`));
    const empty = join(root, 'empty-token');
    writeFileSync(empty, '\n', { mode: 0o600 });
    const spaced = join(root, 'spaced-token');
    writeFileSync(spaced, 'two words\n', { mode: 0o600 });
    for (const [file, message] of [
      [join(root, 'missing'), /cannot be read: no such file/],
      [empty, /is empty/],
      [spaced, /should hold one token/],
    ] as const) {
      const run = await runCli(['serve', '--transport', 'http', '--port', '0', '--sandbox', '--http-token-file', file], { env: env() });
      expect(run.code, file).toBe(2);
      expect(run.stderr).toContain(`--http-token-file ${file}`);
      expect(run.stderr).toMatch(message);
    }
  }, 90_000);
});

describe('a base URL carrying credentials', () => {
  it('is refused on the command line, by login and serve, without echoing them', async () => {
    for (const argv of [
      ['login', '--token-stdin', '--base-url', credentialedBaseUrl()],
      ['serve', '--base-url', credentialedBaseUrl()],
    ]) {
      const run = await runCli(argv, { env: env(), stdin: `${sb.accessToken}\n` });
      expect(run.code, argv[0]).toBe(2);
      expect(run.stderr).toMatch(/--base-url carries credentials .*\[redacted\]/);
      expect(leaks(run.stdout + run.stderr)).toEqual([]);
    }
  });

  it('configured through the environment and stored by login, shows in no output: status, logs, tool results', async () => {
    const e = env({ YNAB_BASE_URL: credentialedBaseUrl() });
    const login = await runCli(['login', '--token-stdin'], { env: e, stdin: `${sb.accessToken}\n` });
    expect(login.code, login.stderr).toBe(0);
    // Stored with the sign-in: later commands use it without YNAB_BASE_URL.
    const stored = { ...e, YNAB_BASE_URL: undefined };
    const text = await runCli(['status'], { env: stored });
    const json = await runCli(['status', '--json'], { env: stored });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/API: +http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/v1\?access_token=\[redacted\]#refresh_token=\[redacted\]/);
    expect(JSON.parse(json.stdout).token.base_url).toMatch(/^http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/v1\?access_token=\[redacted\]/);

    const { client, transport } = await cliMcp(['serve', '--verbose', '--max-staleness', '0'], { ...stored, PATH: process.env.PATH });
    const results: unknown[] = [];
    try {
      results.push(await client.callTool({ name: 'list_accounts', arguments: {} }));
      results.push(await client.callTool({ name: 'get_account', arguments: { account_id: '00000000-0000-4000-8000-000000000000' } }));
      results.push(await client.readResource({ uri: 'ynab://status' }));
      // Budget text quoting a credentialed URL, or the API token itself, is shown without them.
      const account = (results[0] as any).structuredContent.accounts.find((a: any) => a.type === 'checking').id;
      const memo = `statement https://bank.example/s?id=7&access_token=${URL_SECRET} token ${sb.accessToken}`;
      const created: any = await client.callTool({
        name: 'create_transactions',
        arguments: { transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -1, memo }] },
      });
      results.push(created, await client.callTool({ name: 'get_transaction', arguments: { transaction_id: created.structuredContent.transaction_ids[0] } }));
      results.push(await client.readResource({ uri: `ynab://budgets/last-used/months/current/transactions` }));
      expect((results.at(-2) as any).structuredContent.transaction.memo).toBe('statement https://bank.example/s?id=7&access_token=[redacted] token [redacted]');
    } finally {
      await client.close();
      await transport.close();
    }
    expect((results[0] as any).isError).toBeFalsy();
    for (const output of [login.stdout, login.stderr, text.stdout, text.stderr, json.stdout, transport.stdout, transport.stderr, JSON.stringify(results)]) {
      expect(leaks(output)).toEqual([]);
      expect(output).not.toContain(sb.accessToken);
    }
  }, 90_000);

  it('that is not a valid URL is quoted without its credentials, in tool errors and CLI errors', async () => {
    const bad = `https://api.example.com:99999/v1?access_token=${URL_SECRET}`;
    const { client, transport } = await cliMcp(['serve'], {
      ...env({ YNAB_BASE_URL: bad, YNAB_ACCESS_TOKEN: 'personal-token-for-this-test' }),
      PATH: process.env.PATH,
    });
    let result: any;
    try {
      result = await client.callTool({ name: 'list_accounts', arguments: {} });
    } finally {
      await client.close();
      await transport.close();
    }
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/access_token=\[redacted\]" is not a valid URL/);
    expect(leaks(JSON.stringify(result) + transport.stdout + transport.stderr)).toEqual([]);

    const login = await runCli(['login', '--token-stdin'], { env: env({ YNAB_BASE_URL: bad }), stdin: 'some-token-value\n' });
    expect(login.code).toBe(2);
    expect(login.stderr).toMatch(/access_token=\[redacted\]" is not a valid URL/);
    expect(leaks(login.stdout + login.stderr)).toEqual([]);
  }, 90_000);
});

describe('an error nothing caught', () => {
  // Node prints these itself, straight to file descriptor 2: the CLI's handlers print them through the scrubber.
  const script = (fault: string) => `
    const { scrubStderr, exitOnUncaught } = await import(${JSON.stringify(new URL('../../dist/scrubbed-stderr.js', import.meta.url).href)});
    scrubStderr();
    exitOnUncaught();
    const message = 'boom ' + process.env.YNAB_ACCESS_TOKEN + ' at https://api.example/v1/budgets?access_token=QuerySecret-7781';
    ${fault}`;
  for (const [kind, fault, said] of [
    ['an uncaught exception', 'setTimeout(() => { throw new Error(message); });', 'unexpected error'],
    ['an unhandled rejection', 'Promise.reject(new Error(message));', 'unhandled rejection'],
  ] as const) {
    it(`${kind} is printed without the tokens, and the process exits 1`, async () => {
      const { spawnSync } = await import('node:child_process');
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(fault)], {
        env: { ...process.env, YNAB_ACCESS_TOKEN: 'EnvToken-Zx91-distinctive' },
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`ynab-mcp: ${said}: Error: boom [redacted]`);
      expect(run.stderr).not.toContain('EnvToken-Zx91-distinctive');
      expect(run.stderr).not.toContain('QuerySecret-7781');
    });
  }
});
