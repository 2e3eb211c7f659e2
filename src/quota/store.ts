/**
 * The ledger file on disk and the locking around it. One small JSON document per token key
 * lives in `<stateDir>/quota/<key>.json`; every change is a read-modify-write of the whole
 * document under two locks:
 *  - an in-process queue per file, so concurrent calls in one process take turns instead of
 *    spinning on the cross-process lock (which proper-lockfile tracks once per file per process);
 *  - a proper-lockfile lock (`<key>.json.lock`, an atomically created directory), so other
 *    processes on the machine take turns too. A lock left by a crashed process is taken over
 *    once its mtime is older than STALE_MS; a live holder refreshes the mtime.
 * The file is replaced by rename, so readers without the lock see the old or the new
 * document, never a torn one. It holds request times and the key only, never the token.
 */
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { ensurePrivateDir } from '../paths.js';

export interface LedgerState {
  /** When each request of the window was counted (ms since the epoch, ledger clock), ascending. */
  entries: number[];
  /** The limit announced by the server (X-Rate-Limit), once one was seen; overrides the configured one. */
  limit: number | null;
  /** After a 429: no request may go out before this instant (ms). */
  blockedUntil: number | null;
}

/** Thrown when the ledger cannot be locked (another process holds it far too long) or the lock was lost. */
export class QuotaLockError extends Error {
  override readonly name = 'QuotaLockError';
}

const FORMAT_VERSION = 1;

/**
 * A lock whose directory has not been refreshed for this long belongs to a dead process.
 * Holders refresh every STALE_MS / 2, and a critical section takes milliseconds.
 */
const STALE_MS = 10_000;

/**
 * Short, jittered retries: critical sections are tiny, so waiting is usually a few ms. The total
 * budget exceeds STALE_MS so that a lock left behind by a crash is outwaited and taken over.
 */
const LOCK_RETRIES = { retries: 2000, factor: 1.5, minTimeout: 2, maxTimeout: 50, randomize: true, maxRetryTime: 30_000 };

/** A sane bound on entries; the header could claim anything, and the file must stay small. */
export const MAX_ENTRIES = 10_000;

export function emptyState(): LedgerState {
  return { entries: [], limit: null, blockedUntil: null };
}

/** Parses the file's text; null when it is not a ledger this version wrote (corrupt, truncated, foreign). */
export function parseState(text: string): LedgerState | null {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const doc = data as Record<string, unknown>;
  if (doc.v !== FORMAT_VERSION || !Array.isArray(doc.entries) || doc.entries.length > MAX_ENTRIES) return null;
  const entries: number[] = [];
  for (const t of doc.entries) {
    if (typeof t !== 'number' || !Number.isFinite(t)) return null;
    entries.push(t);
  }
  const limit = doc.limit ?? null;
  if (limit !== null && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1)) return null;
  const blockedUntil = doc.blockedUntil ?? null;
  if (blockedUntil !== null && !(typeof blockedUntil === 'number' && Number.isFinite(blockedUntil))) return null;
  entries.sort((a, b) => a - b);
  return { entries, limit, blockedUntil };
}

function serializeState(state: LedgerState): string {
  return `${JSON.stringify({ v: FORMAT_VERSION, entries: state.entries, limit: state.limit, blockedUntil: state.blockedUntil })}\n`;
}

/** Per-file queues of this process (see the header comment). */
const queues = new Map<string, Promise<void>>();

function inTurn<T>(file: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(file) ?? Promise.resolve();
  const run = previous.then(task);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(file, tail);
  void tail.then(() => {
    if (queues.get(file) === tail) queues.delete(file);
  });
  return run;
}

export class LedgerStore {
  constructor(
    readonly file: string,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * The current document, without locking (safe: the file is only ever replaced by rename).
   * A missing file is an empty ledger; an unparseable one is reported and treated as empty:
   * losing the history of at most one hour is better than refusing to work.
   */
  async read(): Promise<LedgerState> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
      throw err;
    }
    const state = parseState(text);
    if (state) return state;
    this.warn(`ynab-mcp: the request ledger ${this.file} was unreadable; starting a fresh one`);
    return emptyState();
  }

  /**
   * Runs `change` on the current document while holding both locks, and writes the document
   * back when `change` reports that it changed it. Returns what `change` returned.
   */
  update<T>(change: (state: LedgerState) => { result: T; changed: boolean }): Promise<T> {
    return inTurn(this.file, async () => {
      ensurePrivateDir(dirname(this.file));
      const held = { lost: false };
      let release: () => Promise<void>;
      try {
        release = await lockfile.lock(this.file, {
          realpath: false, // the ledger file may not exist yet
          lockfilePath: `${this.file}.lock`,
          stale: STALE_MS,
          retries: LOCK_RETRIES,
          // The default throws from a timer and would kill the process; remember it instead.
          onCompromised: () => {
            held.lost = true;
          },
        });
      } catch (err) {
        throw new QuotaLockError(`could not lock the request ledger ${this.file}: ${(err as Error).message}`);
      }
      try {
        const state = await this.read();
        const { result, changed } = change(state);
        if (changed) {
          // If another process took the lock over, writing now could undo its update.
          if (held.lost) throw new QuotaLockError(`lost the lock on the request ledger ${this.file}`);
          await this.write(state);
        }
        return result;
      } finally {
        await release().catch(() => undefined); // already released when the lock was lost
      }
    });
  }

  /**
   * Temp file + rename. The temp name is fixed because only the lock holder writes; a temp
   * file orphaned by a crash is simply overwritten next time. No fsync: after a power loss an
   * older ledger (or none) is acceptable, a torn one is handled by read().
   */
  private async write(state: LedgerState): Promise<void> {
    const temp = `${this.file}.tmp`;
    await writeFile(temp, serializeState(state), { mode: 0o600 });
    await chmod(temp, 0o600); // `mode` only applies when the file is created
    await rename(temp, this.file);
  }
}
