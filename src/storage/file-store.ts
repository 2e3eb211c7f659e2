/**
 * The state store of the single-user default: one file per key under the state directory (the
 * key is the file's path relative to it, see keys.ts), written by the rules of safe-fs.ts.
 *  - update: an in-process turn per key plus a proper-lockfile lock directory beside the file
 *    (`<file>.lock`), so read-modify-writes of every process on the machine take turns. A lock
 *    left by a crashed process is taken over once its mtime is older than STALE_MS; a live
 *    holder refreshes the mtime.
 *  - withLock: the same, on `locks/<name>.lock`.
 *  - values with a ttl carry their expiry in a small header; expired ones read as absent.
 * Files are replaced by rename, so a reader without the lock sees the old or the new value.
 * No fsync: after a power loss an older value (or none) is acceptable for everything kept here
 * (a ledger, a replica, a record), and a torn one is impossible.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import { checkKey, labelOf } from './keys.js';
import { clearLockPath, errCode, isLinkAt, noticeLink, privateDir, readNoFollow, reasonOf, removeFile, writeAtomic, type Warn } from './safe-fs.js';
import {
  type Change,
  type Held,
  heldWith,
  type LockOptions,
  type OnRelease,
  type SetOptions,
  type StateStore,
  StateStoreError,
  type StoreFailure,
} from './store.js';
import { inTurn } from './turns.js';

/**
 * A lock whose directory has not been refreshed for this long belongs to a dead process.
 * Holders refresh every STALE_MS / 2, and a critical section of update() takes milliseconds.
 */
const STALE_MS = 10_000;

/**
 * Short, jittered retries: critical sections are tiny, so waiting is usually a few ms. The total
 * budget exceeds STALE_MS so that a lock left behind by a crash is outwaited and taken over.
 */
const LOCK_RETRIES = { retries: 5000, factor: 1.5, minTimeout: 2, maxTimeout: 50, randomize: true, maxRetryTime: 60_000 };

/** Header of a value written with a ttl: magic, then the expiry (ms since the epoch) as 8 bytes. */
const TTL_MAGIC = Buffer.from('YMCPTTL1');

export interface FileStateStoreOptions {
  /** Where warnings go (a directory tightened, a link removed). Default: stderr. */
  warn?: Warn;
  now?: () => number;
}

export class FileStateStore implements StateStore {
  readonly location: string;
  private readonly warn: Warn;
  private readonly now: () => number;

  constructor(
    /** The state directory. */
    readonly root: string,
    opts: FileStateStoreOptions = {},
  ) {
    this.location = root;
    this.warn = opts.warn ?? ((m) => void process.stderr.write(`${m}\n`));
    this.now = opts.now ?? Date.now;
  }

  describe(key: string): string {
    return join(this.root, ...checkKey(key).split('/'));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const path = this.describe(key);
    let bytes: Buffer | undefined;
    try {
      bytes = await readNoFollow(path, this.warn);
    } catch (e) {
      throw this.error('read', key, e);
    }
    return bytes === undefined ? undefined : this.unwrap(bytes);
  }

  async set(key: string, value: Uint8Array, opts: SetOptions = {}): Promise<void> {
    const path = this.describe(key);
    try {
      privateDir(this.root, dirname(path), this.warn);
      // The rename replaces a link planted there without following it; say so (once per file).
      if (await isLinkAt(path)) noticeLink(this.warn, path, 'it was replaced by the file, its target untouched');
      await writeAtomic(path, this.wrap(value, opts));
    } catch (e) {
      throw this.error('write', key, e);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await removeFile(this.describe(key));
    } catch (e) {
      throw this.error('write', key, e);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const cut = prefix.lastIndexOf('/');
    const base = cut < 0 ? '' : prefix.slice(0, cut);
    if (base) checkKey(base);
    const keys: string[] = [];
    const walk = async (relDir: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(relDir ? join(this.root, ...relDir.split('/')) : this.root, { withFileTypes: true });
      } catch (e) {
        if (errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR') return;
        throw this.error('read', relDir || 'state', e);
      }
      for (const entry of entries) {
        const key = relDir ? `${relDir}/${entry.name}` : entry.name;
        if (entry.isDirectory() && !entry.name.endsWith('.lock')) await walk(key);
        // Links are not followed and not listed (said once); temp files and locks are the store's own.
        else if (entry.isFile() && validKey(key) && key.startsWith(prefix)) keys.push(key);
        else if (entry.isSymbolicLink() && validKey(key) && key.startsWith(prefix)) noticeLink(this.warn, this.describe(key), 'it is not read');
      }
    };
    await walk(base);
    return keys;
  }

  update<T>(key: string, change: (current: Uint8Array | undefined) => Change<T>, opts: SetOptions = {}): Promise<T> {
    const path = this.describe(key);
    return inTurn(path, () =>
      this.locked(key, `${path}.lock`, async (held) => {
        const current = await this.get(key);
        const { value, result } = change(current);
        if (value === undefined) return result;
        // If another process took the lock over, writing now could undo its update.
        if (held.lost) throw new StateStoreError('lock', path, `lost the lock on ${labelOf(key)} ${path}; try again`);
        if (value === null) await this.delete(key);
        else await this.set(key, value, opts);
        return result;
      }),
    );
  }

  withLock<T>(name: string, fn: (held?: Held) => Promise<T>, opts: LockOptions = {}): Promise<T> {
    const key = `locks/${name}`;
    const lockPath = `${this.describe(key)}.lock`;
    return inTurn(lockPath, () =>
      this.locked(key, lockPath, async () => {
        // Read once the lock is taken, written before it is released: in turn, as a file is.
        const writes: OnRelease[] = [];
        const result = await fn(heldWith(opts.read === undefined ? undefined : await this.get(opts.read), writes)).catch((e: unknown) => {
          for (const w of writes) w.done(Promise.resolve(false));
          throw e;
        });
        for (const w of writes) {
          const written = this.set(w.key, w.value, w.opts).then(() => true);
          w.done(written);
          await written.catch(() => undefined);
        }
        return result;
      }),
    );
  }

  private async locked<T>(key: string, lockPath: string, fn: (held: { lost: boolean }) => Promise<T>): Promise<T> {
    const held = { lost: false };
    let release: () => Promise<void>;
    try {
      privateDir(this.root, dirname(lockPath), this.warn);
      await clearLockPath(lockPath, this.warn);
      release = await lockfile.lock(lockPath.slice(0, -'.lock'.length), {
        realpath: false, // the locked file may not exist yet
        lockfilePath: lockPath,
        stale: STALE_MS,
        retries: LOCK_RETRIES,
        // The default throws from a timer and would kill the process; remember it instead.
        onCompromised: () => {
          held.lost = true;
        },
      });
    } catch (e) {
      throw this.error('lock', key, e);
    }
    try {
      return await fn(held);
    } finally {
      await release().catch(() => undefined); // already released when the lock was lost
    }
  }

  private wrap(value: Uint8Array, opts: SetOptions): Uint8Array {
    if (opts.ttlMs === undefined) return value;
    const header = Buffer.alloc(TTL_MAGIC.length + 8);
    TTL_MAGIC.copy(header);
    header.writeBigUInt64BE(BigInt(Math.max(0, Math.round(this.now() + opts.ttlMs))), TTL_MAGIC.length);
    return Buffer.concat([header, value]);
  }

  private unwrap(bytes: Buffer): Uint8Array | undefined {
    if (bytes.length < TTL_MAGIC.length + 8 || !bytes.subarray(0, TTL_MAGIC.length).equals(TTL_MAGIC)) return bytes;
    const expires = Number(bytes.readBigUInt64BE(TTL_MAGIC.length));
    return expires <= this.now() ? undefined : bytes.subarray(TTL_MAGIC.length + 8);
  }

  /** A failure in words: what the file holds, its path, why, and what to do. */
  private error(failure: StoreFailure, key: string, e: unknown): StateStoreError {
    if (e instanceof StateStoreError) return e;
    const path = key === 'state' ? this.root : this.describe(key);
    const at = (e as { path?: unknown })?.path;
    const where = typeof at === 'string' && at !== path && !at.endsWith('.tmp') && !at.endsWith('.lock') ? ` at ${at}` : '';
    const verb = { read: 'cannot be read', write: 'cannot be written', lock: 'cannot be locked' }[failure];
    const why = errCode(e) === 'ELOCKED' ? 'another ynab-mcp process has held its lock for too long' : reasonOf(e);
    return new StateStoreError(
      failure,
      path,
      `${key === 'state' ? 'the state directory' : labelOf(key)} ${path} ${verb} (${why}${where}). ` +
        `Check the permissions of ${this.root}, or set YNAB_MCP_STATE_DIR to a directory of your own.`,
      { cause: e },
    );
  }
}

function validKey(key: string): boolean {
  try {
    checkKey(key);
    return true;
  } catch {
    return false;
  }
}
