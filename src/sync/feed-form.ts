/**
 * A feed as it is saved (`YMCPF3`, inside the seal: persist.ts): a header in JSON, then each
 * entry's delta compressed on its own. Why: packed as one value (`YMCPF2`), a feed of up to
 * FEED_MAX_ENTRIES was encoded and compressed whole again by every sync that added one entry, and
 * decoded whole by every instance that caught up from it. A demo budget's delta after a write is
 * about 30 kB (the month comes with all its categories), so with eight entries a write spent about
 * 6 of its 48 ms of CPU sealing them again (bench/RESULTS.md, hosted history). Here an entry is
 * compressed once, by the sync that made it, and carried as bytes from then on; a reader decodes an
 * entry only when a copy merges it (replica-feed.ts catchUp).
 * An entry is its delta's JSON, brotli'd (ENTRY_QUALITY), not the columnar form of saved copies
 * (saved-form.ts): for such a delta that form saved a tenth of the bytes (3.6 kB against 4.0 kB)
 * for three times the CPU each way (2.3 ms to pack and 0.7 ms to read, against 0.7 and 0.23 ms).
 * Its gains are a whole budget's thousands of rows and ids; a feed keeps no entry over
 * FEED_MAX_BYTES of JSON.
 * Layout: the header's length (4 bytes, big-endian), the header, then the entries' bytes in
 * order. The header has the feed's own fields and, per entry, `from`, `to`, `at`, the entry's size
 * as nextFeed bounds it, the budget its delta is of, and the length of its bytes.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as z from 'zod';
import type * as E from '../api/schemas/entities.js';
import { EntryFields, type Feed, type FeedEntry, FeedFields, entrySize, noteEntrySize } from './replica-feed.js';

/** brotli's quality for an entry, as the occurrence log's (events/log.ts): 4 to 6 cost about the same for a demo write's delta (0.63-0.71 ms, 4.3-3.9 kB). */
const ENTRY_QUALITY = 5;
/** An entry is refused past this inflated (a feed keeps none over FEED_MAX_BYTES). */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024;

const packEntry = (delta: E.BudgetDetail): Uint8Array => {
  const json = Buffer.from(JSON.stringify(delta));
  return brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: ENTRY_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });
};
const readEntry = (packed: Uint8Array): E.BudgetDetail =>
  JSON.parse(brotliDecompressSync(packed, { maxOutputLength: MAX_ENTRY_BYTES }).toString('utf8')) as E.BudgetDetail;

/** What an entry read from a saved feed was packed as, kept so that saving the feed again does not pack it again. */
const packedOf = new WeakMap<FeedEntry, { packed: Uint8Array; budget: string }>();

const Header = FeedFields.extend({
  entries: z.array(EntryFields.extend({ size: z.number().int().nonnegative(), budget: z.string(), bytes: z.number().int().nonnegative() })),
});
type Header = z.infer<typeof Header>;

/** The feed's plain bytes to seal: entries read from a saved feed keep the bytes they came with. */
export function packFeed(feed: Feed): Buffer {
  const packs = feed.entries.map((e) => packedOf.get(e) ?? { packed: packEntry(e.delta), budget: String((e.delta as { id?: unknown }).id) });
  const header: Header = {
    knowledge: feed.knowledge,
    syncedAt: feed.syncedAt,
    ...(feed.copy === undefined ? {} : { copy: feed.copy }),
    entries: feed.entries.map((e, i) => ({ from: e.from, to: e.to, at: e.at, size: entrySize(e), budget: packs[i]!.budget, bytes: packs[i]!.packed.length })),
  };
  const head = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length);
  return Buffer.concat([length, head, ...packs.map((p) => p.packed)]);
}

/**
 * The feed of budget `budgetId` from its plain bytes; undefined when they are not one, or an entry
 * is another budget's (syncs under two names of one budget can race to write a feed: persist.ts).
 * Each entry's delta is decoded when first read.
 */
export function unpackFeed(plain: Buffer, budgetId: string): Feed | undefined {
  if (plain.length < 4) return undefined;
  const headLength = plain.readUInt32BE(0);
  if (4 + headLength > plain.length) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(plain.subarray(4, 4 + headLength).toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = Header.safeParse(head);
  if (!parsed.success) return undefined;
  const h = parsed.data;
  if (!h.entries.every((e) => e.budget === budgetId)) return undefined;
  if (4 + headLength + h.entries.reduce((n, e) => n + e.bytes, 0) !== plain.length) return undefined;
  let at = 4 + headLength;
  const entries = h.entries.map((e) => {
    const packed = plain.subarray(at, (at += e.bytes));
    let delta: E.BudgetDetail | undefined;
    const entry = { from: e.from, to: e.to, at: e.at } as FeedEntry;
    Object.defineProperty(entry, 'delta', { enumerable: true, get: () => (delta ??= readEntry(packed)) });
    packedOf.set(entry, { packed, budget: e.budget });
    noteEntrySize(entry, e.size);
    return entry;
  });
  return { knowledge: h.knowledge, syncedAt: h.syncedAt, entries, ...(h.copy === undefined ? {} : { copy: h.copy }) };
}
