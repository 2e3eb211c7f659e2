/**
 * The MCPB bundle as a desktop host gets it: `npm run pack:mcpb` makes it from production
 * dependencies only (at most 8 MB, with icon, homepage, LICENSE, and the keychain binaries of the
 * platforms the manifest claims); `mcpb unpack` opens it; and it is started the way a host starts
 * it, from the manifest's mcp_config with ${__dirname} and ${user_config.*} substituted, and lists
 * and calls tools against a sandbox, or serves the demo budgets with no token ("Try the demo budgets"). Without this platform's keychain binary it still serves (the
 * token setting, a 0600 key file) and says why once.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYCHAIN_PLATFORMS, PLATFORMS } from '../../scripts/manifest.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { defaultListCounts } from '../helpers/tools-list.js';

/** Every tool, and the read-only ones: what a default and a read-only server list. */
/** What the default toolsets offer (src/mcp/tools/toolsets.ts). */
// The default list: its few tools and call_api (test/helpers/tools-list.ts).
const { all: ALL, reads: READS } = await defaultListCounts();

const run = promisify(execFile);

let dir: string;
let bundle: string;
let unpacked: string;
let manifest: any;
let sb: TestSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-mcpb-test-'));
  bundle = join(dir, 'ynab-mcp.mcpb');
  await run(process.execPath, ['--import', 'tsx', 'scripts/pack-mcpb.ts', '--out', bundle], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  unpacked = join(dir, 'unpacked');
  await run(process.execPath, [join(REPO_ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js'), 'unpack', bundle, unpacked], { cwd: dir });
  manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
  sb = await testSandbox({ rateLimit: 100_000 });
}, 700_000);
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The host's substitution of ${__dirname} and ${user_config.KEY} in a manifest string. */
function substitute(value: string, userConfig: Record<string, string | boolean>): string {
  return value
    .replace(/\$\{__dirname\}/g, unpacked)
    .replace(/\$\{user_config\.([a-z_]+)\}/g, (_, key: string) => String(userConfig[key] ?? manifest.user_config[key]?.default ?? ''));
}

/** Starts the bundle as a host does and connects a real MCP client to it over stdio. */
async function startLikeAHost(userConfig: Record<string, string | boolean>, name: string) {
  const { command, args, env } = manifest.server.mcp_config as { command: string; args: string[]; env: Record<string, string> };
  expect(command).toBe('node');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: args.map((a) => substitute(a, userConfig)),
    env: {
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, substitute(v, userConfig)])),
      // What the test adds: the sandbox instead of api.ynab.com, and private directories.
      PATH: process.env.PATH!,
      HOME: join(dir, name, 'home'),
      YNAB_BASE_URL: sb.baseUrl,
      YNAB_MCP_STATE_DIR: join(dir, name, 'state'),
      YNAB_MCP_CONFIG_DIR: join(dir, name, 'config'),
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new Client({ name: `host-${name}`, version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('npm run pack:mcpb', () => {
  it('makes a bundle of at most 8 MB', () => {
    expect(statSync(bundle).size).toBeLessThanOrEqual(8 * 1024 * 1024);
  });

  it('holds the manifest with icon, homepage and licence, the LICENSE, the built server and production dependencies only', () => {
    expect(manifest.icon).toBe('assets/icon.png');
    expect(readFileSync(join(unpacked, manifest.icon)).subarray(1, 4).toString()).toBe('PNG');
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(unpacked, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(existsSync(join(unpacked, manifest.server.entry_point))).toBe(true);
    for (const gone of ['src', 'test', 'bench', 'scripts', 'tsconfig.json']) expect(existsSync(join(unpacked, gone)), gone).toBe(false);
    const deps = readdirSync(join(unpacked, 'node_modules'));
    for (const dev of ['vitest', 'typescript', 'tsx', 'ynab', 'yaml', '@anthropic-ai', 'playwright-core', 'redis', '@redis'])
      expect(deps, dev).not.toContain(dev);
    const all = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? all(join(d, e.name)) : [join(d, e.name)]));
    expect(all(unpacked).filter((f) => /\.map$|\.d\.[mc]?ts$/.test(f))).toEqual([]);
  });

  it('claims only the platforms it serves, with their keychain binaries', () => {
    expect(manifest.compatibility.platforms).toEqual([...PLATFORMS]);
    for (const platform of KEYCHAIN_PLATFORMS) {
      const files = readdirSync(join(unpacked, 'node_modules', '@napi-rs', `keyring-${platform}`));
      expect(
        files.some((f) => f.endsWith('.node')),
        platform,
      ).toBe(true);
      expect(
        PLATFORMS.some((p) => platform.startsWith(p)),
        platform,
      ).toBe(true);
    }
    for (const p of PLATFORMS)
      expect(
        KEYCHAIN_PLATFORMS.some((k) => k.startsWith(p)),
        p,
      ).toBe(true);
  });
});

describe('started the way a host starts it', () => {
  it('serves the tools with the token from the user settings, and calls them', async () => {
    const { client, stderr } = await startLikeAHost({ access_token: sb.accessToken }, 'full');
    try {
      expect((await client.listTools()).tools).toHaveLength(ALL);
      const res: any = await client.callTool({ name: 'list_accounts', arguments: { limit: 2 } });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res.structuredContent.accounts).toHaveLength(2);
    } finally {
      await client.close();
    }
    expect(stderr()).not.toMatch(/Error|at .*\.js:\d+/);
  });

  it('the demo setting serves the demo budgets with no token', async () => {
    const { client } = await startLikeAHost({ demo: true }, 'demo');
    try {
      const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res.structuredContent.budgets.map((b: any) => b.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
    } finally {
      await client.close();
    }
  });

  it('the read-only setting offers no write tools', async () => {
    const { client } = await startLikeAHost({ access_token: sb.accessToken, read_only: true }, 'read-only');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toHaveLength(READS);
      expect(names.filter((n) => /^(create|update|delete|import)_/.test(n))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("without this platform's keychain binary", () => {
  beforeAll(() => {
    // What a host on a platform the bundle has no binary for sees: the module cannot be loaded.
    for (const e of readdirSync(join(unpacked, 'node_modules', '@napi-rs'))) {
      if (e.startsWith('keyring-')) rmSync(join(unpacked, 'node_modules', '@napi-rs', e), { recursive: true, force: true });
    }
  });

  it('serves with the token setting, keeping the replica key in a 0600 file', async () => {
    const { client, stderr } = await startLikeAHost({ access_token: sb.accessToken }, 'no-keychain');
    try {
      const res: any = await client.callTool({ name: 'list_accounts', arguments: { limit: 1 } });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
    } finally {
      await client.close();
    }
    const key = join(dir, 'no-keychain', 'state', 'replica.key');
    expect(existsSync(key)).toBe(true);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(stderr()).not.toMatch(/Error:|at .*\.js:\d+/);
  });

  it("without a token setting, says once why the keychain is not used, and how to give a token in the host's settings", async () => {
    const { client, stderr } = await startLikeAHost({ access_token: '' }, 'no-keychain-no-token');
    try {
      const res: any = await client.callTool({ name: 'list_accounts', arguments: {} });
      expect(res.isError).toBe(true);
      // The bundle's user has the extension's settings, not a shell: the message names those
      // settings by their titles, and no command or environment variable.
      const text: string = res.content[0].text;
      expect(text).toMatch(/^No YNAB access token: in your host's settings for this extension/);
      expect(text).toContain(`"${manifest.user_config.access_token.title}"`);
      expect(text).toContain(`"${manifest.user_config.demo.title}"`);
      expect(text).not.toMatch(/ynab-mcp login|YNAB_ACCESS_TOKEN|--sandbox/);
      await client.callTool({ name: 'list_payees', arguments: {} });
    } finally {
      await client.close();
    }
    const warnings = stderr()
      .split('\n')
      .filter((l) => /keychain/i.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/No OS keychain was available \(the native keyring module could not be loaded/);
  });
});
