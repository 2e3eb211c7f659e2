/**
 * The README's first-step commands run as written (read from the README itself, on the Node this
 * runs on, 20 included): every MCP Inspector command it shows (the CLI's tools/list and tools/call
 * over stdio, and the web UI), and the stdio setups of the demo budgets for Claude Desktop (its JSON)
 * and for `claude mcp add` (what follows its `--`), each started as the host would and answering a
 * real MCP client with the demo budgets, no token anywhere. `ynab-mcp` is the built dist/cli.js, on
 * PATH as `npm install -g .` puts it there, and stands in for `npx -y ynab-mcp`. The Inspector is installed apart (test/helpers/inspector.ts).
 */
import { spawn, execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { REHEARSAL_ONLY } from '../../src/mcp/tools/toolsets.js';
import { defaultListCounts } from '../helpers/tools-list.js';
import { childEnv, REPO_ROOT } from '../helpers/cli.js';
import { freePort } from '../helpers/free-port.js';
import { skipWithoutInspector } from '../helpers/inspector.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The lines of the README's fenced code blocks. */
const codeLines = [...README.matchAll(/^```\w*\n([\s\S]*?)^```/gm)].flatMap((m) => m[1]!.split('\n'));
/** A shell line without its trailing comment. */
const command = (line: string) => line.replace(/\s+#.*$/, '').trim();
const INSPECTOR_LINES = codeLines.filter((l) => /^npx --prefix test\/inspector mcp-inspector\b/.test(l)).map(command);

let home: string;
let env: Record<string, string | undefined>;
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run "npm run build" before this test');
  home = mkdtempSync(join(tmpdir(), 'ynab-mcp-readme-'));
  // `ynab-mcp` on PATH, as `npm install -g .` links it: the built CLI.
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'ynab-mcp'), `#!/bin/sh\nexec '${process.execPath}' '${join(REPO_ROOT, 'dist', 'cli.js')}' "$@"\n`);
  chmodSync(join(bin, 'ynab-mcp'), 0o755);
  env = {
    PATH: `${bin}${delimiter}${process.env.PATH}`,
    HOME: join(home, 'home'),
    YNAB_ACCESS_TOKEN: undefined,
    YNAB_MCP_SANDBOX: undefined,
    YNAB_MCP_STATE_DIR: join(home, 'state'),
    YNAB_MCP_CONFIG_DIR: join(home, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
    // Were the demo not served, a call would go here and fail.
    YNAB_BASE_URL: 'http://127.0.0.1:9/v1',
  };
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/**
 * `npx -y ynab-mcp ARGS` is the published package, which this clone's build stands in for until
 * it is published (test/install/package.test.ts runs `npx -y ynab-mcp` on the packed tarball).
 */
function asInstalled(cmd: string, args: string[]): [string, string[]] {
  if (cmd === 'npx' && args[0] === '-y' && args[1] === 'ynab-mcp') return ['ynab-mcp', args.slice(2)];
  return [cmd, args];
}

/** Connects a real MCP client to `command args` over stdio, as a host starts it, and lists the demo budgets. */
async function demoBudgetsOf(...given: [string, string[]]): Promise<string[]> {
  const [cmd, args] = asInstalled(...given);
  const clean = Object.fromEntries(Object.entries(childEnv(env)).filter((e): e is [string, string] => e[1] !== undefined));
  const client = new Client({ name: 'host', version: '1.0.0' });
  try {
    await client.connect(new StdioClientTransport({ command: cmd, args, env: clean, stderr: 'pipe' }));
    const res: any = await client.callTool({ name: 'list_budgets', arguments: {} });
    expect(res.isError, res.content?.[0]?.text).toBeFalsy();
    return res.structuredContent.budgets.map((b: any) => b.name);
  } finally {
    await client.close();
  }
}

describe('the demo budgets over stdio, as the README sets them up', () => {
  it("Claude Desktop's JSON", async () => {
    const block = [...README.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((m) => m[1]!).find((b) => b.includes('--sandbox'));
    expect(block, 'a JSON block with serve --sandbox').toBeDefined();
    const servers = Object.values(JSON.parse(block!).mcpServers) as { command: string; args: string[]; env?: Record<string, string> }[];
    expect(servers).toHaveLength(1);
    expect(servers[0]!.env ?? {}).toEqual({});
    expect(await demoBudgetsOf(servers[0]!.command, servers[0]!.args)).toEqual(['Demo Household', 'Haushalt Berlin']);
  }, 60_000);

  it('claude mcp add', async () => {
    const line = [...README.matchAll(/`claude mcp add (?!--transport)[^`]*--sandbox[^`]*`/g)].map((m) => m[0].slice(1, -1));
    expect(line).toHaveLength(1);
    const [cmd, ...args] = line[0]!.split(' -- ')[1]!.split(' ');
    expect(await demoBudgetsOf(cmd!, args)).toEqual(['Demo Household', 'Haushalt Berlin']);
  }, 60_000);
});

describe("the README's install section", () => {
  const section = README.slice(README.indexOf('## Install in hosts'), README.indexOf('\n## ', README.indexOf('## Install in hosts') + 1));
  /** The paragraph that begins with a bold title, up to the next one. */
  const paragraph = (title: string) => {
    const start = section.indexOf(`**${title}`);
    expect(start, title).toBeGreaterThanOrEqual(0);
    return section.slice(start, section.indexOf('\n**', start + 1));
  };

  it('leads with the one-line npx -y ynab-mcp configuration and the MCPB bundle, then a clone', () => {
    const first = /^```json\n([\s\S]*?)^```/m.exec(section)![1]!;
    expect(Object.values(JSON.parse(first).mcpServers)).toEqual([{ command: 'npx', args: ['-y', 'ynab-mcp'], env: { YNAB_ACCESS_TOKEN: '…' } }]);
    const order = ['**Desktop hosts', '**MCPB bundle**', '**Agents.**', '### From a clone'].map((t) => section.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('says which lines need the first release to be published', () => {
    for (const title of ['Desktop hosts', 'MCPB bundle**']) expect(paragraph(title), title).toMatch(/first release.*not published yet/s);
    expect(section.slice(section.indexOf('### From a clone'))).toMatch(/^Until the first release is published\./m);
  });
});

/** Runs a README line with the shell, from the clone's root. */
function sh(line: string, extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', line],
      { cwd: REPO_ROOT, env: childEnv({ ...env, ...extra }), timeout: 120_000, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const skip = skipWithoutInspector();

describe.skipIf(skip)("the README's MCP Inspector commands, as written", () => {
  it('are there: its install, the CLI listing and calling tools over stdio, and the web UI', () => {
    expect(codeLines.map(command)).toContain('npm ci --prefix test/inspector');
    expect(existsSync(join(REPO_ROOT, 'test', 'inspector', 'package-lock.json'))).toBe(true);
    expect(INSPECTOR_LINES.some((l) => l.includes('--method tools/list'))).toBe(true);
    expect(INSPECTOR_LINES.some((l) => l.includes('--method tools/call'))).toBe(true);
    expect(INSPECTOR_LINES.some((l) => !l.includes('--cli'))).toBe(true);
  });

  it.each(INSPECTOR_LINES.filter((l) => l.includes('--cli')))(
    '%s',
    async (line) => {
      const r = await sh(line);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      if (line.includes('tools/list'))
        expect(out.tools).toHaveLength(
          line.includes('--toolsets all') ? TOOL_DEFINITIONS.filter((t) => !REHEARSAL_ONLY.has(t.name)).length : (await defaultListCounts()).all,
        );
      else {
        expect(out.isError, r.stdout).toBeFalsy();
        expect(out.structuredContent).toBeTypeOf('object');
      }
    },
    150_000,
  );

  it.each(INSPECTOR_LINES.filter((l) => !l.includes('--cli')))(
    '%s (starts and says where it is)',
    async (line) => {
      // Its ports are fixed by default (6274, 6275): free ones here, for machines running several tests.
      const ports = { CLIENT_PORT: String(await freePort()), MCP_SANDBOX_PORT: String(await freePort()), MCP_AUTO_OPEN_ENABLED: 'false' };
      const child = spawn('sh', ['-c', line], { cwd: REPO_ROOT, env: childEnv({ ...env, ...ports }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      for (const s of [child.stdout, child.stderr]) s.setEncoding('utf8').on('data', (c: string) => (out += c));
      try {
        await new Promise<void>((resolve, reject) => {
          const check = () => /is up and running at/.test(out) && resolve();
          child.stdout.on('data', check);
          child.stderr.on('data', check);
          child.on('close', (code) => reject(new Error(`exited ${code} before it was up: ${out}`)));
        });
      } finally {
        if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
      }
      expect(out).toContain(`http://127.0.0.1:${ports.CLIENT_PORT}`);
    },
    120_000,
  );
});
