/**
 * `--data FILE` made durable: the snapshot (persistence.ts) plus the write-ahead log (write-ahead-log.ts). At
 * start the snapshot is read and the write-ahead log's newer entries applied to it; the result is folded
 * into a fresh snapshot at once (so a torn last entry is gone before anything new is appended).
 * While running, every change is recorded as it happens and committed (written and flushed)
 * before any answer leaves the process; the write-ahead log is folded into the snapshot when the sandbox
 * has been quiet for a moment, when it has grown, and at exit.
 */
import { loadData, removeStaleTemps, saveData, type SandboxData } from './persistence.js';
import { WriteAheadLog, type LoggedChange, type LogEntry } from './write-ahead-log.js';
import { applyDelta, DeltaRecorder } from './store/budget-delta.js';
import type { BudgetStore } from './store/budget-store.js';
import type { Versioned } from './store/records.js';

/** Quiet time before the write-ahead log is folded into the snapshot, and how many commits it may hold before. */
const FOLD_AFTER_MS = 1_000;
const FOLD_AT_COMMITS = 500;

const logPath = (file: string) => `${file}.journal`;

/** Applies write-ahead log entries to a snapshot's data, in order. */
function replay(data: SandboxData, entries: readonly LogEntry[]): void {
  const budgets = new Map(data.users.flatMap((u) => u.budgets.map((b) => [b.id, b] as const)));
  for (const e of entries) {
    switch (e.kind) {
      case 'budget': {
        const b = budgets.get(e.delta.budget_id);
        if (b) applyDelta(b, e.delta);
        break;
      }
      case 'grant': {
        const i = data.oauth.grants.findIndex((g) => g.id === e.grant.id);
        if (i >= 0) data.oauth.grants[i] = e.grant;
        else data.oauth.grants.push(e.grant);
        break;
      }
      case 'refresh': {
        const i = data.oauth.refresh_tokens.findIndex((r) => r.token === e.entry.token);
        if (i >= 0) data.oauth.refresh_tokens[i] = e.entry;
        else data.oauth.refresh_tokens.push(e.entry);
        break;
      }
      case 'code':
        data.oauth.codes = data.oauth.codes.filter(([code]) => code !== e.code);
        if (e.pending) data.oauth.codes.push([e.code, e.pending]);
        break;
      case 'last_used': {
        const user = data.users.find((u) => u.id === e.user_id);
        if (user) user.last_used_budget_id = e.budget_id;
        break;
      }
    }
  }
}

/** The saved state with the write-ahead log applied; undefined when there is no file yet. */
export function loadDurable(file: string, log: (line: string) => void): { data: SandboxData; seq: number } | undefined {
  removeStaleTemps(file, log);
  const data = loadData(file);
  if (!data) return undefined;
  const { entries, torn } = WriteAheadLog.read(logPath(file), data.journal_seq);
  if (torn) log(`sandbox: ${logPath(file)} ended in an incomplete entry (a change cut off before it was answered); it was dropped`);
  replay(data, entries);
  return { data, seq: entries.at(-1)?.seq ?? data.journal_seq };
}

export class Durability {
  private readonly wal: WriteAheadLog;
  private readonly recorders = new Map<BudgetStore, DeltaRecorder>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * `seq` is the last write-ahead log entry the current state holds; `snapshot` gives the state to save.
   * Folds at once, so the file and write-ahead log start clean.
   */
  constructor(
    private readonly file: string,
    seq: number,
    private readonly snapshot: () => Omit<SandboxData, 'journal_seq'>,
    stores: readonly BudgetStore[],
    private readonly log: (line: string) => void,
  ) {
    // The snapshot first: a file that cannot be saved (no such directory) fails here, by name.
    saveData(file, { ...snapshot(), journal_seq: seq });
    this.wal = new WriteAheadLog(logPath(file), seq);
    this.wal.truncate();
    for (const s of stores) this.recorders.set(s, new DeltaRecorder(s.rec));
  }

  /** A budget changed (a write, or the passing of a day): record what changed. */
  budgetChanged(store: BudgetStore, stamped: readonly Versioned[]): void {
    const recorder = this.recorders.get(store);
    if (!recorder) return;
    this.record({ kind: 'budget', delta: recorder.capture(stamped) });
  }

  record(change: LoggedChange): void {
    this.wal.record(change);
    this.scheduleFold();
  }

  /** Writes and flushes what was recorded: call before answering. Throws when the disk refuses. */
  commit(): void {
    this.wal.commit();
    if (this.wal.size >= FOLD_AT_COMMITS) this.scheduleFold(0);
  }

  /** Saves a snapshot holding everything so far and empties the write-ahead log. Throws when saving fails. */
  fold(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.wal.commit();
    saveData(this.file, { ...this.snapshot(), journal_seq: this.wal.lastSeq });
    this.wal.truncate();
  }

  private scheduleFold(ms = FOLD_AFTER_MS): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // A failed save (disk full, directory gone) must not bring the service down: the write-ahead log
      // still holds every change; say so and try again later.
      try {
        this.fold();
      } catch (e) {
        this.log(`sandbox: ${(e as Error).message}; the write-ahead log keeps every change, will try again`);
        this.scheduleFold(FOLD_AFTER_MS * 5);
      }
    }, ms);
    this.timer.unref();
  }

  close(): void {
    try {
      this.fold();
    } finally {
      this.wal.close();
    }
  }
}
