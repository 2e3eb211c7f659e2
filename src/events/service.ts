/**
 * The events of the budgets one identity can read: a scan of a budget's copy (detect.ts) recorded
 * in its occurrence log (log.ts) after every sync that reaches it, pages of occurrences after a
 * cursor filtered by a subscription's arguments, and the listeners that hear of new occurrences
 * (push streams, the alerts resource's subscribers, webhook delivery). The protocol side
 * (src/mcp/events/events.ts) and the alerts tool answer from here.
 */
import { DEFAULT_MAX_EVENTS, MAX_EVENTS } from './limits.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { Sealer } from '../sync/seal.js';
import type { StateStore } from '../storage/store.js';
import { ReconciledDates } from '../sync/reconciled.js';
import { BudgetView } from '../insights/core/view.js';
import type { EventArguments, EventName } from './catalog.js';
import { detect } from './detect.js';
import { OccurrenceLog, pageAfter, type LogState, type Occurrence, type Page } from './log.js';
import { AlertSettingsStore, digestOf } from './settings.js';
import { matches } from './filter.js';
import { LogFollower } from './follow.js';
import { PullRecords } from './pull.js';

export interface EventsOptions {
  store: StateStore;
  sealer: Sealer;
  identity: () => Promise<string>;
  /** The budget's copy, as fresh as the purpose needs (writes/pipeline/reads.ts: 'answer', the staleness bound; 'watch'). */
  read: (budgetParam: string, purpose: 'answer' | 'watch') => Promise<BudgetReplica>;
  now?: () => number;
  /**
   * Hosted mode (a store other instances write too): while a budget is listened to here, its log
   * is read this often, so occurrences another instance records are heard (follow.ts).
   */
  followMs?: number;
  log?: (line: string) => void;
}

export type FiredListener = (budgetId: string, fired: readonly Occurrence[]) => void;

export class EventsService {
  readonly log: OccurrenceLog;
  readonly settings: AlertSettingsStore;
  /** Each client's place in the alerts it pulls (needs_attention), and what Events delivered to it (pull.ts). */
  readonly pulls: PullRecords;
  /** When this server reconciled each account (reconcile_account records it): account.reconcile_due counts it. */
  readonly reconciled: ReconciledDates;
  private readonly listeners = new Set<FiredListener>();
  private readonly hearers = new Set<FiredListener>();
  private readonly follower: LogFollower | undefined;
  /** The copy each budget was last scanned at (its sync time and knowledge), and the hour: a scan per change or hour. */
  private readonly scanned = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly opts: EventsOptions) {
    this.log = new OccurrenceLog(opts.store, opts.sealer, opts.identity);
    this.settings = new AlertSettingsStore(opts.store, opts.identity);
    this.pulls = new PullRecords(opts.store, opts.identity);
    this.reconciled = new ReconciledDates(opts.store, opts.identity);
    this.now = opts.now ?? Date.now;
    this.follower =
      opts.followMs === undefined
        ? undefined
        : new LogFollower({
            read: (id) => this.log.read(id),
            hear: (id, o) => this.tell(this.hearers, id, o),
            everyMs: opts.followMs,
            log: opts.log ?? (() => {}),
          });
  }

  /** Budgets a stream or a resource subscription of this process listens to (the watcher syncs them), with how many listen. */
  private readonly listened = new Map<string, number>();

  /** Marks a budget watched while this process listens to it (a stream, a resources/subscribe); returns the way to stop. */
  watch(budgetId: string): () => void {
    this.listened.set(budgetId, (this.listened.get(budgetId) ?? 0) + 1);
    this.follower?.start(budgetId);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.listened.get(budgetId) ?? 1) - 1;
      if (n > 0) this.listened.set(budgetId, n);
      else {
        this.listened.delete(budgetId);
        this.follower?.stop(budgetId);
      }
    };
  }

  /** The budgets this process listens to now. */
  watchedHere(): string[] {
    return [...this.listened.keys()];
  }

  /** Hears of every occurrence this process records (webhook delivery, metrics); returns the way to stop. */
  onFired(listener: FiredListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Hears of every new occurrence of a budget listened to here (watch()), whichever instance
   * recorded it: streams and the alerts resource's subscribers. Each is heard once.
   */
  onHeard(listener: FiredListener): () => void {
    this.hearers.add(listener);
    return () => this.hearers.delete(listener);
  }

  private tell(to: Set<FiredListener>, budgetId: string, fired: readonly Occurrence[]): void {
    for (const l of [...to]) l(budgetId, fired);
  }

  /**
   * Scans a copy unless this very copy was scanned this hour (the digest and the month turn with
   * time, not only with syncs); records what fired and tells the listeners.
   */
  async scan(replica: BudgetReplica): Promise<Occurrence[]> {
    const now = new Date(this.now());
    const budgetId = replica.summary.id;
    const reconciled = await this.reconciled.get(budgetId);
    // A reconcile recorded here since the last scan is a change too, though YNAB's copy may not show one.
    const mark = `${replica.syncedAt}:${replica.knowledge}:${now.toISOString().slice(0, 13)}:${JSON.stringify(reconciled)}`;
    if (this.scanned.get(budgetId) === mark) return [];
    const found = detect(BudgetView.of(replica), now, digestOf(await this.settings.get()), reconciled);
    const { fired, state } = await this.log.record(budgetId, found, now);
    this.scanned.set(budgetId, mark);
    this.follower?.recorded(budgetId, state);
    if (fired.length) {
      this.tell(this.listeners, budgetId, fired);
      this.tell(this.hearers, budgetId, fired);
    }
    return fired;
  }

  /** The budget's copy (as fresh as an answer's, or a stream's own watch), scanned. */
  async refresh(budgetParam: string, purpose: 'answer' | 'watch' = 'answer'): Promise<{ replica: BudgetReplica; state: LogState }> {
    const replica = await this.opts.read(budgetParam, purpose);
    await this.scan(replica);
    return { replica, state: await this.log.read(replica.summary.id) };
  }

  /** One page of an event type's occurrences after `cursor` that match the arguments. */
  async poll(
    budgetParam: string,
    name: EventName | readonly EventName[],
    args: EventArguments,
    cursor: string | null | undefined,
    max: number = DEFAULT_MAX_EVENTS,
    maxAgeMs?: number,
  ): Promise<Page & { budgetId: string }> {
    const { replica, state } = await this.refresh(budgetParam);
    const names = new Set<string>(typeof name === 'string' ? [name] : name);
    const keep = (o: Occurrence) => names.has(o.name) && matches(o, args, replica);
    const floor = maxAgeMs === undefined ? undefined : this.now() - maxAgeMs;
    return { ...pageAfter(state, cursor, keep, Math.min(max, MAX_EVENTS), floor), budgetId: replica.summary.id };
  }

  /** The budget's copy for names (filters), synced only when past the staleness bound; undefined when it cannot be had. */
  async replicaOf(budgetId: string): Promise<BudgetReplica | undefined> {
    return this.opts.read(budgetId, 'answer').catch(() => undefined);
  }
}
