/**
 * The `--data` write-ahead log (FILE.journal): every change the sandbox acknowledges is appended here and
 * flushed to disk before the answer goes out, so an answer of 2xx survives the process being
 * killed at any moment. What counts as a change: API writes (each budget change, as a delta of
 * the records it touched: store/budget-delta.ts), OAuth grants and codes issued, refresh tokens
 * rotated or used, revocations, and a user's last-used budget.
 *
 * One JSON entry per line, numbered. An entry is complete once its line ends; a torn last line
 * (the process died while writing it, so its change was never acknowledged) is dropped on
 * replay. The log is folded into the snapshot from time to time (persistence.ts): the
 * snapshot records the last entry it holds, the log is emptied, and entries the snapshot
 * already holds are skipped if the emptying did not happen.
 */
import { closeSync, constants, fsyncSync, ftruncateSync, lstatSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import type { PendingCode } from './oauth.js';
import { errCode, isLink } from '../storage/safe-fs.js';
import { writeAll } from './persistence.js';
import type { BudgetDelta } from './store/budget-delta.js';
import type { Grant, RefreshEntry } from './tokens.js';

export type LoggedChange =
  | { kind: 'budget'; delta: BudgetDelta }
  | { kind: 'grant'; grant: Grant }
  | { kind: 'refresh'; entry: RefreshEntry }
  | { kind: 'code'; code: string; pending: PendingCode | null }
  | { kind: 'last_used'; user_id: string; budget_id: string | null };

export type LogEntry = LoggedChange & { seq: number };

export class WriteAheadLog {
  private fd: number;
  private queue: string[] = [];
  /** Entries written since the last fold. */
  size = 0;

  constructor(
    readonly path: string,
    /** The number of the last entry written (or folded). */
    private seq: number,
  ) {
    this.fd = openLog(path);
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Queues a change; it is on disk after the next `commit()`. */
  record(change: LoggedChange): void {
    this.seq += 1;
    // Serialized now: the records may change again before the commit.
    this.queue.push(`${JSON.stringify({ ...change, seq: this.seq })}\n`);
  }

  get pending(): boolean {
    return this.queue.length > 0;
  }

  /** Writes the queued changes and flushes them to disk. */
  commit(): void {
    if (!this.queue.length) return;
    const text = this.queue.join('');
    this.queue = [];
    writeAll(this.fd, Buffer.from(text));
    fsyncSync(this.fd);
    this.size += 1;
  }

  /** Empties the log once the snapshot holds everything in it. */
  truncate(): void {
    ftruncateSync(this.fd, 0);
    fsyncSync(this.fd);
    this.size = 0;
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * The complete entries of a write-ahead log file after `since`, in order. `torn` is true when the file
   * ended in an incomplete entry (dropped: it was never acknowledged).
   */
  static read(path: string, since: number): { entries: LogEntry[]; torn: boolean } {
    // Only a file of ours is read: a link planted there (to anything) holds no change of ours.
    if (!lstatSync(path, { throwIfNoEntry: false })?.isFile()) return { entries: [], torn: false };
    const text = readFileSync(path, 'utf8');
    const entries: LogEntry[] = [];
    let start = 0;
    let torn = false;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      if (end < 0) {
        torn = true;
        break;
      }
      let entry: LogEntry;
      try {
        entry = JSON.parse(text.slice(start, end)) as LogEntry;
      } catch {
        // Only the last line can be torn; a bad line means the rest cannot be trusted either.
        torn = true;
        break;
      }
      if (entry.seq > since) entries.push(entry);
      start = end + 1;
    }
    return { entries, torn };
  }
}

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Opens the log for appending, never through a link: one planted where it goes is removed first. */
function openLog(path: string): number {
  try {
    return openSync(path, APPEND, 0o600);
  } catch (e) {
    if (!isLink(errCode(e)) || !lstatSync(path).isSymbolicLink()) throw e;
    unlinkSync(path);
    return openSync(path, APPEND | constants.O_EXCL, 0o600);
  }
}
