/**
 * When each watched user is next due, kept in the store (`events/<identity>/watch.due`, in the
 * user's key family), so every instance's watch loop (watchers.ts) can tell, with one small read
 * per user and without opening their state, whose budgets are due, and so one instance at a time
 * opens a user's state for a watch job: the claim is one atomic update, like the budgets' leases
 * (src/events/watcher-lease.ts), which still decide, budget by budget, who syncs.
 *
 * The record: the earliest time one of the user's watched budgets is due, the fingerprint of their
 * webhook subscriptions when it was written (a new or removed subscription makes the user due at
 * once, so a new budget waits at most a tick), and while a job runs its instance's random name and
 * the claim's lapse (a crashed instance's claim lapses, and another takes the user at its next
 * tick). No budget data: times and names only. It lasts two intervals after its last write; a user
 * whose record lapsed is simply looked at again.
 */
import { createHash } from 'node:crypto';
import { segment } from '../storage/keys.js';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';

interface ScheduleRecord {
  due: number;
  subs: string;
  holder?: string;
  until?: number;
}

export const scheduleKey = (identity: string): string => `events/${segment(identity)}/watch.due`;

/** The fingerprint of a user's subscription ids (order does not matter). */
export const subsFingerprint = (ids: string[]): string =>
  createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('base64url')
    .slice(0, 16);

export class WatchSchedule {
  constructor(
    private readonly store: StateStore,
    /** This instance's random name in the claims it holds. */
    private readonly holder: string,
    /** How long a claim lasts (a job takes much less). */
    private readonly claimMs: number,
    /** How long a record lasts after its last write. */
    private readonly keepMs: number,
    /** A user due within this long is due now. */
    private readonly earlyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** When the user is due (0: at once, never watched or the record lapsed), or undefined when not due or claimed by another instance now. */
  async dueAt(identity: string, subs: string): Promise<number | undefined> {
    const was = parseJsonBytes(await this.store.get(scheduleKey(identity))) as ScheduleRecord | undefined;
    return this.due(was, subs, this.now());
  }

  private due(was: ScheduleRecord | undefined, subs: string, now: number): number | undefined {
    if (!was) return 0;
    if (was.holder && was.holder !== this.holder && (was.until ?? 0) > now) return undefined;
    if (was.subs !== subs) return 0;
    return was.due <= now + this.earlyMs ? was.due : undefined;
  }

  /** Claims the user for a watch job, if due and not claimed by another instance now. */
  async claim(identity: string, subs: string): Promise<boolean> {
    return this.store.update<boolean>(
      scheduleKey(identity),
      (bytes) => {
        const now = this.now();
        const was = parseJsonBytes(bytes) as ScheduleRecord | undefined;
        if (this.due(was, subs, now) === undefined) return { value: undefined, result: false };
        const next: ScheduleRecord = { due: was?.due ?? 0, subs: was?.subs ?? '', holder: this.holder, until: now + this.claimMs };
        return { value: jsonBytes(next), result: true };
      },
      { ttlMs: this.keepMs },
    );
  }

  /** The job is done: the user is next due at `due` (with the subscriptions it saw); the claim ends. */
  async finish(identity: string, subs: string, due: number): Promise<void> {
    await this.store.update(
      scheduleKey(identity),
      (bytes) => {
        const was = parseJsonBytes(bytes) as ScheduleRecord | undefined;
        // A claim that lapsed and was taken by another instance is theirs now.
        if (was?.holder && was.holder !== this.holder && (was.until ?? 0) > this.now()) return { value: undefined, result: undefined };
        return { value: jsonBytes({ due, subs } satisfies ScheduleRecord), result: undefined };
      },
      { ttlMs: this.keepMs },
    );
  }
}
