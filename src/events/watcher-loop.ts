/**
 * The watcher's clock: a tick every quarter interval (at most every 20 s), so a due budget waits at
 * most that long, and a lease (half the interval) is renewed twice or more before it lapses. The
 * timer holds no process open; `stop` ends it, and a tick under way finishes first.
 */

/** The default interval and its floor (minutes are what operators set: --watch-interval). */
export const DEFAULT_WATCH_INTERVAL_MS = 15 * 60_000;
export const MIN_WATCH_INTERVAL_MS = 5 * 60_000;

export const tickOf = (intervalMs: number): number => Math.max(250, Math.min(20_000, Math.floor(intervalMs / 4)));
export const leaseOf = (intervalMs: number): number => Math.max(1_000, Math.floor(intervalMs / 2));

/** How a stack's watcher is set up (StackOptions.watch): serve's flags, hosted mode's metrics, tests' short intervals. */
export interface WatchSettings {
  /** Default 15 minutes; the flags allow 5 minutes or more (shorter only for tests). */
  intervalMs?: number;
  /** The watcher's share of the token's hour: default 0.1, at most 0.25. */
  share?: number;
  /** Names this process's leases (default: a random name per process). */
  holder?: string;
  onLag?: (seconds: number) => void;
  onSkip?: (reason: 'share') => void;
  /** No loop: the watcher ticks only when told (tests, benches, hosted mode's watch jobs). */
  manual?: boolean;
  /**
   * Whether budgets with webhook subscriptions are watched (default true). Hosted mode's
   * interactive states say false: the instance's watch jobs (src/hosted/watchers.ts) sync those,
   * and a user's interactive state watches only what its own clients listen to.
   */
  webhooks?: boolean;
}

export interface WatchLoop {
  stop(): Promise<void>;
}

/** Ticks `tick` every `everyMs` (the first after `everyMs`), one at a time, until stopped. */
export function startWatchLoop(everyMs: number, tick: () => Promise<void>): WatchLoop {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= tick()
      .catch(() => undefined)
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
