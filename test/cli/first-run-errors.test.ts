/**
 * The errors a new user met, each naming the value and the remedy, through the real CLI against
 * real servers: an unreachable API (the URL named), a base URL without /v1 or that is not the YNAB
 * API (said so, no blaming ids), a certificate the client refuses (a certificate problem, not "try
 * again", and tried once), a bad --base-url refused at start, a bad --budget / YNAB_BUDGET_ID named
 * as the server's configuration, a port in use (suggests --port), one format for invalid arguments,
 * and instructions under --sandbox that do not speak of a real budget.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { killAllCli, runCli } from '../helpers/cli.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';

let root: string;
const servers: Server[] = [];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-errors-'));
});
afterEach(() => killAllCli());
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  rmSync(root, { recursive: true, force: true });
});

function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    YNAB_ACCESS_TOKEN: 'first-run-token-abcdef',
    YNAB_BUDGET_ID: undefined,
    YNAB_BASE_URL: undefined,
    YNAB_MCP_STATE_DIR: join(root, 'state'),
    YNAB_MCP_CONFIG_DIR: join(root, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
    ...extra,
  };
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('the API address', () => {
  it('an unreachable base URL is named in the error', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runCli(['call', 'list_budgets'], { env: env({ YNAB_BASE_URL: url }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Could not reach YNAB: could not reach ${url} (ECONNREFUSED: connection refused: nothing listens there)`);
    expect(r.stderr).toMatch(/Check that address \(--base-url or YNAB_BASE_URL\)/);
  });

  it('a base URL without /v1 says so: --base-url at start, YNAB_BASE_URL at the first call', async () => {
    const flag = await runCli(['serve', '--base-url', 'https://api.ynab.com'], { env: env() });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(
      /--base-url: the base URL https:\/\/api\.ynab\.com\/ does not end in \/v1, where the YNAB API lives; did you mean https:\/\/api\.ynab\.com\/v1\?/,
    );
    // From the environment (how hosts pass it), at the first call, where the host shows it.
    const variable = await runCli(['call', 'list_accounts'], { env: env({ YNAB_BASE_URL: 'http://127.0.0.1:8080/api' }) });
    expect(variable.code).toBe(1);
    expect(variable.stderr).toMatch(
      /list_accounts: the base URL http:\/\/127\.0\.0\.1:8080\/api does not end in \/v1, where the YNAB API lives; did you mean http:\/\/127\.0\.0\.1:8080\/api\/v1\?/,
    );
    expect(variable.stderr).not.toMatch(/not found|list tools/i);
  });

  it('a service that is not the YNAB API is called so, not "not found, check the ids"', async () => {
    const port = await listen(createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>')));
    const r = await runCli(['call', 'list_accounts'], { env: env({ YNAB_BASE_URL: `http://127.0.0.1:${port}/v1` }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `http://127.0.0.1:${port}/v1 answered HTTP 404 without a YNAB error body: that does not look like the YNAB API. Check the base URL`,
    );
    expect(r.stderr).not.toMatch(/valid ids/);
  });

  it('an invalid --base-url is refused at start', async () => {
    const bad = await runCli(['serve', '--base-url', 'not a url'], { env: env() });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringMatching(/--base-url: the base URL "not a url" is not a valid URL; expected e\.g\. https:\/\/api\.ynab\.com\/v1/),
    ]);
    const plain = await runCli(['tools', '--base-url', 'http://example.com/v1'], { env: env() });
    expect([plain.code, plain.stderr]).toEqual([
      2,
      expect.stringMatching(/--base-url: refusing the base URL http:\/\/example\.com: the token would travel unencrypted/),
    ]);
  });

  // Tagged: it makes its certificate with the openssl command (test/helpers/services.ts).
  it('a certificate the client refuses is a certificate problem, tried once, not "try again"', { tags: ['openssl'] }, async () => {
    const dir = mkdirSync(join(root, 'tls'), { recursive: true })!;
    // A self-signed certificate, made now, that no client trusts.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=ynab-mcp-test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      {
        stdio: 'ignore',
      },
    );
    let handshakes = 0;
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('{}'));
    server.on('connection', () => (handshakes += 1));
    const port = await listen(server);
    const r = await runCli(['call', 'list_budgets'], { env: env({ YNAB_BASE_URL: `https://127.0.0.1:${port}/v1` }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `Could not connect to YNAB securely: the TLS certificate of 127\\.0\\.0\\.1:${port} was not accepted \\((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)`,
      ),
    );
    expect(r.stderr).toMatch(/This is a certificate problem, not a passing network failure: retrying will not help.*NODE_EXTRA_CA_CERTS/);
    expect(r.stderr).not.toMatch(/try again shortly/i);
    expect(handshakes).toBe(1);
  });
});

describe('the default budget from the configuration', () => {
  const missing = '00000000-0000-4000-8000-00000000abcd';

  it.each([
    ['--budget', ['--budget', missing], {}],
    ['YNAB_BUDGET_ID', [], { YNAB_BUDGET_ID: missing }],
  ] as const)('a bad %s says it came from the server configuration, checked at first use', async (from, flags, extra) => {
    // Starting and listing tools do not check it: it is checked by the first call that uses it.
    expect((await runCli(['tools', '--sandbox', ...flags], { env: env(extra) })).code).toBe(0);
    const r = await runCli(['call', 'list_accounts', '--sandbox', ...flags], { env: env(extra) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `The budget "${missing}" set by ${from} (this server's configuration, checked at the first call that uses it) was not found (404). Set ${from} to an id from list_budgets`,
    );
  });

  it.each([
    ['an unknown name', 'No Such Budget', /no budget|not found|closest/i],
    ['a malformed value', '..', /is not an id/],
  ] as const)('%s in --budget is blamed on the configuration, with the remedy', async (_, value, detail) => {
    const r = await runCli(['call', 'list_accounts', '--sandbox', '--budget', value], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `The budget ${JSON.stringify(value)} set by --budget (this server's configuration, checked at the first call that uses it) cannot be used: `,
    );
    expect(r.stderr).toMatch(detail);
    expect(r.stderr).toContain('Set --budget to an id or name from list_budgets, or to "last-used"; or pass budget_id.');
    expect(r.stderr).not.toMatch(/Invalid arguments for tool/);
  });

  it('a bad budget_id in the arguments is not blamed on the configuration', async () => {
    const r = await runCli(['call', 'list_accounts', JSON.stringify({ budget_id: missing }), '--sandbox', '--budget', 'last-used'], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Not found \(404/);
    expect(r.stderr).not.toMatch(/configuration/);
  });
});

describe('serving', () => {
  it('a port in use suggests --port', async () => {
    const port = await listen(createHttpServer());
    const r = await runCli(['serve', '--sandbox', '--transport', 'http', '--port', String(port)], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use .*choose another --port, or --port 0 for a free one`),
    );
  });

  it('under --sandbox the instructions say writes change demo data, not a real budget', async () => {
    const { client, transport } = await cliMcp(['serve', '--sandbox'], { PATH: process.env.PATH, ...env() });
    try {
      const text = client.getInstructions() ?? '';
      expect(text).toMatch(/demo budgets of a local sandbox: write tools change only its local demo data, never a real budget/);
      expect(text).not.toMatch(/Write tools change the real budget/);
    } finally {
      await client.close();
      await transport.close();
    }
  });
});

describe('invalid arguments', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await mcpHarness();
  });
  afterAll(() => h?.close());

  it('read the same whether the schema or the server found them: "tool X: where: what; where: what"', async () => {
    const bySchema: any = await h.call('list_transactions', { limit: 'x', since_date: 'yesterday', bogus: 1 });
    const byServer: any = await h.call('list_accounts', { fields: ['nope'] });
    const byCursor: any = await h.call('list_payees', { cursor: 'zzz' });
    for (const r of [bySchema, byServer, byCursor]) expect(r.isError).toBe(true);
    expect(bySchema.content[0].text).toBe(
      'Input validation error: Invalid arguments for tool list_transactions: since_date: "yesterday" is not a date: write it YYYY-MM-DD (2026-02-28); limit: must be a number, not the text "x"; unknown field "bogus"',
    );
    expect(byServer.content[0].text).toMatch(/^Input validation error: Invalid arguments for tool list_accounts: unknown field "nope"; available/);
    expect(byCursor.content[0].text).toMatch(/^Input validation error: Invalid arguments for tool list_payees: cursor is not one this server gave out/);
  });
});
