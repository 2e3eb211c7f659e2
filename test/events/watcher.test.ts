/**
 * The interval watcher (src/events/watcher.ts) against the sandbox over real HTTP, with the real
 * request ledger in a real file store: every request counted by a recording proxy between the
 * server and the sandbox (the sandbox's own view of who asked what), not by the code under test.
 *  - a watched budget costs one delta per interval, however often the watcher ticks;
 *  - the watcher's requests stop at its share of the hour, and interactive calls still go out;
 *  - an interactive sync feeds detection and makes the watcher's next sync unnecessary;
 *  - one watcher at a time per budget (the lease), handed over when its holder stops, the new
 *    holder syncing it an interval after the last sync the lease's record keeps, not at once.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverOptions } from '../../src/commands/server-setup.js';
import { UsageError } from '../../src/shared/cli-flags.js';
import { leaseKey } from '../../src/events/watcher-lease.js';
import { clusterName } from '../../src/storage/keys.js';
import { createStack, type Stack } from '../../src/stack/stack.js';
import type { WatchSettings } from '../../src/events/watcher-loop.js';
import { recordingProxy, type RecordingProxy } from '../helpers/hosted.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, spend } from './helpers.js';

/** The sandbox's hourly limit: small, so the watcher's share is a handful of requests. */
const LIMIT = 40;

let sb: TestSandbox;
let proxy: RecordingProxy;
let budget: string;
const dirs: string[] = [];
const stacks: Stack[] = [];

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: LIMIT });
  proxy = await recordingProxy(new URL(sb.baseUrl).origin);
  budget = (await budgetFacts(sb)).id;
});

afterAll(async () => {
  for (const s of stacks) await s.close().catch(() => undefined);
  await proxy?.close();
  await sb?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A stack over the proxy, its watcher ticked by hand; `dir` and `key` shared make two processes of one user. */
function stack(watch: WatchSettings, dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-watch-')), key = randomBytes(32)): Stack {
  dirs.push(dir);
  const s = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: `${proxy.url}/v1`,
    stateDir: dir,
    persist: false,
    keySource: { key: async () => key },
    maxStalenessMs: 0,
    quotaLimit: LIMIT,
    log: () => {},
    watch: { manual: true, ...watch },
  });
  stacks.push(s);
  return s;
}

/** Budget exports (full or delta) the sandbox was asked for since `from`. */
const exportsSince = (from: number) => proxy.requests.slice(from).filter((r) => new RegExp(`^/v1/(budgets|plans)/${budget}(\\?|$)`).test(r.url)).length;

/** The request ledger's document for the sandbox's token, as the file store holds it. */
function ledgerFile(dir: string): { entries: number[]; watch?: number[] } {
  const [file] = readdirSync(join(dir, 'quota'));
  return JSON.parse(readFileSync(join(dir, 'quota', file!), 'utf8'));
}

describe('the interval watcher', () => {
  it('syncs a watched budget once per interval, however often it ticks, and nothing unwatched', async () => {
    const s = stack({ intervalMs: 60 * 60_000 });
    await s.watcher.tick();
    expect(s.watcher.status().watched).toBe(0);
    const unwatch = s.events.watch(budget);
    const mark = proxy.requests.length;
    for (let i = 0; i < 5; i++) await s.watcher.tick();
    expect(exportsSince(mark)).toBe(1);
    expect(s.watcher.status()).toMatchObject({ watched: 1, last: { [budget]: 'fresh' }, interval_minutes: 60 });
    unwatch();
    await s.watcher.tick();
    expect(s.watcher.status().watched).toBe(0);
  });

  it('stops at its share of the hour: due budgets wait, interactive calls still go out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-watch-'));
    // Due at every tick (a 1 ms interval), a 10 % share of 40 requests: 4 per hour.
    const s = stack({ intervalMs: 1, share: 0.1 }, dir);
    s.events.watch(budget);
    const mark = proxy.requests.length;
    for (let i = 0; i < 8; i++) await s.watcher.tick();
    expect(exportsSince(mark)).toBe(4);
    expect(s.watcher.status()).toMatchObject({ last: { [budget]: 'share' }, skipped_for_share: 4, share: { used: 4, cap: 4 } });
    // An interactive read is not the watcher's: it goes out while the watcher waits.
    await s.replicas.fresh(budget);
    expect(exportsSince(mark)).toBe(5);
    const doc = ledgerFile(dir);
    expect(doc.watch).toHaveLength(4);
    expect(doc.entries.length).toBeGreaterThanOrEqual(5);
  });

  it("an interactive sync feeds detection at no extra request, and the watcher's next sync is not due", async () => {
    const s = stack({ intervalMs: 60 * 60_000 });
    s.events.watch(budget);
    await s.watcher.tick(); // the first sync: the copy is held from now on
    const facts = await budgetFacts(sb);
    const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
    await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 2_000) });
    const mark = proxy.requests.length;
    const scanned = new Promise<void>((resolve) => s.events.onFired((_b, fired) => fired.some((o) => o.data.category_id === target.id) && resolve()));
    await s.replicas.fresh(budget); // what any tool's read does
    expect(exportsSince(mark)).toBe(1);
    await scanned;
    const log = await s.events.log.read(budget);
    expect(log.events.filter((o) => o.name === 'category.overspent' && o.data.category_id === target.id)).toHaveLength(1);
    await s.watcher.tick();
    expect(exportsSince(mark)).toBe(1);
    expect(s.watcher.status().last[budget]).toBe('fresh');
  });

  it('one process watches a budget at a time; a stopped holder is replaced after its lease, a closed one at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-watch-'));
    const key = randomBytes(32);
    // A 2 s interval: a 1 s lease. Both processes are the same user (one token, one store).
    const a = stack({ intervalMs: 2_000, holder: 'a', share: 0.25 }, dir, key);
    const b = stack({ intervalMs: 2_000, holder: 'b', share: 0.25 }, dir, key);
    a.events.watch(budget);
    b.events.watch(budget);
    const mark = proxy.requests.length;
    await a.watcher.tick();
    await b.watcher.tick();
    expect(a.watcher.status().last[budget]).toBe('synced');
    expect(b.watcher.status().last[budget]).toBe('elsewhere');
    expect(exportsSince(mark)).toBe(1);
    // a stops ticking (as a crashed process): once its lease lapses, b takes the budget, and knows
    // from the lease's record that a synced it 1.1 s ago: not due again before the interval.
    await new Promise((r) => setTimeout(r, 1_100));
    await b.watcher.tick();
    expect(b.watcher.status().last[budget]).toBe('fresh');
    expect(exportsSince(mark)).toBe(1);
    await a.watcher.tick();
    expect(a.watcher.status().last[budget]).toBe('elsewhere');
    // An interval after a's sync, b syncs it.
    await new Promise((r) => setTimeout(r, 1_000));
    await b.watcher.tick();
    expect(b.watcher.status().last[budget]).toBe('synced');
    expect(exportsSince(mark)).toBe(2);
    // A closed watcher lets its leases go: the other takes them at its next tick.
    await b.close();
    await a.watcher.tick();
    expect(a.watcher.status().last[budget]).not.toBe('elsewhere');
  });
});

describe("the watcher's lease key", () => {
  it("is in the user's key family, so a Redis Cluster keeps it in the user's slot", () => {
    expect(leaseKey('u1', 'b1')).toBe('events/u1/b1.watch');
    expect(clusterName(leaseKey('u1', 'b1'))).toBe('events/{u1}/b1.watch');
  });
});

describe('--watch-interval and --watch-share', () => {
  it('take minutes and percent, and refuse what is out of bounds with what to give instead', () => {
    expect(serverOptions({ 'watch-interval': '30', 'watch-share': '25' }, {}).watch).toEqual({ intervalMs: 30 * 60_000, share: 0.25 });
    expect(serverOptions({}, { YNAB_MCP_WATCH_INTERVAL: '5', YNAB_MCP_WATCH_SHARE: '5%' }).watch).toEqual({ intervalMs: 5 * 60_000, share: 0.05 });
    expect(serverOptions({}, {}).watch).toEqual({ intervalMs: 15 * 60_000, share: 0.1 });
    expect(() => serverOptions({ 'watch-interval': '4' }, {})).toThrow(/--watch-interval 4: .*every 5 minutes.*give 5 or more/);
    expect(() => serverOptions({ 'watch-interval': 'soon' }, {})).toThrow(/whole number of minutes from 5 to 1440/);
    expect(() => serverOptions({ 'watch-interval': '20s' }, {})).toThrow(/for tests only \(YNAB_MCP_WATCH_SHORT=1\)/);
    expect(serverOptions({ 'watch-interval': '20s' }, { YNAB_MCP_WATCH_SHORT: '1' }).watch.intervalMs).toBe(20_000);
    expect(() => serverOptions({ 'watch-share': '30' }, {})).toThrow(/--watch-share 30: .*1 to 25 %/);
    expect(() => serverOptions({ 'watch-share': '30' }, {})).toThrow(UsageError);
  });
});
