/**
 * The interval watcher's share of a token's hour (src/events/watcher.ts). Its requests are
 * ordinary requests, counted in the token's ledger like any other, and also in the ledger's
 * `watch` list, so that the watcher never takes more than its share (default 10 %, at most 25 %)
 * of the hour's limit: interactive calls always keep the rest. Which requests are the watcher's is
 * told by the async context its syncs run in (`asWatcher`), so the client and the replicas need no
 * flag of their own; a sync an interactive call started and the watcher joined counts as the
 * call's, costing the watcher nothing.
 */
import type { AcquireResult } from './slot.js';
import { formatNextSlot } from './format.js';
import { contextSlot } from '../shared/async-context.js';

export const DEFAULT_WATCH_SHARE = 0.1;
export const MAX_WATCH_SHARE = 0.25;

const context = contextSlot<true>('watcher');

/** Runs `fn` as the watcher: every slot it takes counts against the watcher's share. */
export function asWatcher<T>(fn: () => Promise<T>): Promise<T> {
  return context.run(true, fn);
}

export function isWatcher(): boolean {
  return context.getStore() === true;
}

/** The watcher's requests the hour may hold: its share of the limit, rounded down (at least 1). */
export function watchCap(limit: number, share: number): number {
  return Math.max(1, Math.floor(limit * share));
}

/** Checks a share given by configuration: more than 25 % is refused, saying why. */
export function checkWatchShare(share: number): number {
  if (!(share > 0) || share > MAX_WATCH_SHARE) throw new RangeError(`the watcher's share must be above 0 and at most ${MAX_WATCH_SHARE * 100} % of the hour`);
  return share;
}

/** The refusal of a watcher's slot when its share of the window is used up, else undefined. */
export function watchRefusal(watch: readonly number[], limit: number, share: number, windowMs: number, now: number): AcquireResult | undefined {
  const cap = watchCap(limit, share);
  if (watch.length < cap) return undefined;
  const nextSlotAt = new Date(watch[watch.length - cap]! + windowMs);
  return {
    ok: false,
    reason: 'watch',
    nextSlotAt,
    message: `the watcher's share of the hour (${cap} requests) is used up; ${formatNextSlot(nextSlotAt, now)}`,
  };
}

/** What the watcher may still do this hour. */
export interface WatchRoom {
  used: number;
  cap: number;
  /** When its next request fits, if none does now. */
  nextAt: Date | null;
}

export function watchRoomOf(watch: readonly number[], limit: number, share: number, windowMs: number, now: number): WatchRoom {
  const refused = watchRefusal(watch, limit, share, windowMs, now);
  return { used: watch.length, cap: watchCap(limit, share), nextAt: refused && !refused.ok ? refused.nextSlotAt : null };
}
