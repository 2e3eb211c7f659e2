/**
 * Hearing another instance's occurrences. In hosted mode one instance at a time watches a budget
 * (the watcher's lease), so the instance holding a user's stream or alerts subscription is often not
 * the one whose sync records the occurrence. While a budget is listened to here, its log (in the
 * shared store) is read every `everyMs` and what came after the last sequence heard is passed on,
 * exactly once: occurrences this process records itself are marked heard as they are recorded.
 * A new epoch (the log started anew) is heard from its start.
 */
import type { LogState, Occurrence } from './log.js';

export interface FollowDeps {
  read: (budgetId: string) => Promise<LogState>;
  hear: (budgetId: string, occurrences: readonly Occurrence[]) => void;
  everyMs: number;
  log: (line: string) => void;
}

export class LogFollower {
  /** Per budget listened to: the epoch and last sequence heard (undefined until first read). */
  private readonly heard = new Map<string, { epoch: string; seq: number } | undefined>();
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  constructor(private readonly deps: FollowDeps) {}

  start(budgetId: string): void {
    if (!this.heard.has(budgetId)) this.heard.set(budgetId, undefined);
    if (!this.timer) {
      this.timer = setInterval(() => void this.readAll(), this.deps.everyMs);
      this.timer.unref();
    }
    void this.readAll();
  }

  stop(budgetId: string): void {
    this.heard.delete(budgetId);
    if (this.heard.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** What this process recorded itself, heard already: the next read does not pass it on again. */
  recorded(budgetId: string, state: Pick<LogState, 'epoch' | 'seq'>): void {
    if (this.heard.has(budgetId)) this.heard.set(budgetId, { epoch: state.epoch, seq: state.seq });
  }

  private async readAll(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      for (const budgetId of [...this.heard.keys()]) {
        try {
          await this.readOne(budgetId);
        } catch (e) {
          // The kind only: the store's message may name keys. The next read tries again.
          this.deps.log(`events: following a budget's log failed (${(e as Error).name}); tried again in ${this.deps.everyMs} ms`);
        }
      }
    } finally {
      this.reading = false;
    }
  }

  private async readOne(budgetId: string): Promise<void> {
    const state = await this.deps.read(budgetId);
    if (!this.heard.has(budgetId)) return;
    const last = this.heard.get(budgetId);
    // Heard already (this process recorded it while the read was under way): never step back.
    if (last && last.epoch === state.epoch && state.seq <= last.seq) return;
    this.heard.set(budgetId, { epoch: state.epoch, seq: state.seq });
    // First read: the position to follow from, nothing passed on.
    if (!last) return;
    const after = last.epoch === state.epoch ? last.seq : 0;
    const fresh = state.events.filter((o) => o.seq > after);
    if (fresh.length) this.deps.hear(budgetId, fresh);
  }
}
