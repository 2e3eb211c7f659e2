// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The Redis store against a real redis-server (one per file, on a free loopback port): the
 * StateStore contract with two connections standing for two instances, and what is particular to
 * Redis: key prefixes keep deployments apart, a lock whose holder died lapses, updates from
 * several connections interleave without losing one, and an unreachable Redis is a clear error
 * that names the server but never its password.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { StateStoreError } from '../../src/storage/store.js';
import { freePort, startRedis, type RunningRedis } from '../helpers/redis.js';
import { stateStoreContract } from './contract.js';

let redis: RunningRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

stateStoreContract('redis', async () => {
  // A fresh prefix per case: the cases share one server as deployments share one Redis.
  const prefix = `t${randomBytes(4).toString('hex')}:`;
  const a = await RedisStateStore.connect(redis.url, { prefix });
  const b = await RedisStateStore.connect(redis.url, { prefix });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
});

describe('Redis store', () => {
  it('keeps deployments with different prefixes apart', async () => {
    const one = await RedisStateStore.connect(redis.url, { prefix: 'one:' });
    const two = await RedisStateStore.connect(redis.url, { prefix: 'two:' });
    try {
      await one.set('quota/k.json', bytes('1'));
      expect(await two.get('quota/k.json')).toBeUndefined();
      expect(await two.list('quota/')).toEqual([]);
      expect(await one.list('quota/')).toEqual(['quota/k.json']);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('a lock left by a holder that died lapses, and is then taken', async () => {
    const prefix = `l${randomBytes(4).toString('hex')}:`;
    const store = await RedisStateStore.connect(redis.url, { prefix });
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      // A dead instance's lease: the key the store uses, held by someone who no longer renews it.
      await raw.set(`${prefix}locks/dead`, 'someone-else', { PX: 400 });
      const started = Date.now();
      const waited = await store.withLock('dead', async () => Date.now() - started);
      expect(waited).toBeGreaterThanOrEqual(350);
      expect(waited).toBeLessThan(5_000);
    } finally {
      await store.close();
      await raw.close();
    }
  });

  it('updates from four connections interleave without losing one', async () => {
    const prefix = `u${randomBytes(4).toString('hex')}:`;
    const stores = await Promise.all([1, 2, 3, 4].map(() => RedisStateStore.connect(redis.url, { prefix })));
    try {
      await Promise.all(
        Array.from({ length: 400 }, (_, i) =>
          stores[i % 4]!.update('journal/j/b.json', (cur) => {
            const list = cur ? (JSON.parse(text(cur)!) as number[]) : [];
            return { value: bytes(JSON.stringify([...list, i])), result: undefined };
          }),
        ),
      );
      const list = JSON.parse(text(await stores[0]!.get('journal/j/b.json'))!) as number[];
      expect(list.length).toBe(400);
      expect(new Set(list).size).toBe(400);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("an update after this instance's own read or write is one command, and still sees another instance's change", async () => {
    const prefix = `k${randomBytes(4).toString('hex')}:`;
    const sent: string[] = [];
    const a = await RedisStateStore.connect(redis.url, { prefix, onCommand: (c) => (sent.push(c), () => undefined) });
    const b = await RedisStateStore.connect(redis.url, { prefix });
    const append = (n: number) => (cur: Uint8Array | undefined) => ({ value: bytes(`${text(cur) ?? ''}${n}`), result: text(cur) });
    try {
      await a.set('grants/g.json', bytes('1'));
      sent.length = 0;
      expect(await a.update('grants/g.json', append(2))).toBe('1');
      expect(sent).toEqual(['EVALSHA']); // no GET: computed from the value it wrote
      sent.length = 0;
      expect(await a.update('grants/g.json', append(3))).toBe('12');
      expect(sent).toEqual(['EVALSHA']);
      // Another instance changes it: the remembered value no longer matches, and the update reads it.
      await b.set('grants/g.json', bytes('x'));
      sent.length = 0;
      expect(await a.update('grants/g.json', append(4))).toBe('x');
      expect(sent).toEqual(['EVALSHA', 'GET', 'EVALSHA']);
      expect(text(await b.get('grants/g.json'))).toBe('x4');
      // Nothing is decided on a remembered value unwritten: a change that writes nothing is asked again on the value read.
      await b.set('grants/g.json', bytes('y'));
      const seen: (string | undefined)[] = [];
      const result = await a.update('grants/g.json', (cur) => (seen.push(text(cur)), { value: undefined, result: text(cur) }));
      expect(result).toBe('y');
      expect(seen).toEqual(['x4', 'y']);
      // A key another instance deleted, and one this instance never saw.
      await b.delete('grants/g.json');
      expect(await a.update('grants/g.json', append(5))).toBeUndefined();
      expect(text(await b.get('grants/g.json'))).toBe('5');
      sent.length = 0;
      expect(await a.update('grants/new.json', append(6))).toBeUndefined();
      expect(sent).toEqual(['GET', 'EVALSHA']);
      // A large value is not remembered.
      const big = bytes('z'.repeat(20_000));
      await a.set('grants/big.json', big);
      sent.length = 0;
      await a.update('grants/big.json', () => ({ value: bytes('small'), result: undefined }));
      expect(sent).toEqual(['GET', 'EVALSHA']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('an update with a ttl sets it; a value without one keeps none', async () => {
    const store = await RedisStateStore.connect(redis.url, { prefix: `x${randomBytes(4).toString('hex')}:` });
    try {
      await store.update('confirm/a', () => ({ value: bytes('a'), result: undefined }), { ttlMs: 150 });
      await store.update('confirm/b', () => ({ value: bytes('b'), result: undefined }));
      await new Promise((r) => setTimeout(r, 300));
      expect(await store.get('confirm/a')).toBeUndefined();
      expect(text(await store.get('confirm/b'))).toBe('b');
    } finally {
      await store.close();
    }
  });

  it('retention: keys under a prefix written without a ttl expire that long after their last write', async () => {
    const store = await RedisStateStore.connect(redis.url, { prefix: `r${randomBytes(4).toString('hex')}:`, retention: { 'replicas/': 200 } });
    try {
      await store.set('replicas/u/b.replica', bytes('copy'));
      await store.update('replicas/u/c.replica', () => ({ value: bytes('copy'), result: undefined }));
      await store.set('quota/q.json', bytes('kept'));
      await new Promise((r) => setTimeout(r, 120));
      await store.set('replicas/u/b.replica', bytes('saved again')); // a write renews it
      await new Promise((r) => setTimeout(r, 150));
      expect(text(await store.get('replicas/u/b.replica'))).toBe('saved again');
      expect(await store.get('replicas/u/c.replica')).toBeUndefined();
      expect(text(await store.get('quota/q.json'))).toBe('kept');
    } finally {
      await store.close();
    }
  });

  it('an unreachable Redis is an error naming where it was looked for, never the password', async () => {
    const port = await freePort();
    const err = await RedisStateStore.connect(`redis://user:s3cret-pw@127.0.0.1:${port}/0`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateStoreError);
    expect((err as Error).message).toContain(`127.0.0.1:${port}`);
    expect((err as Error).message).not.toContain('s3cret-pw');
  });

  it('a Redis that goes away mid-use fails commands at once with a StateStoreError, and recovers', async () => {
    const own = await startRedis();
    const store = await RedisStateStore.connect(own.url, { log: () => undefined });
    try {
      await store.set('quota/q.json', bytes('1'));
      await own.stop();
      const started = Date.now();
      const err = await store.get('quota/q.json').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StateStoreError);
      expect((err as Error).message).toMatch(/request ledger/);
      expect(Date.now() - started).toBeLessThan(6_000);
      // Back on the same port: the store reconnects by itself (its data is gone: nothing was saved).
      const again = await startRedis(own.port);
      try {
        let back: Uint8Array | undefined | 'down' = 'down';
        for (let i = 0; i < 100 && back === 'down'; i++) {
          back = await store.get('quota/q.json').catch(() => 'down' as const);
          if (back === 'down') await new Promise((r) => setTimeout(r, 100));
        }
        expect(back).toBeUndefined();
        await store.set('quota/q.json', bytes('2'));
        expect(text(await store.get('quota/q.json'))).toBe('2');
      } finally {
        await again.stop();
      }
    } finally {
      await store.close();
    }
  });
});
