/**
 * The state directory as a real server and the real CLI meet it (issue 24, item 5), through the
 * real MCP client over stdio against the sandbox:
 *  - a replica key that cannot be read (a directory in its place; tests run as root, for whom
 *    permissions never make a file unreadable): no "Internal error", no stack trace; reads are
 *    answered from YNAB, held in memory, and the first answer that meets it (loading a saved
 *    copy, or the answer after a save) says why no saved copy is used, naming the key file;
 *    ynab://status and `ynab-mcp status` name it too; a write still works and says it could not
 *    be recorded for undo; stderr says it in one line;
 *  - a replica file that is a link is ignored (never followed, never counted as a saved copy)
 *    with one line on stderr per file, however often it is met: by `ynab-mcp status`, and by a
 *    running server that finds one planted where it saves a copy.
 */
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tokenKey } from '../../src/quota/ledger.js';
import { readAnswerText } from '../helpers/answer-text.js';
import { cliMcp } from '../helpers/cli-mcp.js';
import { killAllCli, runCli } from '../helpers/cli.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const VICTIM_TEXT = 'the victim file: nothing of ynab-mcp may ever land here\n';

let sb: TestSandbox;
let root: string;
let budget: string;
beforeAll(async () => {
  sb = await testSandbox({ seed: 'state-dir-cli', rateLimit: 100_000 });
  budget = sb.state.budgets[0]!.id;
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-statedir-cli-'));
});
afterEach(() => killAllCli());
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function dirs() {
  n += 1;
  const state = join(root, `state-${n}`);
  return { state, config: join(root, `config-${n}`), victim: join(root, `victim-${n}.txt`) };
}

function env(d: { state: string; config: string }): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    YNAB_ACCESS_TOKEN: sb.accessToken,
    YNAB_BASE_URL: sb.baseUrl,
    YNAB_MCP_STATE_DIR: d.state,
    YNAB_MCP_CONFIG_DIR: d.config,
    YNAB_MCP_KEYCHAIN: 'off',
  };
}

const replicaFile = (state: string, id = budget) => join(state, 'replicas', tokenKey(sb.accessToken), `${id}.replica`);
const accounts = async () => (await sb.get(`/plans/${budget}/accounts`)).body.data.accounts.map((a: any) => a.id).sort();
const linesWith = (text: string, what: string) => text.split('\n').filter((l) => l.includes(what));

/** One server run: what `use` does with its client, then the run's stderr once it has exited. */
async function serve<T>(
  d: { state: string; config: string },
  args: string[],
  use: (call: (name: string, a?: Record<string, unknown>) => Promise<any>, client: any) => Promise<T>,
): Promise<{ result: T; stderr: string }> {
  const { client, transport } = await cliMcp(['serve', ...args], env(d));
  let result: T;
  try {
    result = await use((name, a = {}) => client.callTool({ name, arguments: { budget_id: budget, ...a } }), client);
  } finally {
    await client.close();
    await transport.close();
  }
  // After the exit: what the server said while stopping (its last saves) is in.
  return { result, stderr: transport.stderr };
}

async function saveOne(d: { state: string; config: string }): Promise<void> {
  await serve(d, [], async (call) => expect((await call('list_accounts')).isError).toBeFalsy());
  expect(existsSync(replicaFile(d.state))).toBe(true);
}

describe('a replica key that cannot be read', () => {
  it('answers from YNAB in memory with a notice naming the key file; no internal error, no stack trace; status names it', async () => {
    const d = dirs();
    await saveOne(d);
    const key = join(d.state, 'replica.key');
    rmSync(key);
    mkdirSync(key); // a directory where the key file belongs: it cannot be read, even by root
    const why = `the replica key file ${key} cannot be read (a directory stands where a file belongs)`;

    const { result, stderr } = await serve(d, [], async (call, client) => {
      const first = await call('list_accounts');
      const again = await call('list_accounts');
      const account = first.structuredContent?.accounts?.find((a: any) => a.on_budget && !a.closed)?.id;
      const write = await call('create_transactions', {
        transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -1.5, memo: 'with no key' }],
      });
      const status = readAnswerText(((await client.readResource({ uri: 'ynab://status' })).contents[0] as { text: string }).text).inner;
      return { first, again, write, status };
    });

    const { first, again, write, status } = result;
    expect(first.isError, first.content?.[0]?.text).toBeFalsy();
    expect(first.structuredContent.accounts.map((a: any) => a.id).sort()).toEqual(await accounts());
    expect(first.structuredContent.notices.join(' ')).toContain(`No saved copy of this budget can be used or kept: ${why}`);
    expect(first.structuredContent.notices.join(' ')).toMatch(/Answers come from YNAB; the copy is held in memory only\./);
    // Said with the first answer, not with every one.
    expect(again.isError).toBeFalsy();
    expect(JSON.stringify(again.structuredContent.notices ?? [])).not.toContain(key);
    // A write goes through; only its undo record cannot be kept, and it says so.
    expect(write.isError, write.content?.[0]?.text).toBeFalsy();
    expect(write.structuredContent.notices.join(' ')).toContain(`The change was made, but it could not be recorded for undo (${why}`);
    expect(status.saved_copy_problems).toEqual([expect.stringContaining(why)]);

    for (const text of [stderr, JSON.stringify(result)]) {
      expect(text).not.toMatch(/Internal error/);
      expect(text).not.toMatch(/^\s+at /m);
    }
    // One line on stderr for the whole run (not one per read or save).
    expect(linesWith(stderr, key)).toEqual([
      `ynab-mcp: ${why}. Fix or remove it (a new key is then made), or set YNAB_MCP_STATE_DIR to a directory of your own.`,
    ]);
    expect(statSync(key).isDirectory()).toBe(true); // not something ynab-mcp removes on its own

    const status2 = await runCli(['status', '--json'], { env: env(d) });
    expect(status2.code, status2.stderr).toBe(0);
    expect(JSON.parse(status2.stdout).replica_key).toEqual({
      location: key,
      problem: expect.stringMatching(/^it cannot be read \(a directory stands where a file belongs\)/),
    });
    const human = await runCli(['status'], { env: env(d) });
    expect(human.stdout).toContain(`Key:       the replica key file ${key}: it cannot be read (a directory stands where a file belongs)`);
  }, 90_000);

  it('before anything was saved: the first save meets it, and the next answer says so, once', async () => {
    const d = dirs();
    const key = join(d.state, 'replica.key');
    mkdirSync(key, { recursive: true });
    const { result, stderr } = await serve(d, ['--max-staleness', '0'], async (call) => {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call('list_accounts'));
      return answers;
    });
    for (const r of result) expect(r.isError, r.content?.[0]?.text).toBeFalsy();
    // The key is asked for only to save (as the first answer goes out): a later answer tells, once.
    const told = result.map((r) => (r.structuredContent.notices ?? []).filter((x: string) => x.includes(key)).length);
    expect(told[0]).toBe(0);
    expect(told.reduce((a, b) => a + b)).toBe(1);
    expect(linesWith(stderr, key)).toHaveLength(1);
    expect(stderr).not.toMatch(/Internal error|^\s+at /m);
    expect(existsSync(replicaFile(d.state))).toBe(false);
  }, 90_000);

  it('once the key file is fixed (removed), a new key is made and copies are saved again', async () => {
    const d = dirs();
    await saveOne(d);
    const key = join(d.state, 'replica.key');
    rmSync(key);
    mkdirSync(key);
    await serve(d, [], async (call) => expect((await call('list_accounts')).isError).toBeFalsy());
    rmSync(key, { recursive: true });
    const { result } = await serve(d, [], async (call) => call('list_accounts'));
    expect(result.isError).toBeFalsy();
    expect(Buffer.from(readFileSync(key, 'utf8'), 'base64')).toHaveLength(32);
    expect(lstatSync(replicaFile(d.state)).isFile()).toBe(true);
    const status = await runCli(['status', '--json'], { env: env(d) });
    expect(JSON.parse(status.stdout).replica_key.problem).toBeNull();
  }, 90_000);
});

describe('a replica file that is a link', () => {
  it('`ynab-mcp status` does not count it as a saved copy, and says so in one line', async () => {
    const d = dirs();
    await saveOne(d);
    // A link to a real saved copy (a copy of ours, elsewhere): it still is no copy of this directory.
    const elsewhere = join(root, `elsewhere-${n}.replica`);
    copyFileSync(replicaFile(d.state), elsewhere);
    const link = replicaFile(d.state, '00000000-0000-4000-8000-000000000000');
    symlinkSync(elsewhere, link);
    const res = await runCli(['status', '--json'], { env: env(d) });
    expect(res.code, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report.replicas.budgets).toBe(1);
    expect(report.replicas.files.map((f: any) => f.budget_id)).toEqual([budget]);
    const dir = join(d.state, 'replicas', tokenKey(sb.accessToken));
    const regular = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile());
    expect(report.replicas.bytes).toBe(regular.reduce((sum, e) => sum + statSync(join(dir, e.name)).size, 0));
    expect(linesWith(res.stderr, link)).toEqual([`ynab-mcp: ignoring ${link}: it is a symbolic link, never followed; it is not a saved copy`]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true); // status changes nothing
  }, 60_000);

  it('a running server that meets one where it reads or saves a copy: never followed, one line per file however often', async () => {
    const d = dirs();
    await saveOne(d);
    writeFileSync(d.victim, VICTIM_TEXT);
    const file = replicaFile(d.state);
    const { stderr } = await serve(d, ['--max-staleness', '0'], async (call) => {
      // Planted before the first read: the read meets it.
      rmSync(file);
      symlinkSync(d.victim, file);
      expect((await call('list_accounts')).isError).toBeFalsy();
      await waitFor(() => lstatSync(file).isFile());
      // Planted again while the server runs (its copy is in memory): every read syncs and saves over it.
      for (let i = 0; i < 3; i++) {
        rmSync(file);
        symlinkSync(d.victim, file);
        expect((await call('list_accounts')).isError).toBeFalsy();
        await waitFor(() => lstatSync(file).isFile());
      }
    });
    expect(readFileSync(d.victim, 'utf8')).toBe(VICTIM_TEXT);
    expect(linesWith(stderr, file)).toHaveLength(1);
    expect(linesWith(stderr, file)[0]).toMatch(
      new RegExp(`^ynab-mcp: ignoring ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: it is a symbolic link, never followed; `),
    );
    expect(stderr).not.toMatch(/Internal error|^\s+at /m);
  }, 90_000);

  it('a server that saves over a link it has not read (its copy in memory): one line, the target untouched', async () => {
    const d = dirs();
    await saveOne(d);
    writeFileSync(d.victim, VICTIM_TEXT);
    const file = replicaFile(d.state);
    const { stderr } = await serve(d, ['--max-staleness', '0'], async (call) => {
      expect((await call('list_accounts')).isError).toBeFalsy();
      rmSync(file);
      symlinkSync(d.victim, file);
      expect((await call('list_accounts')).isError).toBeFalsy();
      await waitFor(() => lstatSync(file).isFile());
    });
    expect(readFileSync(d.victim, 'utf8')).toBe(VICTIM_TEXT);
    expect(linesWith(stderr, file)).toEqual([
      `ynab-mcp: ignoring ${file}: it is a symbolic link, never followed; it was replaced by the file, its target untouched`,
    ]);
  }, 90_000);
});

async function waitFor(ok: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if (ok()) return;
    } catch {
      /* not there yet */
    }
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
