/**
 * One watcher at a time per budget: a lease in the state store (`events/<identity>/<budget>.watch`,
 * in the user's key family, so a Redis Cluster keeps it in the user's slot). Taking it is one
 * atomic update with a ttl (Redis: a compare-and-set SET with PX; files: the file store's lock):
 * it is taken when absent, lapsed, or already this holder's, and renewed at each of the holder's
 * ticks. The lease is shorter than the interval and renewed more often than it lasts, so a holder
 * that crashed loses its budgets within the lease and another instance syncs them within one
 * interval. Nothing of the budget is in it: the holder's random id and the lapse time.
 */
import { segment } from '../storage/keys.js';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';

interface LeaseRecord {
  holder: string;
  until: number;
}

export const leaseKey = (identity: string, budgetId: string): string => `events/${segment(identity)}/${segment(budgetId)}.watch`;

export class WatchLease {
  constructor(
    private readonly store: StateStore,
    private readonly identity: () => Promise<string>,
    /** This process's (instance's) random name. */
    readonly holder: string,
    readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes or renews the budget's lease; false when another holder's lease is live. */
  async take(budgetId: string): Promise<boolean> {
    const key = leaseKey(await this.identity(), budgetId);
    return this.store.update(
      key,
      (bytes) => {
        const now = this.now();
        const was = parseJsonBytes(bytes) as LeaseRecord | undefined;
        if (was && was.holder !== this.holder && was.until > now) return { value: undefined, result: false };
        return { value: jsonBytes({ holder: this.holder, until: now + this.leaseMs }), result: true };
      },
      { ttlMs: this.leaseMs },
    );
  }

  /** Lets the budget go (on close): another instance takes it at its next tick, not a lease later. */
  async release(budgetId: string): Promise<void> {
    const key = leaseKey(await this.identity(), budgetId);
    await this.store.update(key, (bytes) => {
      const was = parseJsonBytes(bytes) as LeaseRecord | undefined;
      return { value: was?.holder === this.holder ? null : undefined, result: undefined };
    });
  }
}
