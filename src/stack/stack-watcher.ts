/**
 * The stack's interval watcher (src/events/watcher.ts), and the alerts' metrics hooks, wired: the budgets with a live webhook
 * subscription or a listener in this process, this process's lease holder name, the copy's last
 * sync, and the sync itself made as the watcher (its requests count against the watcher's share of
 * the token's hour, src/quota/watch-share.ts) with the freshness the 'watch' purpose names.
 */
import { randomBytes } from 'node:crypto';
import type { EventsService } from '../events/service.js';
import { BudgetWatcher } from '../events/watcher.js';
import { DEFAULT_WATCH_INTERVAL_MS, leaseOf, startWatchLoop, tickOf, type WatchSettings } from '../events/watcher-loop.js';
import { WatchLease } from '../events/watcher-lease.js';
import type { Webhooks } from '../events/webhooks.js';
import { asWatcher, type WatchRoom } from '../quota/watch-share.js';
import type { StateStore } from '../storage/store.js';
import type { ReplicaManager } from '../sync/manager.js';
import { readFor } from '../writes/pipeline/reads.js';

/** This process's name in the leases it holds. */
const HOLDER = randomBytes(9).toString('base64url');

export interface WatcherDeps {
  settings?: WatchSettings;
  store: StateStore;
  identity: () => Promise<string>;
  replicas: ReplicaManager;
  events: EventsService;
  webhooks: Webhooks;
  room: () => Promise<WatchRoom>;
  log: (line: string) => void;
  /** The alerts' metrics hooks (hosted mode): told of each occurrence recorded and each webhook delivery attempt. */
  hooks: { onDetected?: (name: string) => void; onWebhookDelivery?: (outcome: string) => void };
}

export function watcherOf(d: WatcherDeps): { watcher: BudgetWatcher; stop(): Promise<void> } {
  const { onDetected, onWebhookDelivery } = d.hooks;
  if (onWebhookDelivery) d.webhooks.onDelivery = onWebhookDelivery;
  if (onDetected) d.events.onFired((_budget, fired) => fired.forEach((o) => onDetected(o.name)));
  const settings = d.settings ?? {};
  const intervalMs = settings.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  const watcher = new BudgetWatcher({
    intervalMs,
    earlyMs: tickOf(intervalMs) / 2,
    watched: async () => {
      const subs = settings.webhooks === false ? [] : await d.webhooks.all().catch(() => []);
      const hooked = subs.filter((s) => s.status.active).map((s) => s.budgetId);
      return [...new Set([...hooked, ...d.events.watchedHere()])];
    },
    lease: new WatchLease(d.store, d.identity, settings.holder ?? HOLDER, leaseOf(intervalMs)),
    room: d.room,
    syncedAt: (id) => d.replicas.peek(id)?.syncedAt,
    sync: (id) =>
      asWatcher(async () => {
        try {
          await readFor(d.replicas, id, 'watch');
        } catch (error) {
          // A budget this sign-in can no longer read ends its webhook subscriptions (a signed terminated envelope).
          await d.webhooks.readFailed(id, error).catch(() => false);
          throw error;
        }
      }),
    onLag: settings.onLag,
    onSkip: settings.onSkip,
    log: d.log,
  });
  const loop = settings.manual ? undefined : startWatchLoop(tickOf(intervalMs), () => watcher.tick());
  return {
    watcher,
    async stop() {
      await loop?.stop();
      await watcher.close();
    },
  };
}
