/**
 * The npm package as a user gets it. `npm pack` ships exactly what runs: the bundled server
 * (dist/cli.js and dist/bundle/), the tool schemas and views it reads beside it, the MCPB manifest,
 * README, LICENSE and package.json; no sources, tests, benchmarks, fixtures, scripts, source maps or
 * the per-module build the bundle replaced. `npm publish --dry-run` warns of nothing. Installed
 * from the tarball into an empty prefix (offline from the npm cache when it has everything) it
 * prints no warning and runs nothing of its own, and `npx -y ynab-mcp` there runs it the way a
 * host's configuration does: --help, `serve --sandbox` answering a real MCP client over stdio, and
 * `serve` with no token saying how to sign in. Packs the current dist/ (the build comes first, as
 * in CI).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { defaultListCounts } from '../helpers/tools-list.js';

// The default list: its few tools and call_api (test/helpers/tools-list.ts).
const { all: ALL } = await defaultListCounts();

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** Every file the tarball may hold; each pattern must match at least one. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^manifest\.json$/,
  /^dist\/cli\.js$/,
  /^dist\/bundle\/[\w-]+\.js$/,
  /^dist\/mcp\/tool-schemas\.json$/,
  /^dist\/views\/[a-z-]+\.html$/,
];

let dir: string;
let tarball: string;
let packed: { files: { path: string; size: number }[]; size: number; unpackedSize: number };

/** npm without this test runner's environment tweaks; quiet. */
function npmEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_OPTIONS: '', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}
/** The warning lines of npm's, node's or the server's output (not a file name holding the word). */
const warnings = (text: string) => text.split('\n').filter((l) => /^npm warn\b|\w*Warning:|^ynab-mcp: warning/i.test(l));

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-pack-'));
  // --ignore-scripts: pack the dist/ built before the tests (prepack's build would replace it under
  // the feet of other test files).
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: REPO_ROOT, env: npmEnv() });
  const [info] = JSON.parse(stdout) as [typeof packed & { filename: string }];
  tarball = join(dir, info.filename);
  packed = info;
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack', () => {
  it('holds exactly what runs: the bundled server, its schemas and views, the manifest, README, LICENSE', () => {
    const files = packed.files.map((f) => f.path).sort();
    // The list, printed: what a user downloads.
    console.log(`tarball: ${files.length} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked\n${files.join('\n')}`);
    expect(files.filter((f) => !ALLOWED.some((p) => p.test(f)))).toEqual([]);
    for (const p of ALLOWED)
      expect(
        files.some((f) => p.test(f)),
        String(p),
      ).toBe(true);
    expect(files.filter((f) => /^dist\/views\//.test(f))).toHaveLength(readdirSync(join(REPO_ROOT, 'dist', 'views')).length);
  });

  it('runs nothing when installed: no install or prepare script; the build runs at prepack', () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts[hook], hook).toBeUndefined();
    expect(scripts.prepack).toBe('npm run build');
  });

  it('npm publish --dry-run prints no warning', async () => {
    // A placeholder token: without any, npm warns that publishing needs a login, which depends on
    // who runs it, not on the package (a dry run sends nothing). --ignore-scripts as above.
    const { stdout, stderr } = await run(npm, ['publish', '--dry-run', '--ignore-scripts', '--//registry.npmjs.org/:_authToken=dry-run-placeholder'], {
      cwd: REPO_ROOT,
      env: npmEnv(),
      timeout: 120_000,
    });
    expect(warnings(stdout + stderr)).toEqual([]);
    expect(stdout + stderr).toMatch(/ynab-mcp@\d+\.\d+\.\d+/);
  }, 130_000);
});

describe('installed into an empty prefix, and run with npx -y as a host does', () => {
  let prefix: string;
  let install: { stdout: string; stderr: string };
  beforeAll(async () => {
    prefix = join(dir, 'prefix');
    mkdirSync(prefix);
    install = await run(npm, ['install', '--prefix', prefix, '--prefer-offline', tarball], { cwd: dir, env: npmEnv(), timeout: 300_000 });
  }, 320_000);

  /** A host's environment: PATH and a home of its own, nothing of this machine's sign-in. */
  const hostEnv = (name: string): Record<string, string> => ({
    PATH: process.env.PATH!,
    HOME: join(dir, name, 'home'),
    YNAB_MCP_STATE_DIR: join(dir, name, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, name, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
  });
  /** `npx -y ynab-mcp ARGS` over stdio, as the host's config runs it, with a real MCP client. */
  async function connect(args: string[], name: string, capabilities: Record<string, unknown> = {}) {
    const transport = new StdioClientTransport({ command: npx, args: ['-y', 'ynab-mcp', ...args], cwd: prefix, env: hostEnv(name), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const client = new Client({ name: 'install-test', version: '1.0.0' }, { capabilities } as never);
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }

  it('prints no warning, and installs the dependencies and none of the dev dependencies', () => {
    expect(warnings(install.stdout + install.stderr)).toEqual([]);
    const deps = readdirSync(join(prefix, 'node_modules'));
    expect(deps).toEqual(expect.arrayContaining(['ynab-mcp', '@modelcontextprotocol', 'zod', 'undici']));
    for (const dev of ['vitest', 'typescript', 'tsx', 'ynab', '@anthropic-ai', 'ajv']) expect(deps, dev).not.toContain(dev);
  });

  it('npx -y ynab-mcp --help lists the commands; --version gives the version', async () => {
    const help = await run(npx, ['-y', 'ynab-mcp', '--help'], { cwd: prefix, env: { ...npmEnv(), ...hostEnv('help') } });
    expect(help.stdout).toMatch(/^Usage: ynab-mcp <command>/);
    expect(help.stdout).toMatch(/^ {2}serve /m);
    expect(warnings(help.stderr)).toEqual([]);
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await run(npx, ['-y', 'ynab-mcp', '--version'], { cwd: prefix, env: npmEnv() })).stdout).toBe(`ynab-mcp ${version}\n`);
  }, 60_000);

  it('npx -y ynab-mcp serve --sandbox answers tools/list and a call over stdio', async () => {
    const { client, stderr } = await connect(['serve', '--sandbox'], 'sandbox');
    try {
      expect((await client.listTools()).tools).toHaveLength(ALL);
      const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res.structuredContent.budgets.map((b: any) => b.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
    } finally {
      await client.close();
    }
    expect(warnings(stderr())).toEqual([]);
  }, 120_000);

  it('npx -y ynab-mcp serve --sandbox serves every view from the package to a host that shows them', async () => {
    const ui = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
    const { client, stderr } = await connect(['serve', '--sandbox'], 'views', ui);
    try {
      const views = (await client.listResources()).resources.filter((r) => r.uri.startsWith('ui://'));
      expect(views).toHaveLength(readdirSync(join(REPO_ROOT, 'dist', 'views')).length);
      for (const v of views) {
        const read: any = await client.readResource({ uri: v.uri });
        expect(read.contents[0].text, v.uri).toMatch(/^<!doctype html>/i);
      }
    } finally {
      await client.close();
    }
    expect(warnings(stderr())).toEqual([]);
  }, 120_000);

  it('npx -y ynab-mcp serve with no token says, at the first call, how to sign in: with npx, as no ynab-mcp is on the PATH', async () => {
    const { client } = await connect(['serve'], 'no-token');
    try {
      const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/^No YNAB access token: run "npx -y ynab-mcp login".*set YNAB_ACCESS_TOKEN.*--sandbox/);
    } finally {
      await client.close();
    }
  }, 120_000);
});
