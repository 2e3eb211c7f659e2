/**
 * A budget's transactions indexed for the list endpoints, so that a filtered list reads the
 * transactions it may answer with instead of scanning all of them: one list per account, per
 * category and per payee (a split's lines count for their own category and payee), one of the
 * unapproved, and one of all, each in date order (then creation order, as the lists answer), so a
 * date window is two binary searches. Tombstones stay in the lists: deltas report them.
 *
 * Kept up to date from the transactions each write stamped (BudgetStore tells it): a few are
 * moved in place, a large batch (the demo's history) rebuilds the index. The lists hold
 * candidates; the shared list builder still applies every filter itself. A list can also be read
 * a day at a time, each day with a version that moves when that day's part of the list changes:
 * list-runs.ts keeps each day's answer encoded until then.
 *
 * It also keeps the transactions in creation order, in chunks of CHUNK, each with a version that
 * moves when one of its transactions changes: the full export is encoded chunk by chunk and
 * cached (export-segments.ts), in the order it has always had.
 */
import type { TransactionQuery, TransactionScope } from '../../api/read/transactions.js';
import type { TransactionRec } from './records.js';

const ALL = 'all';
const UNAPPROVED = 'u';
/** Transactions per export chunk, by creation sequence (sequence numbers only grow). */
export const CHUNK = 2048;

/**
 * A transaction as indexed: its date and keys when it was last indexed. The lists order entries,
 * not records, since a write changes a record (its date, say) before the index hears of it.
 */
interface Entry {
  t: TransactionRec;
  date: string;
  seq: number;
  keys: string[];
}

/** First position in `list` (in date, then creation order) not before (date, seq), from `lo` on. */
function lowerBound(list: readonly Entry[], date: string, seq: number, lo = 0): number {
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const e = list[mid]!;
    if (e.date < date || (e.date === date && e.seq < seq)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function keysOf(t: TransactionRec): string[] {
  const keys = new Set([ALL, `a:${t.account_id}`, `c:${t.category_id ?? ''}`, `p:${t.payee_id ?? ''}`]);
  for (const x of t.subtransactions) {
    keys.add(`c:${x.category_id ?? ''}`);
    keys.add(`p:${x.payee_id ?? ''}`);
  }
  if (!t.approved) keys.add(UNAPPROVED);
  return [...keys];
}

/**
 * One day of a list: its date and a version that moves whenever one of the list's transactions
 * of that day changes, arrives or leaves (or the index is rebuilt).
 */
export interface ListDay {
  /** The index list the day belongs to (one per account, category, payee; the unapproved; all). */
  key: string;
  date: string;
  version: string;
  /** The list's transactions of that day (tombstones included), in creation order. */
  transactions(): TransactionRec[];
}

const dayKey = (key: string, date: string) => `${key}\u0000${date}`;

export class TransactionIndex {
  private readonly lists = new Map<string, Entry[]>();
  private readonly entries = new Map<TransactionRec, Entry>();
  private readonly dirty = new Set<TransactionRec>();
  private built = false;
  /** Rises at each rebuild; with a chunk's own counter it versions the chunk's transactions. */
  private epoch = 0;
  private readonly chunkVersions = new Map<number, number>();
  /** Creation order, chunked. */
  private readonly byChunk = new Map<number, TransactionRec[]>();
  /** Per list and day, how many times that day's part of the list changed since the last rebuild. */
  private readonly dayVersions = new Map<string, number>();

  constructor(private readonly transactions: () => Iterable<TransactionRec>) {}

  /** Transactions a write changed or added. */
  touched(t: TransactionRec): void {
    if (this.built) this.dirty.add(t);
  }

  /**
   * The transactions a list may answer with, in date order, within the query's date window:
   * those of the scope's account, category, payee or month; the unapproved ones when the query
   * asks for them over the whole budget. `uncategorized` is the id of the Uncategorized category.
   */
  candidates(scope: TransactionScope, q: TransactionQuery, uncategorized: string | null): readonly TransactionRec[] {
    const { list, from, to } = this.window(scope, q, uncategorized);
    const out = new Array<TransactionRec>(to - from);
    for (let i = from; i < to; i++) out[i - from] = list[i]!.t;
    return out;
  }

  /** The same candidates a day at a time, in date order, each day with its version. */
  days(scope: TransactionScope, q: TransactionQuery, uncategorized: string | null): ListDay[] {
    const { key, list, from, to } = this.window(scope, q, uncategorized);
    const out: ListDay[] = [];
    for (let start = from; start < to;) {
      const date = list[start]!.date;
      const end = Math.min(to, lowerBound(list, `${date}\u0000`, -Infinity, start));
      const first = start;
      out.push({
        key,
        date,
        version: `${this.epoch}:${this.dayVersions.get(dayKey(key, date)) ?? 0}`,
        transactions: () => list.slice(first, end).map((e) => e.t),
      });
      start = end;
    }
    return out;
  }

  /** The list a scope reads and the positions of the query's date window in it. */
  private window(
    scope: TransactionScope,
    q: TransactionQuery,
    uncategorized: string | null,
  ): { key: string; list: readonly Entry[]; from: number; to: number } {
    this.sync();
    let key = ALL;
    let since = q.since_date;
    let until = q.until_date;
    switch (scope.kind) {
      case 'all':
        if (q.type === 'unapproved') key = UNAPPROVED;
        else if (q.type === 'uncategorized') key = 'c:';
        break;
      case 'account':
        key = `a:${scope.id}`;
        break;
      case 'category':
        // The Uncategorized category stands for lines without one.
        key = `c:${scope.id === uncategorized ? '' : scope.id}`;
        break;
      case 'payee':
        key = `p:${scope.id}`;
        break;
      case 'month': {
        const end = `${scope.month.slice(0, 8)}31`;
        if (since === undefined || since < scope.month) since = scope.month;
        if (until === undefined || until > end) until = end;
        if (q.type === 'unapproved') key = UNAPPROVED;
        break;
      }
    }
    const list = this.lists.get(key) ?? [];
    const from = since === undefined ? 0 : lowerBound(list, since, -Infinity);
    const to = until === undefined ? list.length : lowerBound(list, `${until}\u0000`, -Infinity);
    return { key, list, from, to };
  }

  /** The transactions (tombstones included) in creation order, by chunk, in chunk order. */
  chunks(): [number, readonly TransactionRec[]][] {
    this.sync();
    return [...this.byChunk].sort((x, y) => x[0] - y[0]);
  }

  /** Changes whenever a transaction of `chunk` changed or arrived. */
  chunkVersion(chunk: number): string {
    this.sync();
    return `${this.epoch}:${this.chunkVersions.get(chunk) ?? 0}`;
  }

  private chunkOf(t: TransactionRec): number {
    return Math.floor(t.seq / CHUNK);
  }

  private sync(): void {
    if (!this.built) return this.rebuild();
    if (!this.dirty.size) return;
    // A large batch is cheaper to sort again than to move one by one.
    if (this.dirty.size > 256 && this.dirty.size * 8 > this.entries.size) return this.rebuild();
    for (const t of this.dirty) {
      const old = this.entries.get(t);
      if (old) {
        for (const key of old.keys) {
          this.remove(key, t, old);
          this.dayChanged(key, old.date);
        }
      }
      const chunk = this.chunkOf(t);
      this.chunkVersions.set(chunk, (this.chunkVersions.get(chunk) ?? 0) + 1);
      if (!old) {
        // The newest transaction: the end of its chunk (sequence numbers only grow).
        let list = this.byChunk.get(chunk);
        if (!list) this.byChunk.set(chunk, (list = []));
        list.push(t);
      }
      const entry: Entry = { t, date: t.date, seq: t.seq, keys: keysOf(t) };
      this.entries.set(t, entry);
      for (const key of entry.keys) {
        let list = this.lists.get(key);
        if (!list) this.lists.set(key, (list = []));
        list.splice(lowerBound(list, entry.date, entry.seq), 0, entry);
        this.dayChanged(key, entry.date);
      }
    }
    this.dirty.clear();
  }

  private dayChanged(key: string, date: string): void {
    const k = dayKey(key, date);
    this.dayVersions.set(k, (this.dayVersions.get(k) ?? 0) + 1);
  }

  private remove(key: string, t: TransactionRec, at: Entry): void {
    const list = this.lists.get(key);
    if (!list) return;
    const i = lowerBound(list, at.date, at.seq);
    if (list[i]?.t === t) list.splice(i, 1);
  }

  private rebuild(): void {
    this.epoch += 1;
    this.lists.clear();
    this.dayVersions.clear();
    this.byChunk.clear();
    for (const t of this.transactions()) {
      const chunk = this.chunkOf(t);
      let list = this.byChunk.get(chunk);
      if (!list) this.byChunk.set(chunk, (list = []));
      list.push(t);
    }
    this.entries.clear();
    this.dirty.clear();
    const all = [...this.transactions()].sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : x.seq - y.seq));
    for (const t of all) {
      const entry: Entry = { t, date: t.date, seq: t.seq, keys: keysOf(t) };
      this.entries.set(t, entry);
      for (const key of entry.keys) {
        let list = this.lists.get(key);
        if (!list) this.lists.set(key, (list = []));
        list.push(entry);
      }
    }
    this.built = true;
  }
}
