/**
 * Shared replicas (hosted mode) catch up from the changes the last syncs recorded (replica-feed.ts):
 * two stacks share one store and one key, as two hosted instances share Redis and the data key.
 * After a write through one, the other's next read makes the one delta request and records it, and
 * the writer then merges that delta: no second request, no read of the whole saved copy, and both
 * answer as a fresh full sync would. An instance new to the budget reads the saved copy, saved
 * whole only every few changes, and merges those since. A feed that cannot be read costs one delta
 * request. Then the feed's own rules: bounded, never moved back, and a copy it does not reach is
 * left alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RequestInfo } from '../../src/api/client/transport.js';
import { tokenKey } from '../../src/quota/ledger.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import { fileKey } from '../../src/storage/key-file.js';
import { replicaFeedKey, replicaKey } from '../../src/storage/keys.js';
import { openReplica } from '../storage/replica-seal.js';
import { createStack, type Stack } from '../../src/stack/stack.js';
import type { CatchUp } from '../../src/sync/manager.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { catchUp, COPY_EVERY, copyDue, FEED_MAX_BYTES, FEED_MAX_ENTRIES, nextFeed, type Feed } from '../../src/sync/replica-feed.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string;
const stacks: Stack[] = [];
let budget: string;
let account: string;

interface Instance {
  stack: Stack;
  requests: RequestInfo[];
  catchUps: CatchUp[];
}

/** The shared store, with the keys read through it. */
class ReadsSeen extends FileStateStore {
  readonly reads: string[] = [];
  override get(key: string) {
    this.reads.push(key);
    return super.get(key);
  }
}

function instance(store: FileStateStore = new FileStateStore(dir)): Instance {
  const requests: RequestInfo[] = [];
  const catchUps: CatchUp[] = [];
  const stack = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: sb.baseUrl,
    stateDir: dir,
    store,
    keySource: fileKey(join(dir, 'replica.key')),
    shared: true,
    quotaLimit: 100_000,
    onRequest: (r) => requests.push(r),
    onReplicaCatchUp: (via) => catchUps.push(via),
  });
  stacks.push(stack);
  return { stack, requests, catchUps };
}

const identity = () => tokenKey(sb.accessToken);
const write = (i: Instance, memo: string) =>
  i.stack.service.call('createTransaction', {
    params: { budget_id: budget },
    body: { transaction: { account_id: account, date: new Date().toISOString().slice(0, 10), amount: -4321, memo } },
  });
const transactions = async (i: Instance) =>
  (await i.stack.service.call('getTransactions', { params: { budget_id: budget }, query: {} })).data as Record<string, unknown>;
/** What an answer says apart from how fresh its copy is. */
const content = (answer: Record<string, unknown>) => JSON.stringify(answer.transactions);

beforeAll(async () => {
  sb = await testSandbox({ seed: 'feed' });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-feed-'));
  const budgets = (await sb.call('GET', '/budgets')).body.data.budgets as { id: string }[];
  budget = budgets[0]!.id;
  const accounts = (await sb.call('GET', `/budgets/${budget}/accounts`)).body.data.accounts as { id: string; type: string; closed: boolean }[];
  account = accounts.find((a) => a.type === 'checking' && !a.closed)!.id;
});

afterAll(async () => {
  for (const s of stacks) await s.close().catch(() => undefined);
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('two instances sharing a store', () => {
  it('a write through one: the other makes the one delta request, the writer merges what it recorded', async () => {
    const a = instance();
    const b = instance();
    await transactions(a); // a full export, saved with a new feed
    expect(a.catchUps).toEqual(['request']);
    await transactions(b); // b reads a's saved copy
    expect(b.requests).toEqual([]);
    a.catchUps.length = 0;
    await write(a, 'feed test');
    const [beforeA, beforeB] = [a.requests.length, b.requests.length];
    const fromB = await transactions(b);
    expect(b.requests.slice(beforeB).map((r) => r.query.last_knowledge_of_server !== undefined)).toEqual([true]);
    expect(b.catchUps).toEqual(['request']);
    const fromA = await transactions(a);
    expect(a.requests.length - beforeA).toBe(0);
    expect(a.catchUps).toEqual(['changes']);
    expect(content(fromA)).toContain('feed test');
    expect(content(fromA)).toBe(content(fromB));
    // An instance that never held the budget reads the saved copy and merges the change: no request.
    const c = instance();
    expect(content(await transactions(c))).toBe(content(fromA));
    expect(c.requests).toEqual([]);
    // As a copy made by one full export answers.
    const fresh = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: mkdtempSync(join(dir, 'fresh-')),
      persist: false,
      quotaLimit: 100_000,
    });
    stacks.push(fresh);
    expect(content(fromA)).toBe(
      content((await fresh.service.call('getTransactions', { params: { budget_id: budget }, query: {} })).data as Record<string, unknown>),
    );
  });

  it("a writer's copy, which its own writes may do for (a write's plan, the balances after it), syncs without reading the budget's written mark: its write took the mark past the copy", async () => {
    const store = new ReadsSeen(dir);
    const a = instance(store);
    await transactions(a);
    await write(a, 'mark test');
    store.reads.length = 0;
    const before = a.requests.length;
    const { replica } = await a.stack.replicas.fresh(budget, undefined, { dirtyOk: true });
    expect([...replica.transactions.values()].some((t) => t.memo === 'mark test')).toBe(true);
    expect(a.requests.slice(before).map((r) => r.query.last_knowledge_of_server !== undefined)).toEqual([true]);
    expect(store.reads.filter((k) => k.endsWith('.written'))).toEqual([]);
    // Another instance, which wrote nothing, reads the mark to learn of the write.
    const other = new ReadsSeen(dir);
    const b = instance(other);
    await transactions(b);
    await write(a, 'mark test 2');
    other.reads.length = 0;
    expect(content(await transactions(b))).toContain('mark test 2');
    expect(other.reads.filter((k) => k.endsWith('.written')).length).toBeGreaterThan(0);
  });

  it("alerts: a copy YNAB brought up to date is scanned; one caught up from the other's changes is not scanned again", async () => {
    const a = instance();
    const b = instance();
    await transactions(a);
    await transactions(b);
    await write(a, 'scan test');
    const [scansA, scansB] = [vi.spyOn(a.stack.events, 'scan'), vi.spyOn(b.stack.events, 'scan')];
    await transactions(b); // one delta request
    expect(b.catchUps.at(-1)).toBe('request');
    expect(scansB).toHaveBeenCalledTimes(1);
    await transactions(a); // the changes b's sync recorded, which b scanned
    expect(a.catchUps.at(-1)).toBe('changes');
    expect(scansA).not.toHaveBeenCalled();
  });

  it('a copy read whole merges the changes recorded since; the whole copy is saved again every few changes', async () => {
    const a = instance();
    const b = instance();
    await transactions(a);
    await transactions(b);
    const copyKnowledge = () => openReplica(join(dir, replicaKey(identity(), budget)), join(dir, 'replica.key'), identity(), budget).knowledge as number;
    const saved = copyKnowledge();
    for (let i = 1; i <= COPY_EVERY; i++) {
      await write(a, `copy test ${i}`);
      await transactions(b); // a delta request: recorded in the feed
      // Not saved whole after each sync (the first change is in the feed only), but within
      // COPY_EVERY syncs (each change here makes one or two: b's, and a's before its next write).
      if (i === 1) expect(copyKnowledge()).toBe(saved);
      if (i === COPY_EVERY) expect(copyKnowledge()).toBeGreaterThan(saved);
      // An instance that never held the budget: the saved copy and the changes since, no request.
      const c = instance();
      expect(content(await transactions(c))).toBe(content(await transactions(b)));
      expect(c.requests).toEqual([]);
    }
  });

  it('a feed that cannot be read: one delta request, and the next sync writes a new one', async () => {
    const a = instance();
    const b = instance();
    await transactions(a);
    await transactions(b);
    await write(a, 'feed test 2');
    await transactions(b); // syncs and records the change
    writeFileSync(join(dir, replicaFeedKey(identity(), budget)), 'not a feed');
    const before = a.requests.length;
    const fromA = await transactions(a);
    expect(a.requests.length - before).toBe(1);
    expect(content(fromA)).toContain('feed test 2');
    const c = instance();
    expect(content(await transactions(c))).toBe(content(fromA));
    expect(c.requests).toEqual([]);
  });
});

describe('the feed', () => {
  const delta = (id: string, n = 0) => ({ id, name: 'B', accounts: [], memo: 'x'.repeat(n) }) as never;

  it('starts over at a full export, grows by deltas, and never moves back', () => {
    let feed = nextFeed(undefined, { to: 10, at: 1, delta: delta('b') });
    expect(feed).toEqual({ knowledge: 10, syncedAt: 1, entries: [] });
    feed = nextFeed(feed, { from: 10, to: 12, at: 2, delta: delta('b') });
    feed = nextFeed(feed, { from: 12, to: 12, at: 3, delta: delta('b') }); // nothing new: only the time moves
    expect(feed).toMatchObject({ knowledge: 12, syncedAt: 3 });
    expect(feed.entries.map((e) => [e.from, e.to])).toEqual([[10, 12]]);
    const behind = nextFeed(feed, { from: 8, to: 11, at: 4, delta: delta('b') });
    expect(behind).toMatchObject({ knowledge: 12, syncedAt: 3 });
  });

  it(`keeps at most ${FEED_MAX_ENTRIES} entries and ${FEED_MAX_BYTES} bytes, dropping the oldest`, () => {
    let feed: Feed = nextFeed(undefined, { to: 0, at: 0, delta: delta('b') });
    for (let k = 0; k < FEED_MAX_ENTRIES + 5; k++) feed = nextFeed(feed, { from: k, to: k + 1, at: k, delta: delta('b') });
    expect(feed.entries).toHaveLength(FEED_MAX_ENTRIES);
    expect(feed.entries[0]!.from).toBe(5);
    feed = nextFeed(feed, { from: feed.knowledge, to: feed.knowledge + 1, at: 99, delta: delta('b', FEED_MAX_BYTES / 2) });
    feed = nextFeed(feed, { from: feed.knowledge, to: feed.knowledge + 1, at: 100, delta: delta('b', FEED_MAX_BYTES / 2) });
    expect(JSON.stringify(feed.entries).length).toBeLessThanOrEqual(FEED_MAX_BYTES + 100);
    expect(feed.entries).toHaveLength(1);
    // An entry larger than the bound alone is not kept: copies behind it are read whole.
    feed = nextFeed(feed, { from: feed.knowledge, to: feed.knowledge + 1, at: 101, delta: delta('b', FEED_MAX_BYTES) });
    expect(feed.entries).toHaveLength(0);
  });

  it(`the whole copy is due when its knowledge is unknown, the entries do not reach it, or ${COPY_EVERY} changes are past it`, () => {
    let feed: Feed = nextFeed(undefined, { to: 10, at: 0, delta: delta('b') });
    expect(copyDue(feed)).toBe(true);
    feed.copy = 10;
    for (let k = 10; k < 10 + COPY_EVERY - 1; k++) feed = nextFeed(feed, { from: k, to: k + 1, at: k, delta: delta('b') });
    expect(copyDue(feed)).toBe(false);
    expect(copyDue(nextFeed(feed, { from: feed.knowledge, to: feed.knowledge + 1, at: 0, delta: delta('b') }))).toBe(true);
    expect(copyDue({ ...feed, entries: feed.entries.slice(1) })).toBe(true);
  });

  it('a copy the entries do not reach is left as it was', () => {
    const r = new BudgetReplica({ id: 'b', name: 'B', last_modified_on: null, first_month: null, last_month: null, date_format: null, currency_format: null });
    r.knowledge = 5;
    r.syncedAt = 50;
    const feed: Feed = { knowledge: 9, syncedAt: 90, entries: [{ from: 7, to: 9, at: 90, delta: delta('b') }] };
    expect(catchUp(r, feed)).toBe(false);
    expect([r.knowledge, r.syncedAt, r.version]).toEqual([5, 50, 0]);
    feed.entries.unshift({ from: 4, to: 7, at: 70, delta: delta('b') });
    expect(catchUp(r, feed)).toBe(true);
    expect([r.knowledge, r.syncedAt]).toEqual([9, 90]);
  });
});
