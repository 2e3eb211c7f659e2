/**
 * A feed's saved form (src/sync/feed-form.ts, `YMCPF3`): each entry's delta compressed on its own, so
 * that a sync adding one entry packs that one and carries the others as the bytes they came with,
 * and a reader decodes an entry only when a copy merges it. Checked here: what is saved reads back
 * (through the store, sealed); the bytes of entries read are carried over verbatim and never
 * decoded to be saved again; an entry that does not decode leaves a copy as it was; what is not a
 * feed of this budget is none; and feeds of the earlier forms still open.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/storage/file-store.js';
import { replicaFeedKey } from '../../src/storage/keys.js';
import { encodeColumnar } from '../../src/sync/columnar-codec.js';
import { packFeed, unpackFeed } from '../../src/sync/feed-form.js';
import { ReplicaFiles } from '../../src/sync/persist.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { catchUp, entrySize, type Feed, nextFeed } from '../../src/sync/replica-feed.js';
import { ephemeralKey } from '../../src/sync/seal.js';
import { snapshotShape } from '../../src/sync/snapshot-check.js';

const dir = mkdtempSync(join(tmpdir(), 'feed-form-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BUDGET = '0f3c1a52-7d1e-4c55-9a7b-2b8f6f0d9e11';
const ACCOUNT = '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

/** A delta as a sync merges it: an account's new balance and the month, with categories that repeat from entry to entry. */
const delta = (n: number) =>
  ({
    id: BUDGET,
    name: 'Budget',
    accounts: [{ id: ACCOUNT, name: 'Checking', type: 'checking', on_budget: true, closed: false, balance: 100_000 - n * 1_070, deleted: false }],
    months: [
      {
        month: '2026-11-01',
        income: 0,
        budgeted: 0,
        activity: -n * 1_070,
        to_be_budgeted: 0,
        deleted: false,
        categories: Array.from({ length: 12 }, (_, c) => ({
          id: `c${c}`,
          name: `Category ${c}`,
          budgeted: 10_000,
          activity: c === 0 ? -n * 1_070 : 0,
          deleted: false,
        })),
      },
    ],
  }) as never;

/** A feed of `count` entries after a full export at knowledge 10. */
function feedOf(count: number): Feed {
  let feed = nextFeed(undefined, { to: 10, at: 1_000, delta: delta(0) });
  feed.copy = 10;
  for (let k = 0; k < count; k++) feed = nextFeed(feed, { from: 10 + k, to: 11 + k, at: 2_000 + k, delta: delta(k + 1) });
  return feed;
}

const replicaAt = (knowledge: number) => {
  const r = new BudgetReplica({
    id: BUDGET,
    name: 'Budget',
    last_modified_on: null,
    first_month: null,
    last_month: null,
    date_format: null,
    currency_format: null,
  });
  r.knowledge = knowledge;
  r.syncedAt = 1_000;
  return r;
};

/** The plain bytes of a feed whose header is `header` and whose entries are `bodies`, laid out as feed-form.ts writes them. */
function laidOut(header: object, bodies: Buffer[]): Buffer {
  const head = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, ...bodies]);
}

describe("a feed's saved form", () => {
  it('reads back what was saved, through the store and its seal, entry by entry', async () => {
    const files = new ReplicaFiles(new FileStateStore(dir), ephemeralKey());
    const feed = feedOf(3);
    await files.saveFeed('me', BUDGET, feed);
    const read = (await files.loadFeed('me', BUDGET))!;
    expect(read).toMatchObject({ knowledge: feed.knowledge, syncedAt: feed.syncedAt, copy: 10 });
    expect(read.entries.map((e) => [e.from, e.to, e.at])).toEqual(feed.entries.map((e) => [e.from, e.to, e.at]));
    expect(JSON.stringify(read.entries.map((e) => e.delta))).toBe(JSON.stringify(feed.entries.map((e) => e.delta)));
    // The bounds count an entry read back as they counted it when it was made.
    expect(read.entries.map(entrySize)).toEqual(feed.entries.map(entrySize));
    // Merged from the read feed, a copy comes out as merged from the feed that was saved.
    const [a, b] = [replicaAt(10), replicaAt(10)];
    expect(catchUp(a, read)).toBe(true);
    expect(catchUp(b, feed)).toBe(true);
    expect(a.knowledge).toBe(13);
    expect(JSON.stringify(a.snapshot())).toBe(JSON.stringify(b.snapshot()));
  });

  it('a feed saved again carries the entries it read as the bytes they came with, without decoding them', async () => {
    const first = await packFeed(feedOf(4));
    const read = unpackFeed(first, BUDGET)!;
    const grown = nextFeed(read, { from: read.knowledge, to: read.knowledge + 1, at: 9_000, delta: delta(9) });
    const again = await packFeed(grown);
    const entriesOf = (plain: Buffer) => plain.subarray(4 + plain.readUInt32BE(0));
    // The four entries' bytes, verbatim, then the new one's.
    expect(entriesOf(again).subarray(0, entriesOf(first).length).equals(entriesOf(first))).toBe(true);
    expect(entriesOf(again).length).toBeGreaterThan(entriesOf(first).length);

    // Entries whose bytes do not decode are still carried (so none was decoded to be saved), and a
    // copy that would merge them is left as it was: it is then read whole, or synced.
    const header = { knowledge: 12, syncedAt: 3_000, entries: [10, 11].map((from) => ({ from, to: from + 1, at: 3_000, size: 40, budget: BUDGET, bytes: 5 })) };
    const broken = unpackFeed(laidOut(header, [Buffer.from('nope!'), Buffer.from('nada!')]), BUDGET)!;
    const carried = await packFeed(nextFeed(broken, { from: 12, to: 13, at: 4_000, delta: delta(1) }));
    expect(entriesOf(carried).subarray(0, 10).toString()).toBe('nope!nada!');
    const r = replicaAt(10);
    expect(catchUp(r, broken)).toBe(false);
    expect([r.knowledge, r.version]).toEqual([10, 0]);
  });

  it('what is not a whole feed of this budget is no feed', async () => {
    const plain = await packFeed(feedOf(2));
    expect(unpackFeed(plain, BUDGET)).toBeDefined();
    expect(unpackFeed(plain, 'another-budget')).toBeUndefined();
    expect(unpackFeed(plain.subarray(0, plain.length - 1), BUDGET)).toBeUndefined();
    expect(unpackFeed(Buffer.concat([plain, Buffer.from([0])]), BUDGET)).toBeUndefined();
    expect(unpackFeed(plain.subarray(0, 3), BUDGET)).toBeUndefined();
    const header = { knowledge: 1, syncedAt: 1, entries: [{ from: 0, to: 1, at: 1, size: 1, budget: BUDGET, bytes: -1 }] };
    expect(unpackFeed(laidOut(header, []), BUDGET)).toBeUndefined();
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{x}')]);
    expect(unpackFeed(notJson, BUDGET)).toBeUndefined();
  });

  it('a feed of the earlier forms (YMCPF2: the whole feed in one columnar form) still opens', async () => {
    const keys = ephemeralKey();
    const store = new FileStateStore(dir);
    const files = new ReplicaFiles(store, keys);
    const feed = feedOf(2);
    const magic = Buffer.from('YMCPF2\n');
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', await keys.key(), iv);
    c.setAAD(Buffer.from(`old/${BUDGET}/feed/${snapshotShape()}`));
    const body = Buffer.concat([c.update(brotliCompressSync(encodeColumnar(JSON.parse(JSON.stringify(feed))))), c.final()]);
    await store.set(replicaFeedKey('old', BUDGET), Buffer.concat([magic, iv, c.getAuthTag(), body]));
    const read = (await files.loadFeed('old', BUDGET))!;
    expect(read.knowledge).toBe(feed.knowledge);
    expect(JSON.stringify(read.entries)).toBe(JSON.stringify(feed.entries));
  });
});
