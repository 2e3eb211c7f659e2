/**
 * What every StateStore must do, as one suite that each implementation runs: the file store here,
 * the Redis store of hosted mode later (`stateStoreContract('redis', () => …)`). Values are bytes;
 * update is an atomic read-modify-write across instances; withLock excludes across instances.
 */
import { describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/storage/store.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

/** `make()` returns two instances on the same storage (as two processes would have). */
export function stateStoreContract(name: string, make: () => Promise<{ a: StateStore; b: StateStore; close(): Promise<void> }>): void {
  describe(`StateStore contract: ${name}`, () => {
    it('gets what was set, from another instance; delete removes; a missing key is undefined', async () => {
      const { a, b, close } = await make();
      try {
        expect(await a.get('quota/none.json')).toBeUndefined();
        await a.set('replicas/id1/b1.replica', bytes('one'));
        expect(text(await b.get('replicas/id1/b1.replica'))).toBe('one');
        await b.set('replicas/id1/b1.replica', bytes('two'));
        expect(text(await a.get('replicas/id1/b1.replica'))).toBe('two');
        await a.delete('replicas/id1/b1.replica');
        expect(await b.get('replicas/id1/b1.replica')).toBeUndefined();
        await a.delete('replicas/id1/b1.replica'); // deleting nothing is fine
      } finally {
        await close();
      }
    });

    it('keeps bytes exactly', async () => {
      const { a, close } = await make();
      try {
        const all = Uint8Array.from({ length: 256 }, (_, i) => i);
        await a.set('journal/x/y.json', all);
        expect(Buffer.from((await a.get('journal/x/y.json'))!)).toEqual(Buffer.from(all));
      } finally {
        await close();
      }
    });

    it('lists keys by prefix, and only keys', async () => {
      const { a, close } = await make();
      try {
        await a.set('replicas/p1/a.replica', bytes('a'));
        await a.set('replicas/p1/aliases.json', bytes('{}'));
        await a.set('replicas/p2/b.replica', bytes('b'));
        await a.update('replicas/p1/c.replica', () => ({ value: bytes('c'), result: undefined }));
        expect((await a.list('replicas/p1/')).sort()).toEqual(['replicas/p1/a.replica', 'replicas/p1/aliases.json', 'replicas/p1/c.replica']);
        expect((await a.list('replicas/')).sort()).toEqual([
          'replicas/p1/a.replica',
          'replicas/p1/aliases.json',
          'replicas/p1/c.replica',
          'replicas/p2/b.replica',
        ]);
        expect(await a.list('nothing/')).toEqual([]);
      } finally {
        await close();
      }
    });

    it('refuses keys that could leave the store', async () => {
      const { a, close } = await make();
      try {
        for (const key of ['../x', 'a/../../b', '/abs', 'a//b', '.hidden', 'a/b.tmp', 'a/b.lock', 'a b']) {
          await expect(a.set(key, bytes('x')), key).rejects.toThrow(/not a valid state key/);
        }
      } finally {
        await close();
      }
    });

    it('update is atomic across instances: 2 × 100 concurrent increments count 200', async () => {
      const { a, b, close } = await make();
      try {
        const inc = (s: StateStore) =>
          s.update('quota/counter.json', (cur) => {
            const n = Number(text(cur) ?? '0') + 1;
            return { value: bytes(String(n)), result: n };
          });
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) => inc(i % 2 ? a : b)));
        expect(text(await a.get('quota/counter.json'))).toBe('200');
        expect(new Set(results).size).toBe(200); // every caller saw a distinct value
      } finally {
        await close();
      }
    });

    it('update: undefined leaves the value, null deletes it, the result comes back', async () => {
      const { a, close } = await make();
      try {
        await a.set('journal/u/v.json', bytes('kept'));
        expect(await a.update('journal/u/v.json', (cur) => ({ value: undefined, result: text(cur) }))).toBe('kept');
        expect(text(await a.get('journal/u/v.json'))).toBe('kept');
        await a.update('journal/u/v.json', () => ({ value: null, result: undefined }));
        expect(await a.get('journal/u/v.json')).toBeUndefined();
      } finally {
        await close();
      }
    });

    it('a value with a ttl disappears after it', async () => {
      const { a, b, close } = await make();
      try {
        await a.set('confirm/t1', bytes('soon gone'), { ttlMs: 150 });
        await a.set('confirm/t2', bytes('stays'));
        expect(text(await b.get('confirm/t1'))).toBe('soon gone');
        await new Promise((r) => setTimeout(r, 300));
        expect(await b.get('confirm/t1')).toBeUndefined();
        expect(text(await b.get('confirm/t2'))).toBe('stays');
      } finally {
        await close();
      }
    });

    it('withLock excludes across instances and hands back the result', async () => {
      const { a, b, close } = await make();
      try {
        let inside = 0;
        let most = 0;
        const work = (s: StateStore, i: number) =>
          s.withLock('refresh-test', async () => {
            inside += 1;
            most = Math.max(most, inside);
            await new Promise((r) => setTimeout(r, 5));
            inside -= 1;
            return i;
          });
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => work(i % 2 ? a : b, i)));
        expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expect(most).toBe(1);
        // A failure inside releases the lock.
        await expect(a.withLock('refresh-test', async () => Promise.reject(new Error('inner')))).rejects.toThrow('inner');
        expect(await b.withLock('refresh-test', async () => 'free')).toBe('free');
      } finally {
        await close();
      }
    });

    it("withLock reads a key once the lock is taken and writes one as it is released: each holder reads the last one's write", async () => {
      const { a, b, close } = await make();
      try {
        const key = 'replicas/id1/b1.feed';
        const opts = { read: key };
        // Each holder adds one to what it read, written on release: a read before the lock was
        // taken, or a write after the release, would show as two holders reading the same count.
        const work = (s: StateStore) =>
          s.withLock(
            'feed-test',
            async (held) => {
              const seen = Number(text(held!.read) ?? '0');
              await new Promise((r) => setTimeout(r, 1));
              void held!.setOnRelease(key, bytes(String(seen + 1)));
              return seen;
            },
            opts,
          );
        const seen = await Promise.all(Array.from({ length: 20 }, (_, i) => work(i % 2 ? a : b)));
        expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
        expect(text(await a.get(key))).toBe('20');
        // What the holder set is written by the time its write's promise resolves; a holder that failed writes nothing.
        let written: Promise<boolean> | undefined;
        await a.withLock('feed-test', async (held) => void (written = held!.setOnRelease(key, bytes('21'))), opts);
        expect(await written).toBe(true);
        expect(text(await b.get(key))).toBe('21');
        await expect(
          b.withLock(
            'feed-test',
            async (held) => {
              written = held!.setOnRelease(key, bytes('lost'));
              throw new Error('inner');
            },
            opts,
          ),
        ).rejects.toThrow('inner');
        expect(await written).toBe(false);
        expect(text(await a.get(key))).toBe('21');
        // Without `read`, nothing is read.
        expect(await a.withLock('feed-test', async (held) => held!.read)).toBeUndefined();
      } finally {
        await close();
      }
    });
  });
}
