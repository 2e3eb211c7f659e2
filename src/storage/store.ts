/**
 * The storage seam: everything ynab-mcp keeps between calls (request ledgers, saved replicas,
 * create records, locks; later grants and confirm tokens) goes through one small key-value
 * interface. The single-user default keeps it in files under the state directory
 * (file-store.ts); hosted mode keeps it in Redis so that stateless instances can serve. The code
 * above the seam (quota, sync) is the same for both.
 *
 * Keys are '/'-separated names built in keys.ts (`quota/<token key>.json`,
 * `replicas/<identity>/<budget>.replica`, `journal/<identity>/<budget>.json`). Values are bytes;
 * whatever must be secret is encrypted before it reaches a store.
 *
 * Each operation is written so that Redis can implement it directly:
 *  - get / set / delete: GET, SET (PX for a ttl), DEL;
 *  - list: SCAN MATCH `<prefix>*` (values are small and few per prefix);
 *  - update: a read-modify-write that is atomic across every process and instance sharing the
 *    store: WATCH key, GET, compute, MULTI SET/DEL EXEC, retried when EXEC reports a conflict.
 *    So `change` may run more than once and must be a pure function of what it is given;
 *  - withLock: a lease (SET lock:<name> <random> NX PX ttl, renewed while held, released by a
 *    compare-and-delete script), for work that must be single-flight across processes and
 *    spans I/O, such as an OAuth refresh. The file store uses lock directories.
 */

export interface SetOptions {
  /** The value disappears this long after it was written (confirm tokens, leases). */
  ttlMs?: number;
  /**
   * update: a `change` that writes nothing may be judged on the value this process last read or
   * wrote (Redis: no read to confirm it first). For what a later update corrects anyway (a
   * ledger's settle after an answer), to save a round trip.
   */
  noWriteFromKnown?: boolean;
}

/**
 * What an update's `change` returns: the new value (`null` deletes the key, `undefined` leaves
 * it as it was, costing no write) and the result handed back to the caller.
 */
export interface Change<T> {
  value: Uint8Array | null | undefined;
  result: T;
}

export interface StateStore {
  /** Where the store lives, for messages: a directory, or a Redis URL without credentials. */
  readonly location: string;
  /** The name a key has in messages: its file for the file store, the key itself for Redis. */
  describe(key: string): string;
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array, opts?: SetOptions): Promise<void>;
  delete(key: string): Promise<void>;
  /** Keys that start with `prefix`, in no particular order. */
  list(prefix: string): Promise<string[]>;
  /** Atomic read-modify-write of one key (see the header: `change` may be retried). */
  update<T>(key: string, change: (current: Uint8Array | undefined) => Change<T>, opts?: SetOptions): Promise<T>;
  /**
   * Runs `fn` while holding the named lock, shared by every process using this store. `opts.read`:
   * a key read once the lock is taken, handed to `fn` (Redis: sent with the lock, in its round trip).
   * A store may hand no Held (a store in memory, hosted/warm-up.ts): then the holder reads and
   * writes by itself.
   */
  withLock<T>(name: string, fn: (held?: Held) => Promise<T>, opts?: LockOptions): Promise<T>;
}

export interface LockOptions {
  /** A key read once the lock is taken: `Held.read`. */
  read?: string;
}

/** What withLock hands the holder. */
export interface Held {
  /** The value of LockOptions.read once the lock was taken (undefined: absent, or none asked for). */
  readonly read?: Uint8Array;
  /**
   * Writes `key` as the lock is released, before the next holder can read it (Redis: sent with the
   * release, in its round trip). True once written; false when `fn` failed (nothing written); a
   * failure to write rejects.
   */
  setOnRelease(key: string, value: Uint8Array, opts?: SetOptions): Promise<boolean>;
}

/** A write kept until the lock's release (Held.setOnRelease). */
export interface OnRelease {
  key: string;
  value: Uint8Array;
  opts?: SetOptions;
  done(written: Promise<boolean>): void;
}

/** The holder's side of a lock whose read is `read` and whose writes on release go to `writes`. */
export function heldWith(read: Uint8Array | undefined, writes: OnRelease[]): Held {
  return {
    read,
    setOnRelease: (key, value, opts) => new Promise<boolean>((resolve, reject) => writes.push({ key, value, opts, done: (w) => w.then(resolve, reject) })),
  };
}

/**
 * Awaits I/O (a Redis command, a request to YNAB) as a wait, not as work: hosted mode's admission
 * hands the request's slot on meanwhile (src/transport/http-admission.ts). `away`: a wait that may
 * be long, or on another request's work (YNAB; another caller's turn; a lock another holds): its
 * place in the event loop goes on too, so that the holder can always come back (a Redis command
 * waits `loop`, the default, keeping the place). Declared here, the lowest layer, so the store and
 * the client take it without knowing who gives it.
 */
export type IoAside = <T>(io: () => Promise<T>, where?: 'loop' | 'away') => Promise<T>;

/** Why a store could not do what was asked, naming the file (or key) concerned. */
export type StoreFailure = 'read' | 'write' | 'lock';

/**
 * A store that cannot be read, written or locked. The message names the path and what to do, so
 * it can be shown as is; the answer to a read can still come from a replica held in memory.
 */
export class StateStoreError extends Error {
  override readonly name = 'StateStoreError';
  constructor(
    readonly failure: StoreFailure,
    /** The file, directory or key concerned. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The key that seals what is kept (saved replicas, the undo journal, confirm tokens) cannot be
 * had: nothing sealed can be read or kept until it can. The message names where the key lives
 * (its file, or the keychain) and what to do; reads are still answered, from YNAB, in memory.
 */
export class KeyUnavailableError extends StateStoreError {}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function jsonBytes(value: unknown): Uint8Array {
  return encoder.encode(`${JSON.stringify(value)}\n`);
}

/** The JSON in `bytes`, or undefined when there are none or they are not JSON. */
export function parseJsonBytes(bytes: Uint8Array | undefined): unknown {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

export function textOf(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
