/**
 * Hosted mode's interval watcher across users: a user with webhook subscriptions is watched even
 * when none of their clients is connected. Each tick lists the users that have subscriptions in
 * Redis and makes sure this instance holds their state with its stack started: the stack's own
 * watcher (src/events/watcher.ts) then takes the leases it can and syncs what is due. Which
 * instance watches a budget is the lease's business, so every instance runs this.
 */
import { startWatchLoop, tickOf, type WatchLoop } from '../events/watcher-loop.js';
import type { StateStore } from '../storage/store.js';
import type { HostedUsers } from './users.js';

const WEBHOOKS = /^events\/([^/]+)\/webhooks\//;

export function watchUsers(store: StateStore, users: HostedUsers, intervalMs: number, log: (line: string) => void): WatchLoop {
  return startWatchLoop(tickOf(intervalMs), async () => {
    const identities = new Set<string>();
    for (const key of await store.list('events/')) {
      const m = WEBHOOKS.exec(key);
      if (m) identities.add(m[1]!);
    }
    for (const identity of identities) {
      try {
        const state = await users.stateOfIdentity(identity);
        await state?.ready();
      } catch (e) {
        // The kind of failure only: a sign-in's error may quote what YNAB answered.
        log(`events: the watcher could not start a user's state (${(e as Error).name}); it tries again at the next tick`);
      }
    }
  });
}
