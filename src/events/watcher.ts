/**
 * The interval watcher: each watched budget's copy is synced by delta once per interval (default
 * 15 minutes, at least 5), so its alerts fire without anyone asking; the sync runs detection like
 * every other (stack.ts: onSynced). A budget is watched while anyone listens to it: a live webhook
 * subscription (in the store, so any instance), an open events stream or a resources/subscribe on
 * its alerts resource (in this process). What it costs:
 *  - nothing while other syncs keep the copy younger than the interval (an interactive call's sync
 *    is the watcher's too: the copy is not due);
 *  - its requests are counted in the token's ledger and held to their share of the hour
 *    (src/quota/watch-share.ts): once the share is used up, the budget waits for the next interval
 *    (`share` in the status and the metrics), and interactive calls keep the rest of the hour;
 *  - one instance (or process) at a time watches a budget, under its lease (watcher-lease.ts),
 *    and a budget is due an interval after its last sync as the lease's record in the store keeps
 *    it (or this process's copy, when newer): a new holder never syncs it again early.
 * The loop (watcher-loop.ts) ticks a few times per interval; a tick syncs only what is due. Hosted
 * mode's watch jobs (src/hosted/watchers.ts) run one pass, then `nextDue` says when to come back.
 */
import type { WatchRoom } from '../quota/watch-share.js';
import type { WatchLease } from './watcher-lease.js';

/** What a tick did with one budget. */
export type WatchOutcome = 'synced' | 'fresh' | 'elsewhere' | 'share' | 'failed';

export interface WatcherOptions {
  intervalMs: number;
  /** A budget due within this long is synced now rather than a tick late (half a tick): one sync per interval on average. */
  earlyMs?: number;
  /** How soon a budget another holds, or one that waits for the share or failed, is looked at again (default: a tick, twice earlyMs). */
  retryMs?: number;
  /** The budgets someone listens to (ids). */
  watched: () => Promise<string[]>;
  lease: WatchLease;
  /** The watcher's requests this hour and its cap. */
  room: () => Promise<WatchRoom>;
  /** When this process's copy of the budget was last synced (ms), without syncing; undefined if it holds none. */
  syncedAt: (budgetId: string) => number | undefined;
  /** Syncs the budget's copy, as the watcher (its requests count against its share). */
  sync: (budgetId: string) => Promise<void>;
  now?: () => number;
  /** Each watcher sync's delay behind its due time (the copy's last sync plus the interval), in seconds. */
  onLag?: (seconds: number) => void;
  /** A due budget that waits for the next interval because the watcher's share of the hour is used up. */
  onSkip?: (reason: 'share') => void;
  log?: (line: string) => void;
}

export interface WatchStatus {
  interval_minutes: number;
  watched: number;
  last_tick_at: string | null;
  /** By budget id, what the last tick did. */
  last: Record<string, WatchOutcome>;
  /** Due syncs put off to the next interval because the share was used up, since start. */
  skipped_for_share: number;
  share: { used: number; cap: number } | null;
}

export class BudgetWatcher {
  private readonly now: () => number;
  private readonly held = new Set<string>();
  /** When each budget of the last pass is next due (epoch ms). */
  private due = new Map<string, number>();
  private last: Record<string, WatchOutcome> = {};
  private lastTickAt: number | null = null;
  private skipped = 0;
  private lastRoom: WatchRoom | null = null;
  private closed = false;
  private ticking: Promise<void> | undefined;

  constructor(private readonly opts: WatcherOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** One pass over the watched budgets: renew or take their leases, sync those due. One at a time. */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.ticking ??= this.pass().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async pass(): Promise<void> {
    const budgets = await this.opts.watched().catch(() => [] as string[]);
    const last: Record<string, WatchOutcome> = {};
    const due = new Map<string, number>();
    for (const id of budgets) {
      if (this.closed) return;
      last[id] = await this.watch(id, due).catch((e: unknown) => {
        this.opts.log?.(`events: the watcher could not sync a budget: ${(e as Error).message}`);
        return 'failed' as const;
      });
      if (!due.has(id)) due.set(id, this.now() + this.retryMs);
    }
    this.due = due;
    for (const id of [...this.held].filter((b) => !budgets.includes(b))) await this.letGo(id);
    this.last = last;
    this.lastTickAt = this.now();
  }

  private get retryMs(): number {
    return this.opts.retryMs ?? 2 * (this.opts.earlyMs ?? 0);
  }

  /** The last sync as the store's lease record or this process's copy knows it, whichever is later. */
  private lastSync(id: string, stored: number | undefined): number {
    return Math.max(stored ?? -Infinity, this.opts.syncedAt(id) ?? -Infinity);
  }

  /** `dueAt` is told when the budget is next due, once that is known. */
  private async watch(id: string, dueAt: Map<string, number>): Promise<WatchOutcome> {
    const lease = await this.opts.lease.take(id);
    if (!lease.taken) {
      this.held.delete(id);
      // Its holder syncs it; looked at again once due, or a tick from now if that holder is gone by then.
      dueAt.set(id, Math.max(this.now() + this.retryMs, (lease.synced ?? -Infinity) + this.opts.intervalMs));
      return 'elsewhere';
    }
    this.held.add(id);
    const due = this.lastSync(id, lease.synced) + this.opts.intervalMs;
    if (due > this.now() + (this.opts.earlyMs ?? 0)) {
      dueAt.set(id, due);
      return 'fresh';
    }
    this.lastRoom = await this.opts.room();
    if (this.lastRoom.used >= this.lastRoom.cap) {
      this.skipped += 1;
      this.opts.onSkip?.('share');
      return 'share';
    }
    const started = this.now();
    await this.opts.sync(id);
    const synced = this.opts.syncedAt(id);
    // A copy the sync did not move (refused, or no request possible) is not a watcher sync.
    if (synced === undefined || synced + this.opts.intervalMs <= started) return 'failed';
    // Kept in the store at once: whoever holds the budget next knows it was synced.
    await this.opts.lease.take(id, synced);
    dueAt.set(id, synced + this.opts.intervalMs);
    if (Number.isFinite(due)) this.opts.onLag?.(Math.max(0, started - due) / 1000);
    return 'synced';
  }

  /** When the earliest budget of the last pass is next due (epoch ms); undefined when it watched none. */
  nextDue(): number | undefined {
    return this.due.size ? Math.min(...this.due.values()) : undefined;
  }

  private async letGo(id: string): Promise<void> {
    this.held.delete(id);
    await this.opts.lease.release(id).catch(() => undefined);
  }

  status(): WatchStatus {
    return {
      interval_minutes: this.opts.intervalMs / 60_000,
      watched: Object.keys(this.last).length,
      last_tick_at: this.lastTickAt === null ? null : new Date(this.lastTickAt).toISOString(),
      last: { ...this.last },
      skipped_for_share: this.skipped,
      share: this.lastRoom && { used: this.lastRoom.used, cap: this.lastRoom.cap },
    };
  }

  /** Stops watching: a tick under way ends before anything more is written, and the leases are let go. */
  async close(): Promise<void> {
    this.closed = true;
    await this.ticking?.catch(() => undefined);
    await Promise.all([...this.held].map((id) => this.letGo(id)));
  }
}
