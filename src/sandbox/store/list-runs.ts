/**
 * Lists of transaction details (all, by account, by month; each also of the unapproved only)
 * answered from runs encoded a day at a time. A run is what the shared list builder answers for
 * one day of the index's list, encoded once and kept until one of that day's transactions
 * changes, arrives or leaves, or a name changes (details show account, payee and category names).
 * A list over a window is then its days' runs in date order: the bytes the builder gives for the
 * whole window, since it keeps date order and, within a day, the index's creation order.
 *
 * Why: at 100,000 transactions an account's 30 days are about 970 transactions (817 kB);
 * selecting them, looking up each one's encoded detail and writing the pieces took about 1.0 ms
 * of the service's time per answer, of which the socket's write was about 0.3. Read as 30 runs,
 * about 0.35 to 0.45 ms (A/B runs, 2026-11-23; rates in bench/RESULTS.md §Sandbox). The first
 * answer for a window encodes its days. Deltas, the uncategorized type and the hybrid lists (by
 * category, by payee, and by month in the /budgets era) are built per request as before.
 */
import { LRUCache } from 'lru-cache';
import { listTransactions, type ListStyle, type TransactionQuery, type TransactionScope } from '../../api/read/transactions.js';
import { encodeRun, JsonSegments } from '../json.js';
import type { BudgetStore } from './budget-store.js';
import * as V from './views.js';

interface Run {
  version: string;
  bytes: Buffer | null;
}

/**
 * Runs of every budget of the process, least recently used dropped first. 64 MB holds the runs of
 * a year of all transactions at 100,000 (about 25 MB) with room for a few accounts' lists.
 */
const runs = new LRUCache<string, Run>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (r) => (r.bytes?.length ?? 0) + 100 });

/** Budgets get a serial of their own: a budget loaded again (same id) never reads another's runs. */
const serials = new WeakMap<BudgetStore, number>();
let nextSerial = 0;

function serialOf(s: BudgetStore): number {
  let n = serials.get(s);
  if (n === undefined) serials.set(s, (n = nextSerial++));
  return n;
}

/** Whether a list is answered from runs: full (not delta) lists of details, of all or the unapproved. */
export function answersFromRuns(scope: TransactionScope, query: TransactionQuery, style: ListStyle, delta: boolean): boolean {
  if (delta || query.type === 'uncategorized') return false;
  return scope.kind === 'all' || scope.kind === 'account' || (scope.kind === 'month' && !style.monthAsHybrid);
}

/** The list's live transactions in `window` (already defaulted), as runs of encoded details. */
export function detailRuns(s: BudgetStore, scope: TransactionScope, window: TransactionQuery, style: ListStyle): JsonSegments {
  const l = V.lookup(s);
  const parts: Buffer[] = [];
  const prefix = `${serialOf(s)}|${scope.kind}|${window.type ?? ''}|`;
  for (const day of s.index.days(scope, window, l.uncategorizedId)) {
    const id = `${prefix}${day.key}|${day.date}`;
    const version = `${day.version}:${s.namesVersion}`;
    let run = runs.get(id);
    if (run?.version !== version) {
      const oneDay = { since_date: day.date, until_date: day.date, type: window.type };
      const source = V.transactionSource(s, (t) => !t.deleted, day.transactions());
      run = { version, bytes: encodeRun(listTransactions(l, source, oneDay, scope, s.today(), style)) };
      runs.set(id, run);
    }
    if (run.bytes) parts.push(run.bytes);
  }
  return new JsonSegments(parts);
}
