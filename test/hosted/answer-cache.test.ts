// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode's shared answers (src/hosted/answer-cache.ts) on a real redis-server: an answer set
 * is found again sealed; a write's forget() makes the budget's answers and the all-budgets ones
 * old, and leaves another budget's; an answer looked up before a write and set after it is not
 * found (it was worked out from before the write); and forgetting lists no keys (a SCAN walks
 * every user's keys), counted on the store the cache is given.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAnswers } from '../../src/hosted/answer-cache.js';
import { DataKey } from '../../src/hosted/sealing.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import type { StateStore } from '../../src/storage/store.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

let redis: RunningRedis;
let store: RedisStateStore;
let listed = 0;

beforeAll(async () => {
  redis = await startRedis();
  store = await RedisStateStore.connect(redis.url, { log: () => undefined });
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

/** The store as the cache sees it, counting list() calls. */
function counting(s: StateStore): StateStore {
  return new Proxy(s, {
    get(target, prop, receiver) {
      if (prop === 'list') return (prefix: string) => ((listed += 1), target.list(prefix));
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

const answer = (n: number) => ({ value: { n }, at: 1_795_000_000_000 + n });

describe('shared answers', () => {
  it('a write makes its budget and the all-budgets answers old, not another budget’s, without listing keys', async () => {
    const cache = sharedAnswers(counting(store), new DataKey(randomBytes(32)), `user-${randomBytes(4).toString('hex')}`);
    for (const [q, b, n] of [
      ['months', 'b1', 1],
      ['months', 'b2', 2],
      ['budgets', undefined, 3],
    ] as const) {
      expect(await cache.get(q, b)).toBeUndefined();
      await cache.set(q, b, answer(n) as any, 60_000);
      expect(await cache.get(q, b)).toEqual(answer(n));
    }
    listed = 0;
    await cache.forget('b1');
    expect(listed).toBe(0);
    expect(await cache.get('months', 'b1')).toBeUndefined();
    expect(await cache.get('budgets', undefined)).toBeUndefined();
    expect(await cache.get('months', 'b2')).toEqual(answer(2));
    // Answered again after the write: found again.
    await cache.set('months', 'b1', answer(4) as any, 60_000);
    expect(await cache.get('months', 'b1')).toEqual(answer(4));
  });

  it('an answer looked up before a write and set after it is not found: it was worked out from before', async () => {
    const identity = `user-${randomBytes(4).toString('hex')}`;
    const key = new DataKey(randomBytes(32));
    const asking = sharedAnswers(store, key, identity);
    const writing = sharedAnswers(store, key, identity); // another instance's state of the same user
    expect(await asking.get('months', 'b1')).toBeUndefined();
    await writing.forget('b1');
    await asking.set('months', 'b1', answer(5) as any, 60_000);
    expect(await asking.get('months', 'b1')).toBeUndefined();
    expect(await writing.get('months', 'b1')).toBeUndefined();
  });

  it('an answer is kept sealed: its bytes in Redis do not show it', async () => {
    const identity = `user-${randomBytes(4).toString('hex')}`;
    const cache = sharedAnswers(store, new DataKey(randomBytes(32)), identity);
    await cache.get('payees', 'b9');
    await cache.set('payees', 'b9', { value: { payee: 'Corner Bakery' }, at: 1 } as any, 60_000);
    const keys = await store.list(`answers/${identity}/`);
    expect(keys).toHaveLength(1);
    expect(Buffer.from((await store.get(keys[0]!))!).toString('latin1')).not.toContain('Corner Bakery');
  });
});
