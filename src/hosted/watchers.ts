/**
 * Hosted mode's interval watcher across users: a user with webhook subscriptions is watched even
 * when none of their clients is connected, however many such users there are, and apart from the
 * LRU of interactive states (users.ts), which can neither evict a watch mid-sync nor be filled by
 * watching.
 *
 * Every instance runs this loop. Each tick (a quarter interval, at most 20 s) it lists the users
 * with subscriptions in the store, reads when each is due (watch-schedule.ts: one small record per
 * user), and takes the due ones oldest first, a few at a time (WATCH_JOBS). A watch job claims the
 * user (one instance at a time), opens a short-lived state of their own (users.watchState: their
 * stored YNAB grant and copies; the instance's replica cache still serves a copy it holds), runs
 * one pass of its watcher (src/events/watcher.ts: each budget's lease taken, synced if an interval
 * has passed since its last sync as the store keeps it, the sync recorded there), lets the leases
 * go, writes when the user is next due, and closes the state once the sync's detection and
 * webhook deliveries have ended. So the work is shared by the instances that have time for it, an
 * instance that dies mid-job loses its claim within half an interval, and a budget is synced once
 * per interval whichever instance does it.
 */
import { randomBytes } from 'node:crypto';
import { leaseOf, startWatchLoop, tickOf, type WatchLoop } from '../events/watcher-loop.js';
import type { ServerState } from '../mcp/state/state.js';
import type { StateStore } from '../storage/store.js';
import type { HostedUsers } from './users.js';
import { subsFingerprint, WatchSchedule } from './watch-schedule.js';

const WEBHOOKS = /^events\/([^/]+)\/webhooks\/([^/]+)\.sub$/;

/** Watch jobs one instance runs at once: a job mostly waits for YNAB and Redis (at 4, 1,000 watched budgets on three instances waited a tick more: bench/RESULTS.md). */
export const WATCH_JOBS = 16;

interface Due {
  identity: string;
  subs: string;
  at: number;
}

export function watchUsers(store: StateStore, users: HostedUsers, intervalMs: number, log: (line: string) => void): WatchLoop {
  const tick = tickOf(intervalMs);
  const schedule = new WatchSchedule(store, randomBytes(9).toString('base64url'), leaseOf(intervalMs), 2 * intervalMs, tick / 2);
  // States whose job is done, closing once their detection and deliveries have ended.
  const closing = new Set<ServerState>();
  const retire = (state: ServerState) => {
    closing.add(state);
    void state
      .started()
      .then((stack) => stack?.settled())
      .then(() => state.close())
      .catch(() => undefined)
      .finally(() => closing.delete(state));
  };

  const job = async (u: Due): Promise<void> => {
    if (!(await schedule.claim(u.identity, u.subs))) return; // another instance has it, or it was just done
    let next = Date.now() + tick;
    let state: ServerState | undefined;
    try {
      state = await users.watchState(u.identity);
      if (!state)
        next = Date.now() + intervalMs; // no YNAB grant any more: their subscriptions wait for a sign-in
      else {
        const { watcher } = await state.ready();
        await watcher.tick();
        next = watcher.nextDue() ?? Date.now() + intervalMs;
        // The leases go now (the last syncs stay in the store): the next job may be any instance's.
        await watcher.close();
      }
    } catch (e) {
      // The kind of failure only: a sign-in's error may quote what YNAB answered.
      log(`events: a watch job could not start a user's state (${(e as Error).name}); it tries again at the next tick`);
    } finally {
      await schedule.finish(u.identity, u.subs, next).catch(() => undefined);
      if (state) retire(state);
    }
  };

  const loop = startWatchLoop(tick, async () => {
    const subs = new Map<string, string[]>();
    for (const key of await store.list('events/')) {
      const m = WEBHOOKS.exec(key);
      if (m) (subs.get(m[1]!) ?? subs.set(m[1]!, []).get(m[1]!)!).push(m[2]!);
    }
    const found = await Promise.all(
      [...subs].map(async ([identity, ids]) => {
        const fingerprint = subsFingerprint(ids);
        const at = await schedule.dueAt(identity, fingerprint).catch(() => undefined);
        return at === undefined ? [] : [{ identity, subs: fingerprint, at }];
      }),
    );
    // Oldest due first, so a backlog delays everyone a little rather than some for good.
    const due = found.flat().sort((a, b) => a.at - b.at);
    let next = 0;
    await Promise.all(
      Array.from({ length: WATCH_JOBS }, async () => {
        while (next < due.length) await job(due[next++]!);
      }),
    );
  });

  return {
    async stop() {
      await loop.stop();
      await Promise.all([...closing].map((s) => s.close().catch(() => undefined)));
    },
  };
}
