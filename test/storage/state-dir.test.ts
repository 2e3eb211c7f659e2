/**
 * The state and config directories are the user's, and only theirs (issue 9, item 3). Each rule
 * against real files, the sandbox over HTTP and real stacks:
 *  - nothing is written through a symbolic link planted where the replica key, the ledger, a temp
 *    file, the secrets file, a replica or a lock goes: the victim it points at stays unchanged;
 *  - directories are 0700, and one open to others is tightened with one warning naming it;
 *  - a replica whose sync time is in the future, or whose content is not the expected shape, is
 *    discarded and fetched again, with a notice in the answer;
 *  - a ledger entry dated beyond now + window is dropped;
 *  - a ledger or state directory that cannot be used gives an error naming the path, while reads
 *    are answered from a replica with a notice.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/api/client/transport.js';
import { FileSecretStore } from '../../src/auth/file-store.js';
import { removeProfileInfo, storedScope, writeProfileInfo } from '../../src/auth/profile-info.js';
import { QuotaLedger, tokenKey } from '../../src/quota/ledger.js';
import { writeExclusive } from '../../src/storage/safe-fs.js';
import { fileKey } from '../../src/sync/persist.js';
import { createStack, type Stack } from '../../src/stack/stack.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { openReplica, sealReplica } from './replica-seal.js';

const posix = process.platform !== 'win32';
const VICTIM_TEXT = 'the victim file: nothing of ynab-mcp may ever land here\n';

let sb: TestSandbox;
let budget: string;
let root: string;
let dir: string;
let victim: string;
let identity: string;

beforeAll(async () => {
  sb = await testSandbox({ seed: 'state-dir', rateLimit: 100_000 });
  budget = sb.state.budgets[0]!.id;
  identity = tokenKey(sb.accessToken);
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-statedir-'));
});

afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
beforeEach(() => {
  n += 1;
  dir = join(root, `state-${n}`);
  mkdirSync(dir, { mode: 0o700 });
  victim = join(root, `victim-${n}.txt`);
  writeFileSync(victim, VICTIM_TEXT, { mode: 0o644 });
  chmodSync(victim, 0o644);
});

let stacks: Stack[] = [];
afterEach(async () => {
  for (const s of stacks) await s.close().catch(() => undefined);
  stacks = [];
});

function expectVictimUntouched(): void {
  expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
  if (posix) expect(statSync(victim).mode & 0o777).toBe(0o644);
}

function start(opts: { maxStalenessMs?: number; persist?: boolean; log?: string[]; requests?: RequestInfo[] } = {}): Stack {
  const s = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: sb.baseUrl,
    stateDir: dir,
    persist: opts.persist ?? true,
    keySource: fileKey(join(dir, 'replica.key')),
    quotaLimit: 100_000,
    maxStalenessMs: opts.maxStalenessMs ?? 60_000,
    onRequest: (r) => opts.requests?.push(r),
    log: (l) => opts.log?.push(l),
  });
  stacks.push(s);
  return s;
}

const read = (s: Stack) => s.service.call('getAccounts', { params: { budget_id: budget } });
const sandboxAccounts = async () => (await sb.get(`/plans/${budget}/accounts`)).body.data;
const replicaFile = () => join(dir, 'replicas', identity, `${budget}.replica`);
const ledgerFile = () => join(dir, 'quota', `${tokenKey(sb.accessToken)}.json`);

describe('nothing is written through a link', () => {
  it('the replica key: a link planted where it goes is replaced, its target untouched', async () => {
    symlinkSync(victim, join(dir, 'replica.key'));
    const s = start();
    await read(s);
    await s.close();
    expectVictimUntouched();
    expect(lstatSync(join(dir, 'replica.key')).isSymbolicLink()).toBe(false);
    expect(Buffer.from(readFileSync(join(dir, 'replica.key'), 'utf8'), 'base64')).toHaveLength(32);
  });

  it('the ledger and its temp file: links planted there are not followed', async () => {
    mkdirSync(join(dir, 'quota'), { mode: 0o700 });
    symlinkSync(victim, ledgerFile());
    symlinkSync(victim, `${ledgerFile()}.tmp`);
    const s = start({ persist: false });
    await read(s);
    expectVictimUntouched();
    expect(JSON.parse(readFileSync(ledgerFile(), 'utf8')).entries.length).toBeGreaterThan(0);
  });

  it('the lock beside the ledger: a link there is removed, not followed, and the call goes through', async () => {
    mkdirSync(join(dir, 'quota'), { mode: 0o700 });
    symlinkSync(victim, `${ledgerFile()}.lock`);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(victim, old, old);
    const s = start({ persist: false });
    const res = await read(s);
    expect(res.data).toEqual(await sandboxAccounts());
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM_TEXT);
    expect(Math.abs(statSync(victim).mtimeMs - old.getTime())).toBeLessThan(1); // mtimeMs is a float
  });

  it('a replica directory replaced by a link: nothing is saved into what it points at', async () => {
    const victimDir = join(root, `victim-dir-${n}`);
    mkdirSync(victimDir);
    mkdirSync(join(dir, 'replicas'), { mode: 0o700 });
    symlinkSync(victimDir, join(dir, 'replicas', identity));
    const s = start();
    await read(s);
    await s.close();
    expect(readdirSync(victimDir)).toEqual([]);
    expect(existsSync(replicaFile())).toBe(true);
    expect(lstatSync(join(dir, 'replicas', identity)).isDirectory()).toBe(true);
  });

  it('a replica file replaced by a link: its target is neither read as a copy nor written', async () => {
    mkdirSync(join(dir, 'replicas', identity), { recursive: true, mode: 0o700 });
    symlinkSync(victim, replicaFile());
    const requests: RequestInfo[] = [];
    const s = start({ requests });
    expect((await read(s)).data).toEqual(await sandboxAccounts());
    await s.close();
    expect(requests[0]!.query).toEqual({}); // a full export: the link was no copy
    expectVictimUntouched();
    expect(lstatSync(replicaFile()).isFile()).toBe(true);
  });

  it('a temp file at its exact (random) name: a link planted there, even one pointing nowhere, is refused, not followed', async () => {
    // Every state file is written through a temp file of a random name created with O_EXCL and
    // O_NOFOLLOW (safe-fs.ts); this plants the link at the very name the create is given.
    const temp = join(dir, `ledger.json.${process.pid}.0123456789ab.tmp`);
    const nowhere = join(root, `nowhere-${n}.txt`);
    symlinkSync(nowhere, temp);
    await expect(writeExclusive(temp, 'x', false)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(existsSync(nowhere)).toBe(false);
    rmSync(temp);
    symlinkSync(victim, temp);
    await expect(writeExclusive(temp, 'x', true)).rejects.toMatchObject({ code: 'EEXIST' });
    expectVictimUntouched();
  });

  it('the sandbox --data journal: a link planted there is removed, not appended through, its target untouched', async () => {
    const file = join(dir, 'sandbox.json');
    symlinkSync(victim, `${file}.journal`);
    const data = await testSandbox({ seed: 'state-dir-data', dataFile: file });
    const b = data.state.budgets[0]!.id;
    const acct = (await data.get(`/plans/${b}/accounts`)).body.data.accounts[0].id;
    expect(
      (await data.call('POST', `/plans/${b}/transactions`, { transaction: { account_id: acct, date: '2026-01-02', amount: -1_000, memo: 'through no link' } }))
        .status,
    ).toBe(201);
    await data.close();
    expectVictimUntouched();
    expect(lstatSync(file).isFile()).toBe(true);
    expect(lstatSync(`${file}.journal`).isFile()).toBe(true);
  });

  it('the aliases file temp name: a link planted there is not followed', async () => {
    mkdirSync(join(dir, 'replicas', identity), { recursive: true, mode: 0o700 });
    symlinkSync(victim, join(dir, 'replicas', identity, `aliases.json.${process.pid}.tmp`));
    const s = start();
    await s.service.call('getAccounts', { params: { budget_id: 'last-used' } });
    await s.close();
    await new Promise((r) => setTimeout(r, 100)); // the aliases are saved in the background
    expectVictimUntouched();
  });

  it.skipIf(!posix)('the secrets file: a link there is refused with its name, and its target is not touched (not even its mode)', async () => {
    const config = join(root, `config-${n}`);
    mkdirSync(config, { mode: 0o700 });
    symlinkSync(victim, join(config, 'secrets.json'));
    const store = new FileSecretStore({ path: join(config, 'secrets.json'), profile: 'default', warn: () => {} });
    const got = await store.get('access_token').catch((e: unknown) => e as Error);
    const set = await store.set('access_token', 'token-value-123456').catch((e: unknown) => e as Error);
    expectVictimUntouched();
    expect(String(got)).toMatch(/secrets\.json is a symbolic link/);
    expect(String(set)).toMatch(/symbolic link/);
  });
});

describe.skipIf(!posix)('the profile record (what login knows of a sign-in)', () => {
  it('a link at the record or at the temp name a writer once used is not followed; the record is written in its place', async () => {
    const config = join(root, `config-${n}`);
    mkdirSync(join(config, 'profiles'), { recursive: true, mode: 0o700 });
    symlinkSync(victim, join(config, 'profiles', `.default.${process.pid}.tmp`));
    const other = join(root, `victim-${n}-b.txt`);
    writeFileSync(other, VICTIM_TEXT, { mode: 0o644 });
    symlinkSync(other, join(config, 'profiles', 'default.json'));
    await writeProfileInfo(config, 'default', { kind: 'oauth', scope: 'read-only' });
    expectVictimUntouched();
    expect(readFileSync(other, 'utf8')).toBe(VICTIM_TEXT);
    expect(lstatSync(join(config, 'profiles', 'default.json')).isFile()).toBe(true);
    expect(statSync(join(config, 'profiles', 'default.json')).mode & 0o777).toBe(0o600);
    expect(storedScope(config, 'default')).toBe('read-only');
  });

  it('a record that is a link is not read (nothing is recorded), and logout removes the link only', async () => {
    const config = join(root, `config-${n}`);
    mkdirSync(join(config, 'profiles'), { recursive: true, mode: 0o700 });
    writeFileSync(victim, JSON.stringify({ kind: 'oauth', scope: 'read-only' }));
    symlinkSync(victim, join(config, 'profiles', 'default.json'));
    expect(storedScope(config, 'default')).toBeUndefined();
    await removeProfileInfo(config, 'default');
    expect(existsSync(join(config, 'profiles', 'default.json'))).toBe(false);
    expect(JSON.parse(readFileSync(victim, 'utf8')).scope).toBe('read-only');
  });
});

describe.skipIf(!posix)('the directories are private', () => {
  it('tightens a state directory and a subdirectory open to others, with one warning each naming it', async () => {
    chmodSync(dir, 0o755);
    mkdirSync(join(dir, 'quota'));
    chmodSync(join(dir, 'quota'), 0o777);
    const warnings: string[] = [];
    const ledger = QuotaLedger.forToken('a-token-for-modes-0123', { stateDir: dir, warn: (m) => warnings.push(m) });
    await ledger.acquire('read');
    await ledger.acquire('read');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'quota')).mode & 0o777).toBe(0o700);
    expect(warnings.filter((w) => w.includes(`${dir} was open to other users (mode 0755)`))).toHaveLength(1);
    expect(warnings.filter((w) => w.includes(`${join(dir, 'quota')} was open to other users (mode 0777)`))).toHaveLength(1);
  });

  it('tightens the configuration directory when the secrets file is written', async () => {
    const config = join(root, `config-${n}`);
    mkdirSync(config, { mode: 0o755 });
    chmodSync(config, 0o755);
    const warnings: string[] = [];
    const store = new FileSecretStore({ path: join(config, 'secrets.json'), profile: 'default', warn: (m) => warnings.push(m) });
    await store.set('access_token', 'token-value-123456');
    expect(statSync(config).mode & 0o777).toBe(0o700);
    expect(warnings.join('\n')).toContain(config);
  });

  it('creates what it needs 0700 (directories) and 0600 (files)', async () => {
    const fresh = join(dir, 'nested', 'state');
    const s = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: fresh,
      keySource: fileKey(join(fresh, 'replica.key')),
      quotaLimit: 100_000,
    });
    stacks.push(s);
    await read(s);
    await s.close();
    for (const entry of readdirSync(fresh, { recursive: true, withFileTypes: true })) {
      const p = join(entry.parentPath, entry.name);
      expect(statSync(p).mode & 0o777, p).toBe(entry.isDirectory() ? 0o700 : 0o600);
    }
  });
});

describe('saved replicas that cannot be trusted', () => {
  async function saveOne(): Promise<any> {
    const s = start();
    await read(s);
    await s.close();
    return openReplica(replicaFile(), join(dir, 'replica.key'), identity, budget);
  }

  it('a sync time in the future: discarded and fetched again, with a notice in the answer', async () => {
    const snapshot = await saveOne();
    snapshot.syncedAt = Date.now() + 86_400_000;
    sealReplica(replicaFile(), join(dir, 'replica.key'), identity, budget, snapshot);
    const requests: RequestInfo[] = [];
    const s = start({ requests });
    const res = await read(s);
    expect(requests.map((r) => r.query)).toEqual([{}]);
    expect(res.data).toEqual(await sandboxAccounts());
    expect(res.notices?.join(' ')).toMatch(
      /saved copy of this budget could not be used \(its sync time .* is in the future\); it was discarded and the budget fetched again/,
    );
    // Said once, not on every answer.
    expect((await read(s)).notices).toBeUndefined();
  });

  it.each([
    ['an amount that is not an integer', (x: any) => void (x.transactions[0].amount = '-4.50')],
    ['an account without an id', (x: any) => void delete x.accounts[0].id],
    ['a list that is not a list', (x: any) => void (x.payees = { a: 1 })],
    ['a category with an unknown goal type', (x: any) => void (x.categories[0].goal_type = 'SOMETIMES')],
    ['no summary', (x: any) => void delete x.summary],
  ])('content that is not the expected shape (%s): discarded and fetched again, with a notice', async (_what, spoil) => {
    const snapshot = await saveOne();
    spoil(snapshot);
    sealReplica(replicaFile(), join(dir, 'replica.key'), identity, budget, snapshot);
    const requests: RequestInfo[] = [];
    const log: string[] = [];
    const s = start({ requests, log });
    const res = await read(s);
    expect(requests.map((r) => r.query)).toEqual([{}]);
    expect(res.data).toEqual(await sandboxAccounts());
    expect(res.notices?.join(' ')).toMatch(/could not be used \(unexpected content at [a-z_.0-9]+\); it was discarded/);
    expect(log.join('\n')).toMatch(/could not be read .* fetched again/);
    await s.close();
    // Saved again properly: the next start needs one delta only.
    const again: RequestInfo[] = [];
    const t = start({ requests: again, maxStalenessMs: 0 });
    await read(t);
    expect(again.map((r) => r.query.last_knowledge_of_server !== undefined)).toEqual([true]);
  });
});

describe('the ledger', () => {
  it('drops request times dated beyond now + the window, with a warning', async () => {
    mkdirSync(join(dir, 'quota'), { mode: 0o700 });
    const token = 'a-token-for-future-entries-0123';
    const now = Date.now();
    const file = join(dir, 'quota', `${tokenKey(token)}.json`);
    writeFileSync(
      file,
      JSON.stringify({ v: 1, entries: Array.from({ length: 200 }, () => now + 3 * 3_600_000), limit: 200, blockedUntil: now + 5 * 3_600_000 }),
    );
    const warnings: string[] = [];
    const ledger = QuotaLedger.forToken(token, { stateDir: dir, warn: (m) => warnings.push(m) });
    const slot = await ledger.acquire('write');
    expect(slot.ok).toBe(true);
    expect((await ledger.status()).used).toBe(1);
    expect(warnings.join('\n')).toMatch(/request time\(s\) beyond now \+ the window; they were dropped/);
    expect(warnings.join('\n')).toContain(file);
  });
});

describe('a ledger or state directory that cannot be used', () => {
  it('an unreadable ledger: reads are answered from the saved copy with a notice naming it; writes are refused naming it', async () => {
    const first = start();
    await read(first);
    await first.close();
    rmSync(ledgerFile());
    mkdirSync(ledgerFile()); // a directory where the ledger file belongs: it cannot be read
    const s = start({ maxStalenessMs: 0 });
    const res = await read(s);
    expect(res.data).toEqual(await sandboxAccounts());
    expect(res.freshness?.stale).toBe(true);
    expect(res.freshness?.notice).toContain(ledgerFile());
    expect(res.freshness?.notice).toMatch(/request ledger .* cannot be read/);
    const account = res.data.accounts.find((a: any) => a.on_budget && !a.closed).id;
    await expect(
      s.service.call('createTransaction', { params: { budget_id: budget }, body: { transaction: { account_id: account, date: '2026-01-01', amount: -1000 } } }),
    ).rejects.toThrow(ledgerFile());
  });

  it('a state directory whose layout cannot be written: reads are answered from the copy in memory with a notice naming the path', async () => {
    const s = start({ maxStalenessMs: 0, persist: false });
    await read(s);
    rmSync(join(dir, 'quota'), { recursive: true, force: true });
    writeFileSync(join(dir, 'quota'), 'not a directory');
    const res = await read(s);
    expect(res.data).toEqual(await sandboxAccounts());
    expect(res.freshness?.notice).toContain(join(dir, 'quota'));
  });

  it('a state directory that is not one, and no copy: a specific error naming the path, not a crash', async () => {
    const file = join(root, `not-a-dir-${n}`);
    writeFileSync(file, 'x');
    const s = createStack({ credentials: { token: async () => sb.accessToken }, baseUrl: sb.baseUrl, stateDir: file, persist: false, log: () => {} });
    stacks.push(s);
    await expect(read(s)).rejects.toThrow(new RegExp(`${file.replace(/[/.]/g, '\\$&')}.*(a file stands where a directory belongs|not a directory)`));
  });

  it.skipIf(!posix || process.getuid?.() === 0)('a ledger the user may not write: refused naming it (skipped as root, who may write anything)', async () => {
    const s = start({ maxStalenessMs: 0, persist: false });
    await read(s);
    chmodSync(join(dir, 'quota'), 0o500);
    try {
      const res = await read(s);
      expect(res.freshness?.notice).toContain(join(dir, 'quota'));
    } finally {
      chmodSync(join(dir, 'quota'), 0o700);
    }
  });
});
