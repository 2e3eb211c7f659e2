/**
 * Serving beyond loopback, on this machine's real non-loopback address (from os.networkInterfaces):
 * a token-protected server bound to every interface (0.0.0.0) or to that address answers requests
 * addressed to it, names it in the banner, and still refuses a Host it was not given (DNS
 * rebinding); --allowed-hosts / --allowed-origins (and their variables) add names and origins for
 * a LAN name or a reverse proxy. Through the real CLI and a real MCP client.
 */
import { networkInterfaces } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli, startCli, type CliProcess } from '../helpers/cli.js';
import { INITIALIZE, MCP_HEADERS, raw } from '../mcp/http-harness.js';
import { defaultListCounts } from '../helpers/tools-list.js';

/** Every tool: what a server with the default options lists. */
// Offered by default: every tool but the alerts toolset's.
// The default list: its few tools and call_api (test/helpers/tools-list.ts).
const { all: ALL } = await defaultListCounts();

const TOKEN = 'lan-test-token-Zq81-distinctive';

/** The machine's first non-loopback IPv4 address: what another machine on the LAN would use. */
function lanAddress(): string {
  const all = networkInterfaces();
  for (const list of Object.values(all)) for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  throw new Error(
    `this machine has no non-loopback IPv4 address, so serving beyond loopback cannot be tested here: os.networkInterfaces() = ${JSON.stringify(all)}`,
  );
}

let root: string;
let lan: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-lan-'));
  lan = lanAddress();
});
afterEach(() => killAllCli());
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = (extra: Record<string, string | undefined> = {}) => ({
  YNAB_MCP_STATE_DIR: join(root, 'state'),
  YNAB_MCP_CONFIG_DIR: join(root, 'config'),
  YNAB_MCP_KEYCHAIN: 'off',
  YNAB_MCP_HTTP_TOKEN: TOKEN,
  YNAB_MCP_ALLOWED_HOSTS: undefined,
  YNAB_MCP_ALLOWED_ORIGINS: undefined,
  ...extra,
});

/** Starts `serve --sandbox --transport http` with `args`; resolves with the banner's URLs. */
async function serve(args: string[], extra: Record<string, string | undefined> = {}): Promise<{ p: CliProcess; port: number; urls: string[] }> {
  const p = startCli(['serve', '--sandbox', '--transport', 'http', '--port', '0', ...args], { env: env(extra) });
  const [line] = await p.waitFor('stderr', /^ynab-mcp: MCP endpoint at .*$/m);
  const urls = [...line.matchAll(/http:\/\/\S+?\/mcp/g)].map((m) => m[0]);
  return { p, port: Number(new URL(urls[0]!).port), urls };
}

/** An initialize request sent to `address` with this Host (and Origin) header. */
function post(address: string, port: number, headers: Record<string, string>) {
  return raw(`http://${address}:${port}/mcp`, { headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}`, ...headers }, body: INITIALIZE });
}

describe('bound to every interface (0.0.0.0) with a token', () => {
  it("the banner lists the machine's real address, and a real client reaches the server there", async () => {
    const { urls, port } = await serve(['--host', '0.0.0.0']);
    expect(urls[0]).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(urls).toContain(`http://${lan}:${port}/mcp`);
    const client = new Client({ name: 'lan', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://${lan}:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    try {
      expect((await client.listTools()).tools.length).toBe(ALL);
      const res: any = await client.callTool({ name: 'list_accounts', arguments: { limit: 1 } });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('answers its address as Host, refuses any other Host (DNS rebinding) and a missing token', async () => {
    const { port } = await serve(['--host', '0.0.0.0']);
    expect((await post(lan, port, { host: `${lan}:${port}` })).status).toBe(200);
    for (const host of [`evil.example:${port}`, `${lan}.evil.example:${port}`, `${lan}:${port + 1}`, `box.lan:${port}`]) {
      const res = await post(lan, port, { host });
      expect(res.status, host).toBe(403);
      expect(res.json().error.message).toMatch(/Host is not allowed \(DNS rebinding protection\)/);
    }
    expect((await raw(`http://${lan}:${port}/mcp`, { headers: { ...MCP_HEADERS, host: `${lan}:${port}` }, body: INITIALIZE })).status).toBe(401);
  });

  it("--allowed-hosts adds a LAN name or a proxy's public name (any port, or one); others stay refused", async () => {
    const { port } = await serve(['--host', '0.0.0.0', '--allowed-hosts', `box.lan,proxy.example:443`]);
    expect((await post(lan, port, { host: `box.lan:${port}` })).status).toBe(200);
    expect((await post(lan, port, { host: 'box.lan' })).status).toBe(200);
    expect((await post(lan, port, { host: 'proxy.example:443' })).status).toBe(200);
    // A TLS terminator forwards https://proxy.example/ as plain HTTP with a portless Host.
    expect((await post(lan, port, { host: 'proxy.example' })).status).toBe(200);
    expect((await post(lan, port, { host: 'proxy.example:8443' })).status).toBe(403);
    expect((await post(lan, port, { host: 'proxy.example:80' })).status).toBe(403);
    // The loopback names are allowed on the bound port only, with or without one named.
    expect((await post(lan, port, { host: 'localhost' })).status).toBe(403);
    expect((await post(lan, port, { host: `evil.example:${port}` })).status).toBe(403);
  });

  it('YNAB_MCP_ALLOWED_HOSTS and YNAB_MCP_ALLOWED_ORIGINS do the same as the flags', async () => {
    const { port } = await serve(['--host', '0.0.0.0'], { YNAB_MCP_ALLOWED_HOSTS: 'box.lan', YNAB_MCP_ALLOWED_ORIGINS: 'https://app.example' });
    expect((await post(lan, port, { host: `box.lan:${port}` })).status).toBe(200);
    expect((await post(lan, port, { host: `box.lan:${port}`, origin: 'https://app.example' })).status).toBe(200);
    expect((await post(lan, port, { host: `box.lan:${port}`, origin: 'https://evil.example' })).status).toBe(403);
  });
});

describe('bound to the LAN address itself', () => {
  it('prints that address, answers it as Host and refuses another', async () => {
    const { urls, port } = await serve(['--host', lan]);
    expect(urls).toEqual([`http://${lan}:${port}/mcp`]);
    expect((await post(lan, port, { host: `${lan}:${port}` })).status).toBe(200);
    expect((await post(lan, port, { host: `evil.example:${port}` })).status).toBe(403);
  });

  it('is refused without a token', async () => {
    const p = startCli(['serve', '--sandbox', '--transport', 'http', '--host', lan, '--port', '0'], { env: env({ YNAB_MCP_HTTP_TOKEN: undefined }) });
    expect((await p.exited).code).toBe(2);
    expect(p.stderr).toMatch(new RegExp(`refusing to serve MCP over HTTP on ${lan.replace(/\./g, '\\.')}: it is not a loopback address`));
  });
});
