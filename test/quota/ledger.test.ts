/**
 * The ledger's policy and its file, against real files in a temp directory with an injected clock.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import lockfile from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AcquireResult, type QuotaOptions, QuotaLedger, tokenKey } from '../../src/quota/ledger.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 22, 13, 0, 0);
const TOKEN = 'ynab-pat-Zq7xW3-DISTINCTIVE-9f41c0aa';

let dir: string;
let clock: number;
const now = (): number => clock;

function ledger(opts: Partial<QuotaOptions> = {}, token = TOKEN): QuotaLedger {
  return QuotaLedger.forToken(token, { stateDir: dir, now, ...opts });
}

function refused(r: AcquireResult): Extract<AcquireResult, { ok: false }> {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r)}`);
  return r;
}

async function acquireMany(l: QuotaLedger, kind: 'read' | 'write', n: number, stepMs = 0): Promise<AcquireResult[]> {
  const out: AcquireResult[] = [];
  for (let i = 0; i < n; i += 1) {
    out.push(await l.acquire(kind));
    clock += stepMs;
  }
  return out;
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quota-'));
  clock = T0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rolling window and limit', () => {
  it('refuses at the limit and frees each slot exactly one window after it was taken', async () => {
    const l = ledger({ limit: 3, writeReserve: 0 });
    const granted = await acquireMany(l, 'write', 3, 10_000); // slots at T0, T0+10s, T0+20s
    expect(granted.map((r) => r.ok && r.used)).toEqual([1, 2, 3]);
    expect(granted.map((r) => r.ok && r.remaining)).toEqual([2, 1, 0]);

    const full = refused(await l.acquire('write'));
    expect(full.reason).toBe('limit');
    expect(full.nextSlotAt.getTime()).toBe(T0 + HOUR);
    expect(full.message).toMatch(/^the hourly request limit is spent; next request possible at 2026-11-22 14:00 UTC \(in 60 minutes\)$/);

    clock = T0 + HOUR - 1;
    expect(refused(await l.acquire('write')).nextSlotAt.getTime()).toBe(T0 + HOUR);
    clock = T0 + HOUR;
    expect((await l.acquire('write')).ok).toBe(true);
    // The window now holds T0+10s, T0+20s, T0+1h: the next to leave is T0+10s.
    expect(refused(await l.acquire('read')).nextSlotAt.getTime()).toBe(T0 + 10_000 + HOUR);

    const status = await l.status();
    expect(status).toMatchObject({ limit: 3, used: 3, remaining: 0, readRemaining: 0, blockedUntil: null });
    expect(status.nextSlotAt?.getTime()).toBe(T0 + 10_000 + HOUR);
  });

  it('forgets slots older than the window and keeps the file small', async () => {
    const l = ledger({ limit: 200 });
    await acquireMany(l, 'read', 50, 1000);
    clock = T0 + 2 * HOUR;
    await l.acquire('read');
    const doc = JSON.parse(await readFile(l.file, 'utf8')) as { entries: number[] };
    expect(doc.entries).toEqual([T0 + 2 * HOUR]);
    expect((await l.status()).used).toBe(1);
  });

  it('honours a configurable window', async () => {
    const l = ledger({ limit: 2, writeReserve: 0, windowMs: 1000 });
    await acquireMany(l, 'read', 2);
    expect(refused(await l.acquire('read')).nextSlotAt.getTime()).toBe(T0 + 1000);
    clock = T0 + 1000;
    expect((await l.acquire('read')).ok).toBe(true);
  });

  it('rejects invalid options', () => {
    expect(() => ledger({ limit: 0 })).toThrow(RangeError);
    expect(() => ledger({ windowMs: -5 })).toThrow(RangeError);
    expect(() => ledger({ writeReserve: 1.5 })).toThrow(RangeError);
    expect(() => ledger({}, '')).toThrow(TypeError);
  });
});

describe('write reserve', () => {
  it('keeps the last slots for writes', async () => {
    const l = ledger({ limit: 5, writeReserve: 2 });
    expect((await acquireMany(l, 'read', 3, 1000)).every((r) => r.ok)).toBe(true);
    expect(await l.status()).toMatchObject({ used: 3, remaining: 2, readRemaining: 0, nextSlotAt: null });

    const read = refused(await l.acquire('read'));
    expect(read.reason).toBe('reserve');
    expect(read.nextSlotAt.getTime()).toBe(T0 + HOUR); // one slot must leave: the oldest
    expect(read.message).toContain('next read possible at');
    expect(read.message).toContain('the last 2 requests are kept for changes');

    expect((await acquireMany(l, 'write', 2)).every((r) => r.ok)).toBe(true);
    const write = refused(await l.acquire('write'));
    expect(write.reason).toBe('limit');
    expect(write.nextSlotAt.getTime()).toBe(T0 + HOUR);
    // Reads need the count below 3: three slots (T0, T0+1s, T0+2s) must leave.
    const readAtLimit = refused(await l.acquire('read'));
    expect(readAtLimit.reason).toBe('limit');
    expect(readAtLimit.nextSlotAt.getTime()).toBe(T0 + 2000 + HOUR);
  });

  it('defaults to 200 requests with 10 kept for writes', async () => {
    const l = ledger();
    const s = await l.status();
    expect(s).toMatchObject({ limit: 200, used: 0, remaining: 200, readRemaining: 190 });
  });

  it('never reserves more than half the limit', async () => {
    const l = ledger({ limit: 4, writeReserve: 10 });
    expect((await acquireMany(l, 'read', 3)).map((r) => r.ok)).toEqual([true, true, false]);
  });
});

describe('429 blocking', () => {
  it('blocks until the oldest slot leaves the window, for every ledger instance on the file', async () => {
    const first = ledger();
    await acquireMany(first, 'read', 5, 60_000); // T0 … T0+4min
    clock = T0 + 5 * 60_000;
    await first.recordRateLimited();

    const second = ledger(); // a fresh instance, as in another process: the block is in the file
    const r = refused(await second.acquire('write'));
    expect(r.reason).toBe('blocked');
    expect(r.nextSlotAt.getTime()).toBe(T0 + HOUR);
    expect(r.message).toMatch(/next request possible at 2026-11-22 14:00 UTC \(in 55 minutes\)$/);
    const s = await second.status();
    expect(s.blockedUntil?.getTime()).toBe(T0 + HOUR);
    expect(s).toMatchObject({ used: 5, remaining: 0, readRemaining: 0 });
    expect(s.nextSlotAt?.getTime()).toBe(T0 + HOUR);

    // Another token's ledger is not affected.
    expect((await ledger({}, 'another-token').acquire('read')).ok).toBe(true);

    clock = T0 + HOUR - 1;
    expect(refused(await second.acquire('write')).reason).toBe('blocked');
    clock = T0 + HOUR;
    expect((await second.acquire('read')).ok).toBe(true);
    expect((await first.status()).blockedUntil).toBeNull();
  });

  it('uses Retry-After when it is later than the window would free a slot', async () => {
    const l = ledger();
    await l.acquire('read'); // at T0
    clock = T0 + HOUR - 30_000;
    await l.recordRateLimited(120);
    expect((await l.status()).blockedUntil?.getTime()).toBe(T0 + HOUR - 30_000 + 120_000);
  });

  it('blocks a whole window when nothing was counted here and no Retry-After came', async () => {
    const l = ledger();
    await l.recordRateLimited();
    expect((await l.status()).blockedUntil?.getTime()).toBe(T0 + HOUR);
  });

  it('never shortens an existing block', async () => {
    const l = ledger();
    await l.recordRateLimited(600);
    await l.recordRateLimited(10);
    expect((await l.status()).blockedUntil?.getTime()).toBe(T0 + 600_000);
  });
});

describe('reconcile with X-Rate-Limit', () => {
  it('adds the requests the server counted and we did not', async () => {
    const l = ledger();
    await acquireMany(l, 'read', 2, 1000);
    await l.reconcile(150, 200);
    const s = await l.status();
    expect(s).toMatchObject({ used: 150, remaining: 50, readRemaining: 40 });
    // The added requests free no earlier than now.
    const doc = JSON.parse(await readFile(l.file, 'utf8')) as { entries: number[] };
    expect(doc.entries.slice(0, 2)).toEqual([T0, T0 + 1000]);
    expect(doc.entries.slice(2).every((t) => t === clock)).toBe(true);
  });

  it('drops the oldest surplus when the server counted fewer', async () => {
    const l = ledger({ limit: 10, writeReserve: 0 });
    await acquireMany(l, 'read', 10, 1000); // T0 … T0+9s
    await l.reconcile(4, 10);
    const s = await l.status();
    expect(s).toMatchObject({ used: 4, remaining: 6 });
    const doc = JSON.parse(await readFile(l.file, 'utf8')) as { entries: number[] };
    expect(doc.entries).toEqual([T0 + 6000, T0 + 7000, T0 + 8000, T0 + 9000]);
  });

  it('leaves slots taken after the reconciled request alone', async () => {
    const l = ledger();
    const sent = await l.acquire('read'); // the request whose response we reconcile
    clock += 1000;
    await acquireMany(l, 'read', 3); // concurrent requests, not yet counted by the server
    if (!sent.ok) throw new Error('unexpected refusal');
    await l.reconcile(1, 200, sent.at);
    expect((await l.status()).used).toBe(4);
    await l.reconcile(1, 200); // without sentAt everything is compared
    expect((await l.status()).used).toBe(1);
  });

  it("adopts the server's limit and shares it through the file", async () => {
    const l = ledger();
    await l.acquire('read');
    await l.reconcile(1, 50);
    expect(await ledger().status()).toMatchObject({ limit: 50, used: 1, remaining: 49, readRemaining: 39 });
  });

  it('ignores nonsense', async () => {
    const l = ledger();
    await l.acquire('read');
    await l.reconcile(Number.NaN, 0);
    await l.reconcile(-3, -1);
    await l.reconcile(2.5, 1.5);
    expect(await l.status()).toMatchObject({ limit: 200, used: 1 });
  });
});

describe('the ledger file', () => {
  it('never contains the token, is 0600 in a 0700 directory, and the ledger object holds no token', async () => {
    const l = ledger();
    await l.acquire('read');
    await l.reconcile(3, 200);
    await l.recordRateLimited(5);
    const files = await listFiles(dir);
    expect(files).toEqual([l.file]);
    expect(l.file).toContain(tokenKey(TOKEN));
    for (const f of files) {
      expect(f).not.toContain(TOKEN);
      const bytes = await readFile(f);
      expect(bytes.includes(Buffer.from(TOKEN))).toBe(false);
      expect(bytes.includes(Buffer.from('DISTINCTIVE'))).toBe(false);
    }
    expect(inspect(l, { depth: 10, showHidden: true })).not.toContain('DISTINCTIVE');
    if (process.platform !== 'win32') {
      expect((await stat(l.file)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, 'quota'))).mode & 0o777).toBe(0o700);
    }
  });

  it('derives a stable, short key that differs per token', () => {
    expect(tokenKey(TOKEN)).toMatch(/^[0-9a-f]{24}$/);
    expect(tokenKey(TOKEN)).toBe(tokenKey(TOKEN));
    expect(tokenKey(`${TOKEN}x`)).not.toBe(tokenKey(TOKEN));
    expect(ledger().key).toBe(tokenKey(TOKEN));
  });

  it.each([
    ['garbage', '{"v":1,"entries":[1,2'],
    ['wrong shape', '{"v":1,"entries":"many","limit":null,"blockedUntil":null}'],
    ['wrong entry', '{"v":1,"entries":[1,"x"],"limit":null,"blockedUntil":null}'],
    ['unknown version', '{"v":99,"entries":[],"limit":null,"blockedUntil":null}'],
    ['empty', ''],
  ])('starts fresh from a corrupt file (%s) and reports it on the warn channel', async (_name, text) => {
    const warnings: string[] = [];
    const l = ledger({ warn: (m) => warnings.push(m) });
    await mkdir(join(dir, 'quota'), { recursive: true });
    await writeFile(l.file, text);
    expect((await l.status()).used).toBe(0);
    const r = await l.acquire('read');
    expect(r).toMatchObject({ ok: true, used: 1 });
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings.join('\n')).not.toContain('DISTINCTIVE');
    // Rewritten as a valid ledger.
    const doc = JSON.parse(await readFile(l.file, 'utf8')) as { entries: number[] };
    expect(doc.entries).toEqual([T0]);
    if (process.platform !== 'win32') expect((await stat(l.file)).mode & 0o777).toBe(0o600);
  });

  it('takes over a lock left behind by a crashed process', async () => {
    const l = ledger();
    await mkdir(join(dir, 'quota'), { recursive: true });
    const lockDir = `${l.file}.lock`;
    await mkdir(lockDir);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockDir, old, old);
    const started = Date.now();
    expect((await l.acquire('write')).ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(stat(lockDir)).rejects.toThrow(); // released after use
  });

  it('waits for a live lock held by someone else', async () => {
    const l = ledger();
    await mkdir(join(dir, 'quota'), { recursive: true });
    const release = await lockfile.lock(l.file, { realpath: false, lockfilePath: `${l.file}.lock` });
    let done = false;
    const pending = l.acquire('write').then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    await release();
    expect((await pending).ok).toBe(true);
  });
});

describe('concurrency within one process', () => {
  it('grants exactly the limit to many simultaneous acquires', async () => {
    const l = ledger({ limit: 50, writeReserve: 5 });
    const results = await Promise.all(Array.from({ length: 120 }, () => l.acquire('write')));
    expect(results.filter((r) => r.ok)).toHaveLength(50);
    expect(new Set(results.flatMap((r) => (r.ok ? [r.used] : []))).size).toBe(50); // each count once
    expect((await l.status()).used).toBe(50);
  });

  it('grants exactly the read share to simultaneous reads from two instances', async () => {
    const a = ledger({ limit: 50, writeReserve: 5 });
    const b = ledger({ limit: 50, writeReserve: 5 });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).acquire('read')));
    expect(results.filter((r) => r.ok)).toHaveLength(45);
    expect(results.filter((r) => !r.ok && r.reason === 'reserve')).toHaveLength(55);
    expect((await a.status()).used).toBe(45);
  });
});
