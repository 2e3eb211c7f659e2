/**
 * The npm package as a user gets it: `npm pack` ships the built server, README and LICENSE and no
 * sources, tests, source maps or build scripts; installed from the tarball into a temporary prefix
 * without dev dependencies (as `npm install -g ./ynab-mcp-X.tgz` does; offline from the npm cache
 * when it has everything), its `ynab-mcp` serves over stdio to a real MCP client; and the README's
 * `npx --package ./ynab-mcp-X.tgz ynab-mcp` runs it too. Packs the current dist/ (the build step
 * comes first, as in CI).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { defaultListCounts } from '../helpers/tools-list.js';

/** Every tool: what a server with the default options lists. */
/** What the default toolsets offer (src/mcp/tools/toolsets.ts). */
// The default list: its few tools and call_api (test/helpers/tools-list.ts).
const { all: ALL } = await defaultListCounts();

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

let dir: string;
let tarball: string;
let files: string[];

/** npm without this test runner's environment tweaks; quiet. */
function npmEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_OPTIONS: '', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
}

beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-pack-'));
  // --ignore-scripts: pack the dist/ built before the tests (the prepack/prepare rebuild would
  // replace it under the feet of other test files).
  const { stdout } = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: REPO_ROOT, env: npmEnv() });
  const [info] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  tarball = join(dir, info.filename);
  files = info.files.map((f) => f.path);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm pack', () => {
  it('ships the built server, README, LICENSE and package.json, and nothing for building or testing', () => {
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/cli.js', 'dist/mcp/server.js']));
    const unwanted = files.filter((f) => /\.map$|\.ts$|^(src|test|bench|scripts|assets)\/|^tsconfig|^vitest|^manifest\.json$|^\.mcpbignore$|^\.ci\//.test(f));
    expect(unwanted).toEqual([]);
    expect(files.every((f) => f.startsWith('dist/') || ['LICENSE', 'README.md', 'package.json'].includes(f))).toBe(true);
  });
});

describe('installed from the tarball without dev dependencies', () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = join(dir, 'prefix');
    await run(npm, ['install', '--global', '--prefix', prefix, '--omit=dev', '--prefer-offline', tarball], { cwd: dir, env: npmEnv(), timeout: 300_000 });
  }, 320_000);

  const bin = () => join(prefix, process.platform === 'win32' ? 'ynab-mcp.cmd' : join('bin', 'ynab-mcp'));
  const installed = () => join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'ynab-mcp');

  it('has its dependencies and none of the dev dependencies', () => {
    const deps = readdirSync(join(installed(), 'node_modules'));
    expect(deps).toEqual(expect.arrayContaining(['@modelcontextprotocol', 'zod', 'undici']));
    for (const dev of ['vitest', 'typescript', 'tsx', 'ynab', '@anthropic-ai']) expect(deps, dev).not.toContain(dev);
  });

  it('the installed bin prints its version and serves tools/list to a real MCP client over stdio', async () => {
    expect((await run(bin(), ['--version'], { env: npmEnv() })).stdout).toMatch(/^ynab-mcp \d+\.\d+\.\d+\n$/);
    const transport = new StdioClientTransport({
      command: bin(),
      args: ['serve', '--sandbox'],
      env: { PATH: process.env.PATH!, HOME: dir, YNAB_MCP_STATE_DIR: join(dir, 'state'), YNAB_MCP_CONFIG_DIR: join(dir, 'config') },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'install-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools;
      expect(tools).toHaveLength(ALL);
      const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res.structuredContent.budgets.map((b: any) => b.name)).toEqual(['Demo Household', 'Haushalt Berlin']);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('npx --package ./ynab-mcp-X.tgz ynab-mcp runs it, as the README says', async () => {
    const { stdout } = await run(npx, ['--yes', '--prefer-offline', '--package', tarball, 'ynab-mcp', '--version'], {
      cwd: dir,
      env: npmEnv(),
      timeout: 300_000,
    });
    expect(stdout.trim().split('\n').at(-1)).toMatch(/^ynab-mcp \d+\.\d+\.\d+$/);
  }, 320_000);
});
