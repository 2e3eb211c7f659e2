/**
 * A call's reads from Redis sent with its authentication instead of after it. A read answered from
 * a copy the instance holds needs, in order, the access token's record, the user's grant and the
 * budget's written mark (src/sync/create-records.ts): three waits on Redis one after another, and
 * under a crowd each wait is also a wait for the instance's event loop and an admission slot
 * (src/transport/http-admission.ts), about 100-150 ms a hop (bench/RESULTS.md, hosted). Once the
 * instance has seen the token, the user is known before the token is read: the written mark their
 * last call read is read with the token and the grant (resource-server.ts), one wait for the three.
 *
 * What is read ahead is used by the request that read it, once, and by no other: it was read after
 * that request arrived, which is all the written mark's check asks (a write answered before the
 * request was sent moved the mark before it), even when the check is made under the sync's lock. A
 * write of the key by the request forgets it. Never a record that must be read after a lock is
 * taken: the grant, whose refresh token a refresh reads again under its lock (a read from before
 * it may hold a token another instance has just spent).
 */
import { LRUCache } from 'lru-cache';
import { passesTo } from '../storage/id-list.js';
import { journalPrefix, sessionBudgetKey } from '../storage/keys.js';
import type { Change, Held, LockOptions, SetOptions, StateStore } from '../storage/store.js';
import type { HttpObserver } from '../transport/http.js';
import { contextSlot } from '../shared/async-context.js';

type Read = Promise<Uint8Array | undefined>;

export class ReadAhead {
  /** The reads sent ahead for the request under way, by key. */
  private readonly scope = contextSlot<Map<string, Read>>('reads ahead');
  /** The written mark each user's last call read: the one their next call most likely reads. */
  private readonly lastMark = new LRUCache<string, string>({ max: 10_000 });

  constructor(private readonly store: StateStore) {}

  /** `observer`, with each request served in a scope of reads ahead of its own. */
  observing(observer: HttpObserver): HttpObserver {
    return {
      ...observer,
      begin: (req, res) => {
        const begun = observer.begin(req, res);
        return { run: (serve) => begun.run(() => this.scope.run(new Map(), serve)), end: (served) => begun.end(served) };
      },
    };
  }

  /**
   * Sends the reads `identity`'s next call is likely to make, for the request under way; settles
   * when they are back (never failing: a read that failed fails again for its reader). `newToken`:
   * the first call of a token here (a sign-in, a refresh, a restart), whose user's state is often
   * new too, so their session's budget is read as well (held a minute after, session-budget.ts).
   */
  start(identity: string, newToken = false): Promise<unknown> {
    const ahead = this.scope.getStore();
    if (!ahead) return Promise.resolve();
    const mark = this.lastMark.get(identity);
    const keys = [...(newToken ? [sessionBudgetKey(identity)] : []), ...(mark === undefined ? [] : [mark])].filter((k) => !ahead.has(k));
    return Promise.all(
      keys.map((key) => {
        const read = this.store.get(key);
        ahead.set(key, read);
        return read.catch(() => undefined);
      }),
    );
  }

  /** The written mark of the budget `identity` is likely to ask about next, unless one is known (the warm-up's users step). */
  expect(identity: string, key: string): void {
    if (!this.lastMark.has(identity)) this.lastMark.set(identity, key);
  }

  /** `identity`'s view of the store: its reads take what was read ahead for the request. */
  storeFor(identity: string, inner: StateStore = this.store): StateStore {
    const marks = journalPrefix(identity);
    const forget = (key: string) => this.scope.getStore()?.delete(key);
    const outer: StateStore = {
      location: inner.location,
      describe: (key) => inner.describe(key),
      get: (key) => {
        const ahead = this.scope.getStore();
        if (!ahead) return inner.get(key);
        if (key.startsWith(marks) && key.endsWith('.written')) this.lastMark.set(identity, key);
        const read = ahead.get(key);
        if (read === undefined) return inner.get(key);
        ahead.delete(key);
        return read;
      },
      set: (key, value, opts?: SetOptions) => (forget(key), inner.set(key, value, opts)),
      delete: (key) => (forget(key), inner.delete(key)),
      list: (prefix) => inner.list(prefix),
      update: <T>(key: string, change: (current: Uint8Array | undefined) => Change<T>, opts?: SetOptions) => (forget(key), inner.update(key, change, opts)),
      // The holder and the options go through: a sync reads its feed as the lock is taken and writes it as it is released.
      withLock: <T>(name: string, fn: (held?: Held) => Promise<T>, opts?: LockOptions) => inner.withLock(name, fn, opts),
    };
    passesTo(outer, inner);
    return outer;
  }
}
