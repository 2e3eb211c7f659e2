/**
 * The full export's two big lists, `transactions` and `subtransactions`, encoded a chunk of
 * transactions at a time (in creation order, the export's order) and kept until one of the
 * chunk's transactions changes (or, for split lines, which show payee and category names, until
 * a name changes). A full export then writes ready bytes for every chunk but the few a write
 * touched: at 100,000 transactions that is most of the cost of the answer.
 */
import { encodeRun, JsonSegments } from '../json.js';
import type { BudgetStore } from './budget-store.js';
import * as V from './views.js';

interface Segment {
  version: string;
  names: number;
  transactions: Buffer | null;
  subtransactions: Buffer | null;
}

const caches = new WeakMap<BudgetStore, Map<number, Segment>>();

/** The live transactions and their split lines, as segments of encoded elements. */
export function exportSegments(s: BudgetStore): { transactions: JsonSegments; subtransactions: JsonSegments } {
  let cache = caches.get(s);
  if (!cache) caches.set(s, (cache = new Map()));
  const transactions: Buffer[] = [];
  const subtransactions: Buffer[] = [];
  const seen = new Set<number>();
  for (const [chunk, list] of s.index.chunks()) {
    seen.add(chunk);
    const version = s.index.chunkVersion(chunk);
    let seg = cache.get(chunk);
    if (!seg || seg.version !== version) {
      const live = list.filter((t) => !t.deleted);
      seg = { version, names: -1, transactions: encodeRun(live.map(V.transactionSummary)), subtransactions: null };
      cache.set(chunk, seg);
    }
    if (seg.names !== s.namesVersion) {
      seg.subtransactions = encodeRun(list.filter((t) => !t.deleted).flatMap((t) => V.subtransactions(s, t)));
      seg.names = s.namesVersion;
    }
    if (seg.transactions) transactions.push(seg.transactions);
    if (seg.subtransactions) subtransactions.push(seg.subtransactions);
  }
  for (const chunk of cache.keys()) if (!seen.has(chunk)) cache.delete(chunk);
  return { transactions: new JsonSegments(transactions), subtransactions: new JsonSegments(subtransactions) };
}
