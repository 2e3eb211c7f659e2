// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted watch jobs' bookkeeping in a real redis-server, as two instances see it (two stores on
 * one Redis): the per-user schedule (src/hosted/watch-schedule.ts) lets one instance at a time run
 * a user's job, only when due, at once when their subscriptions change, and again after a crashed
 * claim lapses; the budget's lease record (src/events/watcher-lease.ts) keeps the last sync after
 * the lease is let go, so the next holder knows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchLease } from '../../src/events/watcher-lease.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { subsFingerprint, WatchSchedule } from '../../src/hosted/watch-schedule.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

let redis: RunningRedis;
let a: RedisStateStore;
let b: RedisStateStore;
let clock = 1_000_000;
const now = () => clock;

beforeAll(async () => {
  redis = await startRedis();
  a = await RedisStateStore.connect(redis.url, { log: () => {} });
  b = await RedisStateStore.connect(redis.url, { log: () => {} });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

describe("a watched user's schedule", () => {
  it('is claimed by one instance at a time, only when due, at once when the subscriptions change, and again once a claim lapses', async () => {
    // Claims last 30 s, records 120 s, a user due within 5 s is due.
    const one = new WatchSchedule(a, 'one', 30_000, 120_000, 5_000, now);
    const two = new WatchSchedule(b, 'two', 30_000, 120_000, 5_000, now);
    const subs = subsFingerprint(['sub_b', 'sub_a']);
    expect(subsFingerprint(['sub_a', 'sub_b'])).toBe(subs);

    // Never watched: due at once; the first claim wins, the other instance leaves the user.
    expect(await one.dueAt('u1', subs)).toBe(0);
    expect(await one.claim('u1', subs)).toBe(true);
    expect(await two.dueAt('u1', subs)).toBeUndefined();
    expect(await two.claim('u1', subs)).toBe(false);

    // Done, next due in 60 s: nobody takes it before (less the 5 s early), either takes it then.
    await one.finish('u1', subs, clock + 60_000);
    expect(await two.claim('u1', subs)).toBe(false);
    clock += 54_000;
    expect(await two.claim('u1', subs)).toBe(false);
    clock += 2_000;
    expect(await two.claim('u1', subs)).toBe(true);
    await two.finish('u1', subs, clock + 60_000);

    // A new subscription makes the user due at once.
    const more = subsFingerprint(['sub_a', 'sub_b', 'sub_c']);
    expect(await one.dueAt('u1', subs)).toBeUndefined();
    expect(await one.dueAt('u1', more)).toBe(0);
    expect(await one.claim('u1', more)).toBe(true);

    // That instance dies mid-job: the claim lapses after 30 s and the other takes the user.
    expect(await two.claim('u1', more)).toBe(false);
    clock += 31_000;
    expect(await two.claim('u1', more)).toBe(true);
    // The dead instance's late finish does not undo the live claim's.
    await one.finish('u1', more, clock + 60_000);
    expect(await two.dueAt('u1', more)).toBe(0);
  });
});

describe("a budget's lease record", () => {
  it('keeps the last sync after the lease is let go, and the next holder reads it', async () => {
    const one = new WatchLease(a, async () => 'u2', 'one', 30_000, now);
    const two = new WatchLease(b, async () => 'u2', 'two', 30_000, now);
    expect(await one.take('budget-1')).toEqual({ taken: true, synced: undefined });
    expect(await two.take('budget-1')).toEqual({ taken: false, synced: undefined });
    const syncedAt = clock - 500;
    expect(await one.take('budget-1', syncedAt)).toEqual({ taken: true, synced: syncedAt });
    await one.release('budget-1');
    // Let go: the other instance takes it at once, and knows when it was synced.
    expect(await two.take('budget-1')).toEqual({ taken: true, synced: syncedAt });
    // An older sync never moves it back.
    expect(await two.take('budget-1', syncedAt - 10_000)).toEqual({ taken: true, synced: syncedAt });
  });
});
