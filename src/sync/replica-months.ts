/**
 * A replica's months, which a saved copy may leave unread (persist.ts `monthsLater`): only answers
 * about a month need them, and they are a third of reading a demo copy, which hosted instances do
 * for every user they meet, a crowd's first calls all at once. Exports merged before they are read
 * are kept and merged after them, in order, so the months are what they would have been had they
 * been read at once. Unread, a copy holds the form they are read from, and, when it was saved
 * before its months were written alone (YMCPR3, persist.ts), the rows they may refer back to: a
 * demo copy 1.08 MB unread against 0.76 MB read (0.66 MB unread when written alone, the form's
 * 116 kB aside). So they are read READ_BY_MS after the copy at the latest, asked for or not, which
 * also checks the form whole, and the replica cache's estimate of a copy (replica.ts
 * approximateSize) stays what it was.
 */
import { monthsBetween } from '../api/dates.js';
import type * as E from '../api/schemas/entities.js';

/** Unread months are read this long after their copy at the latest. */
export const READ_BY_MS = 30_000;

export class ReplicaMonths {
  private readonly held = new Map<string, E.MonthDetailBase>();
  private later?: { read: () => E.MonthDetailBase[]; merges: (readonly E.MonthDetailBase[])[]; timer: NodeJS.Timeout };

  /** The months of a saved copy, read when first asked for (`read` is called once), or READ_BY_MS from now. */
  readLater(read: () => E.MonthDetailBase[]): void {
    // Weakly: a copy the cache let go of is not kept, nor read, for this.
    const self = new WeakRef(this);
    const timer = setTimeout(() => {
      try {
        void self.deref()?.map;
      } catch {
        // Not a form: said to whoever asks for them (map throws again).
      }
    }, READ_BY_MS);
    timer.unref();
    this.later = { read, merges: [], timer };
  }

  /** Whether a saved copy's months are still unread. */
  get pending(): boolean {
    return this.later !== undefined;
  }

  /** The months by month, read now if they were not yet. What cannot be read throws again at every ask (a CorruptError: manager.ts dropBroken). */
  get map(): Map<string, E.MonthDetailBase> {
    const later = this.later;
    if (later) {
      let read: E.MonthDetailBase[];
      try {
        read = later.read();
      } catch (e) {
        later.read = () => {
          throw e;
        };
        throw e;
      }
      this.later = undefined;
      clearTimeout(later.timer);
      mergeMonths(this.held, read);
      for (const months of later.merges) mergeMonths(this.held, months);
    }
    return this.held;
  }

  /** Merges an export's months (deleted ones go), after the unread ones when there are any. */
  merge(months: readonly E.MonthDetailBase[] | undefined): void {
    if (!months?.length) return;
    if (this.later) this.later.merges.push(months);
    else mergeMonths(this.held, months);
  }

  /** How many months there are, without reading unread ones: YNAB's run from first_month to last_month. */
  count(first: string | null, last: string | null): number {
    if (!this.later || !first || !last) return this.held.size;
    return Math.max(0, monthsBetween(first, last) + 1);
  }
}

function mergeMonths(into: Map<string, E.MonthDetailBase>, months: readonly E.MonthDetailBase[]): void {
  for (const m of months) {
    if (m.deleted) into.delete(m.month);
    else into.set(m.month, m);
  }
}
