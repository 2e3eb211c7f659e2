/**
 * What the alerts' checks over every transaction find (detect.ts): the review queue's
 * transactions by id (its alert counts them: unapproved in any account, tracking ones too, as
 * review_transactions has the queue, or uncategorized) and the price rises' rows. Kept per copy
 * and brought up to date after a sync from what it changed (sync/line-changes.ts), where the
 * result allows it:
 * - the queue: whether a transaction is in it depends on that transaction alone (its approval, its
 *   lines, its account), so only the transactions the sync brought are looked at again;
 * - price rises: a payee's rise depends on its own charges and name alone, so only the payees
 *   those transactions named, before or after, and the payees the sync brought are computed again
 *   (their series read from the lines).
 * Everything is computed again when the sync changed an account's kind (added, removed, on or off
 * budget, closed, its type) or the starting balances' payee (what each line is), the day or the currency moved, or more merges passed than are remembered. A sync
 * that changed no transaction reuses all of it. The other checks (overspending, targets, cards,
 * the forecast, reconciling) read the months, accounts and schedules a sync may change anywhere:
 * they run whole each scan.
 */
import { priceRow, uncategorizedOf, type AttentionContext } from '../insights/attention/attention.js';
import { uncategorizedLine } from '../insights/attention/queue.js';
import type { PriceIncrease } from '../insights/recurring/price-increase.js';
import { priceIncreasesOf, ranked } from '../insights/recurring/price-rises.js';
import type { LineChange } from '../sync/line-changes.js';
import type { BudgetReplica } from '../sync/replica.js';

type Row = Record<string, any>;

export interface OverLines {
  /**
   * Unapproved in any account. Before, budget accounts only: with one waiting in a tracking
   * account, the digest's queue_size said one number and review_transactions another.
   */
  unapproved: ReadonlySet<string>;
  uncategorized: ReadonlySet<string>;
  price_increase: Row[];
}

/** How the last scan of a copy had them: computed whole, brought up to date, or reused as they were. */
export type OverLinesPath = 'whole' | 'changed' | 'reused';

interface Kept {
  /** The day and currency they were computed at; the lines version. */
  at: string;
  linesVersion: number;
  unapproved: Set<string>;
  uncategorized: Set<string>;
  rises: Map<string, PriceIncrease>;
  rows: OverLines;
  path: OverLinesPath;
}

const kept = new WeakMap<BudgetReplica, Kept>();

/** How the last scan of `replica` had them (tests: the path a scan took). */
export const overLinesPath = (replica: BudgetReplica): OverLinesPath | undefined => kept.get(replica)?.path;

export function overLines(ctx: AttentionContext): OverLines {
  const r = ctx.view.replica;
  const at = `${ctx.today}|${r.summary.currency_format?.decimal_digits ?? ''}`;
  const had = kept.get(r);
  if (had?.at === at && had.linesVersion === r.linesVersion) return ((had.path = 'reused'), had.rows);
  const change = had?.at === at ? r.lineChanges.since(had.linesVersion, r.linesVersion) : undefined;
  const next = had && change ? changed(ctx, had, change) : whole(ctx);
  next.at = at;
  next.linesVersion = r.linesVersion;
  next.rows = { unapproved: next.unapproved, uncategorized: next.uncategorized, price_increase: ranked(next.rises).map((p) => priceRow(ctx, p)) };
  kept.set(r, next);
  return next.rows;
}

function whole(ctx: AttentionContext): Kept {
  const rises = priceIncreasesOf(ctx.view, ctx.today, ctx.includeOffBudget);
  const unapproved = new Set<string>();
  for (const t of ctx.view.replica.transactions.values()) if (!t.approved) unapproved.add(t.id);
  return {
    at: '',
    linesVersion: 0,
    unapproved,
    uncategorized: new Set(uncategorizedOf(ctx.view).transactions.map((t) => t.id)),
    rises,
    rows: { unapproved: new Set(), uncategorized: new Set(), price_increase: [] },
    path: 'whole',
  };
}

function changed(ctx: AttentionContext, had: Kept, change: LineChange): Kept {
  const { view } = ctx;
  for (const id of change.ids) {
    had.unapproved.delete(id);
    had.uncategorized.delete(id);
    const t = view.replica.transactions.get(id);
    if (!t) continue; // deleted
    if (!t.approved) had.unapproved.add(id);
    if (view.linesOfTransaction(t).some((l) => uncategorizedLine(view, l))) had.uncategorized.add(id);
  }
  if (change.payees.size) {
    for (const p of change.payees) had.rises.delete(p);
    for (const [p, rise] of priceIncreasesOf(view, ctx.today, ctx.includeOffBudget, change.payees)) had.rises.set(p, rise);
  }
  had.path = 'changed';
  return had;
}
