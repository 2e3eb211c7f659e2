/**
 * One watcher at a time per budget: a lease in the state store (`events/<identity>/<budget>.watch`,
 * in the user's key family, so a Redis Cluster keeps it in the user's slot). Taking it is one
 * atomic update (Redis: a compare-and-set; files: the file store's lock): it is taken when absent,
 * lapsed, or already this holder's, and renewed at each of the holder's ticks. The lease is
 * shorter than the interval and renewed more often than it lasts, so a holder that crashed loses
 * its budgets within the lease and another instance syncs them within one interval.
 *
 * The record also keeps when the budget was last synced by a watcher (`synced`, epoch ms), and
 * outlives the lease (the key lasts two intervals): whoever takes the budget next (another
 * instance, or a later watch of this one) knows when it is due, so a budget is never synced again
 * early because its last holder let go, stood down or died. Nothing of the budget is in it: the
 * holder's random id, the lapse time and that time.
 */
import { segment } from '../storage/keys.js';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';

interface LeaseRecord {
  holder: string;
  until: number;
  synced?: number;
}

/** What taking a lease found: whether this holder has it now, and the budget's last watcher sync as the store knows it. */
export interface Taken {
  taken: boolean;
  synced?: number;
}

export const leaseKey = (identity: string, budgetId: string): string => `events/${segment(identity)}/${segment(budgetId)}.watch`;

const later = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

export class WatchLease {
  constructor(
    private readonly store: StateStore,
    private readonly identity: () => Promise<string>,
    /** This process's (instance's) random name. */
    readonly holder: string,
    readonly leaseMs: number,
    private readonly now: () => number = Date.now,
    /** How long the record (and the last sync it keeps) outlives its last write: default four leases (two intervals). */
    readonly keepMs: number = 4 * leaseMs,
  ) {}

  /**
   * Takes or renews the budget's lease, recording `synced` (a sync this holder just made) when
   * given; not taken when another holder's lease is live. Either way, the last sync the store knows.
   */
  async take(budgetId: string, synced?: number): Promise<Taken> {
    const key = leaseKey(await this.identity(), budgetId);
    return this.store.update<Taken>(
      key,
      (bytes) => {
        const now = this.now();
        const was = parseJsonBytes(bytes) as LeaseRecord | undefined;
        if (was && was.holder !== this.holder && was.until > now) return { value: undefined, result: { taken: false, synced: was.synced } };
        const next: LeaseRecord = { holder: this.holder, until: now + this.leaseMs, synced: later(was?.synced, synced) };
        return { value: jsonBytes(next), result: { taken: true, synced: next.synced } };
      },
      { ttlMs: this.keepMs },
    );
  }

  /**
   * Lets the budget go (a watch done, a watcher closing): another instance may take it at its next
   * tick, not a lease later. The last sync stays in the record, so it does not sync early.
   */
  async release(budgetId: string): Promise<void> {
    const key = leaseKey(await this.identity(), budgetId);
    await this.store.update(
      key,
      (bytes) => {
        const was = parseJsonBytes(bytes) as LeaseRecord | undefined;
        if (was?.holder !== this.holder) return { value: undefined, result: undefined };
        return { value: was.synced === undefined ? null : jsonBytes({ ...was, until: 0 }), result: undefined };
      },
      { ttlMs: this.keepMs },
    );
  }
}
