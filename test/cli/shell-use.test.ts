/**
 * The command line as people use it from a shell, through the real CLI (child processes): a
 * preview made by one `call --sandbox` confirmed by the next (the sandbox is kept between calls),
 * one demo seed for `sandbox`, `serve --sandbox` and `sandbox statement`, `--budget` by id or
 * name, every `--help` on stdout with exit 0, the line a bare `ynab-mcp` prints on a terminal
 * (a real pseudo-terminal, from util-linux's `script`), and each warning printed once with one prefix.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { childEnv, killAllCli, REPO_ROOT, runCli, startCli } from '../helpers/cli.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-shell-'));
});
afterEach(() => killAllCli());
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A user of their own (state and config directories under `dir`), no token, no keychain. */
function env(dir: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    YNAB_ACCESS_TOKEN: undefined,
    YNAB_BUDGET_ID: undefined,
    YNAB_READ_ONLY: undefined,
    YNAB_MCP_TOOLSETS: undefined,
    YNAB_MCP_WRITES: undefined,
    YNAB_BASE_URL: undefined,
    YNAB_MCP_STATE_DIR: join(dir, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
    ...extra,
  };
}

/** `ynab-mcp call --sandbox TOOL ARGS` as a user of `dir`; the parsed result (exit 0 expected). */
async function call(dir: string, tool: string, args: object, flags: string[] = []): Promise<any> {
  const r = await runCli(['call', '--sandbox', ...flags, tool, JSON.stringify(args)], { env: env(dir) }, 60_000);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('call --sandbox keeps its sandbox between calls', () => {
  it("a preview's confirm_token is redeemed by the next call, and --fresh starts again", async () => {
    const dir = join(root, 'keep');
    const [t] = (await call(dir, 'list_transactions', { limit: 1 })).transactions;
    const preview = await call(dir, 'delete_transaction', { transaction_id: t.id });
    expect(preview.preview).toBe(true);
    expect(preview.confirm_token).toEqual(expect.any(String));

    const done = await call(dir, 'delete_transaction', { transaction_id: t.id, confirm_token: preview.confirm_token });
    expect(done.preview).toBeUndefined();
    expect(done.transaction).toMatchObject({ id: t.id, deleted: true });
    // The next call sees the change: the sandbox's data was kept.
    const gone = await runCli(['call', '--sandbox', 'get_transaction', JSON.stringify({ transaction_id: t.id })], { env: env(dir) }, 60_000);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/Not found/);
    expect(existsSync(join(dir, 'state', 'sandbox', 'demo', 'data.json'))).toBe(true);

    const again = await call(dir, 'get_transaction', { transaction_id: t.id }, ['--fresh']);
    expect(again.transaction).toMatchObject({ id: t.id, amount: t.amount });
  }, 300_000); // five processes, one after the other

  it('two calls at once take turns on one kept sandbox', async () => {
    const dir = join(root, 'turns');
    const [a, b] = await Promise.all([call(dir, 'list_budgets', {}), call(dir, 'list_budgets', {})]);
    expect(a.budgets.map((x: { id: string }) => x.id)).toEqual(b.budgets.map((x: { id: string }) => x.id));
    expect(existsSync(join(dir, 'state', 'sandbox', 'demo.lock'))).toBe(false);
  });

  it('a state directory that cannot hold it is named, with what is wrong', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    const r = await runCli(['call', '--sandbox', 'list_budgets'], { env: { ...env(root), YNAB_MCP_STATE_DIR: file } });
    expect([r.code, r.stderr]).toEqual([
      1,
      `ynab-mcp: the sandbox cannot be kept in the state directory ${file}: ${file}: a file stands where a directory belongs\n`,
    ]);
  });

  it('--fresh without --sandbox is a usage error', async () => {
    const r = await runCli(['call', 'list_budgets', '--fresh'], { env: env(join(root, 'fresh')) });
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/--fresh only applies with --sandbox/)]);
  });
});

interface Budget {
  id: string;
  name: string;
}

describe('one demo seed and --budget by id or name', () => {
  let budgets: Budget[];
  /** The ids of the transactions `ynab-mcp sandbox` serves in "Demo Household". */
  let household: Set<string>;
  beforeAll(async () => {
    // Read at once: every test's afterEach ends the process.
    const p = startCli(['sandbox', '--port', '0'], { env: env(join(root, 'seed')) });
    const sandbox = JSON.parse((await p.waitFor('stdout', /^([^\n]*)\n/))[1]!) as { base_url: string; access_token: string };
    const api = async (path: string) =>
      ((await (await fetch(`${sandbox.base_url}${path}`, { headers: { Authorization: `Bearer ${sandbox.access_token}` } })).json()) as any).data;
    budgets = (await api('/budgets')).budgets.map((b: Budget) => ({ id: b.id, name: b.name }));
    const id = budgets.find((b) => b.name === 'Demo Household')!.id;
    household = new Set((await api(`/budgets/${id}/transactions`)).transactions.map((t: { id: string }) => t.id));
    await p.stop();
  });

  it('`sandbox` and `serve --sandbox` serve the same budgets', async () => {
    const { client, transport } = await cliMcp(['serve', '--sandbox'], childEnv(env(join(root, 'serve'))));
    try {
      const result = await client.callTool({ name: 'list_budgets', arguments: {} });
      const served = (result.structuredContent as { budgets: Budget[] }).budgets.map((b) => ({ id: b.id, name: b.name }));
      expect(served).toEqual(budgets);
    } finally {
      await client.close();
      await transport.close();
    }
  });

  it('`sandbox statement` writes a statement of the budgets `sandbox` serves', async () => {
    const report = join(root, 'statement.json');
    const r = await runCli(['sandbox', 'statement', '--account', 'Everyday Checking', '--format', 'csv', '--out', join(root, 's.csv'), '--report', report]);
    expect(r.code, r.stderr).toBe(0);
    const { discrepancies } = JSON.parse(readFileSync(report, 'utf8'));
    // The rows it differs on are transactions of the served budget.
    expect(household.size).toBeGreaterThan(100);
    expect(household).toContain(discrepancies.differing.transaction_id);
    expect(household).toContain(discrepancies.missing.transaction_id);
  });

  it('`sandbox statement --budget` takes the id or the name', async () => {
    const berlin = budgets.find((b) => b.name === 'Haushalt Berlin')!;
    for (const value of [berlin.id, 'haushalt berlin']) {
      const report = join(root, 'berlin.json');
      const r = await runCli([
        'sandbox',
        'statement',
        '--budget',
        value,
        '--account',
        'Girokonto',
        '--format',
        'camt053',
        '--out',
        join(root, 'b.xml'),
        '--report',
        report,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(report, 'utf8')).budget).toBe('Haushalt Berlin');
    }
    const bad = await runCli(['sandbox', 'statement', '--budget', 'Nope', '--account', 'Girokonto', '--format', 'csv']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining(`"Haushalt Berlin" (${berlin.id})`)]);
  });
});

describe('--help', () => {
  it.each([[[]], [['serve']], [['tools']], [['call']], [['sandbox']], [['sandbox', 'statement']], [['login']], [['logout']], [['status']]])(
    '%j --help prints the usage on stdout and exits 0',
    async (command) => {
      const r = await runCli([...command, '--help'], { env: env(join(root, 'help')) });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: ynab-mcp /);
      expect(r.stderr).toBe('');
    },
  );
});

/** util-linux's `script`, which runs a command on a pseudo-terminal of its own. */
const hasScript = process.platform === 'linux' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

describe('a bare ynab-mcp', () => {
  const WAITING = /waiting for an MCP host on stdin .*`ynab-mcp --help`/;

  it.skipIf(!hasScript)('on a terminal says, in one line, what it waits for', async () => {
    // stdin, stdout and stderr of the server are the terminal; `script` copies what it shows to its stdout.
    const child = spawn('script', ['-qec', `'${process.execPath}' --import tsx src/cli.ts`, '/dev/null'], {
      cwd: REPO_ROOT,
      // A token, so the only line is the waiting one (without one a hint comes first: test/cli/first-run.test.ts).
      env: childEnv(env(join(root, 'tty'), { YNAB_ACCESS_TOKEN: 'not-a-real-token' })),
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let shown = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line within 30 s; the terminal showed: ${shown}`)), 30_000);
        child.stdout.on('data', () => {
          if (WAITING.test(shown)) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('close', () => {
          clearTimeout(timer);
          if (WAITING.test(shown)) resolve();
          else reject(new Error(`script exited; the terminal showed: ${shown}`));
        });
      });
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
    expect(shown.match(new RegExp(WAITING, 'g'))).toHaveLength(1);
    expect(shown.trim().split(/\r?\n/)).toHaveLength(1);
  });

  it('with stdin from a host (not a terminal) prints nothing', async () => {
    const r = await runCli([], { env: env(join(root, 'pipe')) });
    expect(r.code).toBe(0);
    expect([r.stdout, r.stderr]).toEqual(['', '']);
  });
});

describe('each warning once, with one prefix', () => {
  it('logout tightening an open config directory says so once, as "ynab-mcp: …"', async () => {
    const dir = join(root, 'open');
    const config = join(dir, 'config');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'secrets.json'), JSON.stringify({ version: 1, profiles: { default: { access_token: 'not-a-real-token' } } }), { mode: 0o600 });
    chmodSync(config, 0o755);
    const r = await runCli(['logout'], { env: env(dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/ynab-mcp: (warning: )?ynab-mcp:/);
    expect(r.stderr.match(/was open to other users/g)).toHaveLength(1);
  });

  it.skipIf(process.platform !== 'linux')('login without a keychain gives the reason once; status shows it once', async () => {
    const dir = join(root, 'nokeychain');
    const sb = startCli(['sandbox', '--port', '0'], { env: env(dir) });
    const { base_url, access_token } = JSON.parse((await sb.waitFor('stdout', /^([^\n]*)\n/))[1]!);
    const noKeychain = env(dir, {
      YNAB_MCP_KEYCHAIN: undefined,
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/ynab-mcp-test-bus',
      YNAB_BASE_URL: base_url,
    });
    const login = await runCli(['login', '--token-stdin'], { env: noKeychain, stdin: `${access_token}\n` });
    expect(login.code, login.stderr).toBe(0);
    const reason = /No OS keychain was available \((.+?)\)\. Secrets/.exec(login.stderr)?.[1];
    expect(reason, login.stderr).toBeDefined();
    expect(login.stderr.split(reason!)).toHaveLength(2);
    expect(login.stderr).toMatch(/Stored in the file .*secrets\.json/);

    const status = await runCli(['status'], { env: noKeychain });
    expect(status.code, status.stderr).toBe(0);
    expect(`${status.stdout}${status.stderr}`.split(reason!)).toHaveLength(2);
  });
});
