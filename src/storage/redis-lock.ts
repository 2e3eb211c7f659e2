/**
 * withLock of the Redis store (redis-store.ts): a lease, `SET locks/<name> <random> NX PX 15000`,
 * renewed every 5 s while held and released by a compare-and-delete script; a crashed holder's
 * lease lapses within 15 s. One Redis runs a connection's commands in the order they were sent,
 * so the key the holder reads (LockOptions.read) is sent with the lease, and what it writes on
 * release (Held.setOnRelease) with the release: the read runs once the lease is taken (it is
 * dropped, and sent again, when it was not), the writes before the release. A cluster's keys may
 * be on other nodes than the lock's: there the read follows the lease, and the release the writes.
 */
import { randomBytes } from 'node:crypto';
import { labelOf } from './keys.js';
import { heldWith, type Held, type IoAside, type LockOptions, type OnRelease, type SetOptions, StateStoreError } from './store.js';

/** A lease on a lock lapses this long after its holder stopped renewing it. */
const LEASE_MS = 15_000;
/** How long withLock waits for a lock before it gives up with an error. */
const LOCK_WAIT_MS = 60_000;

/** What the lease needs of the store. */
export interface LeaseStore {
  /** Commands of one connection run in the order sent (one Redis, not a cluster). */
  inOrder: boolean;
  describe(key: string): string;
  /** SET <lock> <token> NX PX: the reply, null when another holds it. */
  take(key: string, token: string, ms: number): Promise<unknown>;
  /** The lease script: renews for `arg` ms, or releases ('release'), when still `token`'s. */
  lease(key: string, token: string, arg: string): Promise<unknown>;
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array, opts?: SetOptions): Promise<void>;
  wait: IoAside;
}

type Read = { value: Uint8Array | undefined } | { error: unknown };

export async function leased<T>(s: LeaseStore, name: string, fn: (held: Held) => Promise<T>, opts: LockOptions): Promise<T> {
  const key = `locks/${name}`;
  const token = randomBytes(16).toString('hex');
  const started = Date.now();
  const readNow = (k: string): Promise<Read> =>
    s.get(k).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  let read: Promise<Read> | undefined;
  for (;;) {
    const taking = s.take(key, token, LEASE_MS);
    read = s.inOrder && opts.read !== undefined ? readNow(opts.read) : undefined;
    if ((await taking) !== null) break;
    if (Date.now() - started > LOCK_WAIT_MS) {
      throw new StateStoreError('lock', s.describe(key), `${labelOf(key)} ${s.describe(key)} has been held by another instance for over a minute; try again`);
    }
    // Waiting for another holder: away from the loop (the holder may need a place to finish).
    await s.wait(() => new Promise((r) => setTimeout(r, 10 + Math.random() * 40)), 'away');
  }
  const renew = setInterval(() => void s.lease(key, token, String(LEASE_MS)).catch(() => undefined), LEASE_MS / 3);
  renew.unref();
  const writes: OnRelease[] = [];
  let sent: Promise<unknown>[] = [];
  try {
    const got = opts.read === undefined ? { value: undefined } : await (read ?? readNow(opts.read));
    if ('error' in got) throw got.error;
    const result = await fn(heldWith(got.value, writes));
    sent = writes.map((w) => {
      const written = s.set(w.key, w.value, w.opts).then(() => true);
      w.done(written);
      return written.catch(() => undefined);
    });
    if (!s.inOrder) await Promise.all(sent);
    return result;
  } finally {
    clearInterval(renew);
    for (const w of writes.slice(sent.length)) w.done(Promise.resolve(false));
    // Sent right after the writes (one Redis: in their round trip); a lease not released lapses on its own.
    await Promise.all([s.lease(key, token, 'release').catch(() => undefined), ...sent]);
  }
}
