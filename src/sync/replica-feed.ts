/**
 * Hosted mode: what the last syncs of a budget merged, kept (sealed, bounded) next to its saved
 * copy, so that an instance holding an older copy catches up by merging those few changes instead
 * of reading and rebuilding the whole saved copy, and the whole copy need not be compressed and
 * saved after every sync. Without it every write made each instance read the user's whole copy
 * again, and the syncing one save it: together the hosted bench's latency tail.
 *
 * A feed says what knowledge the last sync reached and when, the knowledge of the saved copy, and
 * the delta exports the syncs got from YNAB, oldest first: each the service's own answer to "what
 * changed since `from`", so a copy that merges them in order is what the syncing instance had. An
 * entry whose `from` is at or before a copy's knowledge and whose `to` is after it can be merged
 * into that copy: every entity in it is as of `to`, newer than the copy's. The whole copy is saved
 * again every few changes (COPY_EVERY), or when the entries no longer reach back to it; a copy read
 * whole merges the entries since. A copy the entries do not reach syncs from YNAB, as before; a
 * feed that cannot be read is no feed. Only syncs (made under the budget's store lock) write it.
 */
import * as z from 'zod';
import type * as E from '../api/schemas/entities.js';
import type { BudgetReplica } from './replica.js';

export interface FeedEntry {
  /** The knowledge the delta was asked from, and the service's knowledge in its answer. */
  from: number;
  to: number;
  /** When it was merged (epoch ms). */
  at: number;
  delta: E.BudgetDetail;
}

export interface Feed {
  /** What the last sync reached, and when (a sync that found nothing new moves only `syncedAt`). */
  knowledge: number;
  syncedAt: number;
  entries: FeedEntry[];
  /** The knowledge of the saved copy, when known: a copy read whole catches up from there. */
  copy?: number;
}

/** A sync just made: a delta from `from`, or (no `from`) a full export, which starts the feed over. */
export interface SyncMade {
  from?: number;
  to: number;
  at: number;
  delta: E.BudgetDetail;
}

/**
 * How a shared copy was brought up to date under the budget's lock: from what another instance's
 * sync recorded (its changes merged, or none to merge: 'changes'), by reading the saved copy whole
 * ('copy'), or by a request to YNAB ('request').
 */
export type CatchUp = 'changes' | 'copy' | 'request';

/** Entries kept: enough for the changes between two reads of a busy user, small enough to read on every catch-up. */
export const FEED_MAX_ENTRIES = 32;
export const FEED_MAX_BYTES = 256 * 1024;
/**
 * The saved copy is saved again once this many changes are past it (or the entries no longer reach
 * back to it): compressing and sealing a whole budget after every sync was most of a sync's cost,
 * and a copy read whole merges the few changes since.
 */
export const COPY_EVERY = 8;

/**
 * Each entry's size as the bounds count it (its JSON's length), measured once: an entry read from a
 * saved feed comes with its size (feed-form.ts), and its delta is not decoded to measure it again.
 */
const measured = new WeakMap<FeedEntry, number>();

export function entrySize(e: FeedEntry): number {
  let n = measured.get(e);
  if (n === undefined) measured.set(e, (n = JSON.stringify(e).length));
  return n;
}

/** The size of an entry read from a saved feed, as it was measured when the entry was made. */
export function noteEntrySize(e: FeedEntry, size: number): void {
  measured.set(e, size);
}

/** The feed after `made`; the oldest entries go first when it grows past its bounds. */
export function nextFeed(previous: Feed | undefined, made: SyncMade): Feed {
  if (made.from === undefined) return { knowledge: made.to, syncedAt: made.at, entries: [], copy: previous?.copy };
  const entries =
    made.to > made.from ? [...(previous?.entries ?? []), { from: made.from, to: made.to, at: made.at, delta: made.delta }] : [...(previous?.entries ?? [])];
  const sizes = entries.map(entrySize);
  let bytes = sizes.reduce((a, b) => a + b, 0);
  while (entries.length > FEED_MAX_ENTRIES || (entries.length && bytes > FEED_MAX_BYTES)) {
    entries.shift();
    bytes -= sizes.shift()!;
  }
  // A sync that started behind the feed (its copy was older) does not move the feed back.
  const ahead = !previous || made.to >= previous.knowledge;
  return { knowledge: ahead ? made.to : previous.knowledge, syncedAt: ahead ? made.at : previous.syncedAt, entries, copy: previous?.copy };
}

/** The entries that bring a copy at knowledge `k` to the feed's, in order; undefined when they do not reach. */
function chainFrom(feed: Feed, k: number): FeedEntry[] | undefined {
  const chain: FeedEntry[] = [];
  for (const e of feed.entries) {
    if (e.from <= k && e.to > k) {
      chain.push(e);
      k = e.to;
    }
  }
  return k >= feed.knowledge ? chain : undefined;
}

/** Whether the saved copy is to be saved again with this feed (see COPY_EVERY). */
export function copyDue(feed: Feed): boolean {
  if (feed.copy === undefined) return true;
  const chain = chainFrom(feed, feed.copy);
  return chain === undefined || chain.length >= COPY_EVERY;
}

/**
 * Brings `replica` up to what the feed knows. True when it is there (or the feed knows nothing newer);
 * false, untouched, when the entries do not reach from its knowledge (the whole saved copy is needed).
 */
export function catchUp(replica: BudgetReplica, feed: Feed): boolean {
  if (feed.knowledge < replica.knowledge) return true;
  if (feed.knowledge === replica.knowledge) {
    if (!replica.dirty) replica.syncedAt = Math.max(replica.syncedAt, feed.syncedAt);
    return true;
  }
  const chain = chainFrom(feed, replica.knowledge);
  if (!chain) return false;
  // Every delta of the chain read before any is merged: an entry of a saved feed is decoded when
  // first read (feed-form.ts), and one that does not decode leaves the copy as it was.
  let deltas: E.BudgetDetail[];
  try {
    deltas = chain.map((e) => e.delta);
  } catch {
    return false;
  }
  chain.forEach((e, i) => replica.applyExport(deltas[i]!, e.to, e.at));
  replica.syncedAt = Math.max(replica.syncedAt, feed.syncedAt);
  return true;
}

const Knowledge = z.number().int().nonnegative();
/** A saved feed's own fields, and where each entry stands: shared by every saved form (feed-form.ts). */
export const FeedFields = z.object({ knowledge: Knowledge, syncedAt: z.number().int().nonnegative(), copy: Knowledge.optional() });
export const EntryFields = z.object({ from: Knowledge, to: Knowledge, at: z.number().int().nonnegative() });
const Shape = FeedFields.extend({ entries: z.array(EntryFields.extend({ delta: z.unknown() })) });

/**
 * Why `data` is not a feed of budget `budgetId` this version can merge, or null when it is. Feeds
 * are sealed with the shape of this build's schemas (persist.ts), as saved copies are: their deltas
 * are what this build's syncing instance merged and answers from itself, so, as with a copy of this
 * build's shape, they are not checked entity by entity again.
 */
export function feedProblem(data: unknown, budgetId: string): string | null {
  const parsed = Shape.safeParse(data);
  if (!parsed.success) return 'unexpected content';
  return parsed.data.entries.every((e) => (e.delta as { id?: unknown })?.id === budgetId) ? null : 'a delta of another budget';
}
