/**
 * Keeps budget replicas fresh enough and answers from them.
 *  - A read within the staleness bound costs no request. Past it, one delta export refreshes the
 *    whole budget, and concurrent reads wait for that same request.
 *  - After a write the replica is refreshed before the next read, so answers include the write's
 *    effects the write's own answer did not show (balances, months, the other side of a transfer).
 *  - `last-used` / `default` are resolved by the export itself: the delta is asked for by alias and
 *    the answer names the budget, so an alias that moved to another budget is noticed for free.
 *  - When no request is possible (quota spent, service unreachable, the request ledger cannot be
 *    read or written), reads are answered from the replica with a notice saying how old it is.
 *  - A saved copy that could not be used, or that answering from failed (dropBroken), was discarded
 *    and the budget fetched again: the next answer about it says so. So does the first answer after
 *    saved copies could not be read at all (the replica key or the state directory cannot be used):
 *    the budget is fetched and held in memory only; status says why. Replicas are held in an LRU
 *    bounded by approximate size and saved (encrypted) after each sync (saved-copies.ts).
 *
 * Hosted mode shares replicas between instances through the state store (`shared`):
 *  - before a replica held here answers, the highest knowledge any instance's write reached for
 *    the budget is checked (one small read): a write made through another instance makes this
 *    copy sync first, so a user reads their own writes whichever instance answers;
 *  - a budget is synced by one instance at a time (a store lock), and inside it what the last sync
 *    of any instance reached is read: when another instance has just synced, a copy held here
 *    merges the changes that sync recorded (replica-feed.ts), or else the saved copy is read
 *    whole, and no request is made. Saves happen inside the lock, so the saved copy only moves
 *    forward.
 */
import { QuotaExhaustedError } from '../api/client/errors.js';
import type { OperationId } from '../api/operations/index.js';
import type { TransactionQuery } from '../api/read/transactions.js';
import type * as E from '../api/schemas/entities.js';
import { type Held, StateStoreError } from '../storage/store.js';
import { CorruptError } from './byte-stream.js';
import { canServeStale, type Freshness } from './freshness.js';
import { answerFromReplica, type ReplicaAnswerOptions } from './replica-reads.js';
import { BudgetReplica } from './replica.js';
import { ownReplicaCache, type ReplicaCache } from './replica-cache.js';
import type { ReplicaManagerOptions, SharedReplicas } from './manager-options.js';
import { catchUp, copyDue, type Feed, nextFeed } from './replica-feed.js';
import { SavedCopies } from './saved-copies.js';

export type { CatchUp } from './replica-feed.js';
export type { Freshness } from './freshness.js';
export type { ReplicaManagerOptions, SharedReplicas } from './manager-options.js';

const ALIASES = new Set(['last-used', 'default']);

/** A shared sync's lock: the feed it read, the budget it is named by, and the lock's hold (store.ts Held). */
type SyncUnder = { feed?: Feed; locked: string; held?: Held };
export class ReplicaManager {
  private readonly cache: ReplicaCache;
  private readonly aliases = new Map<string, string>();
  private readonly syncing = new Map<string, Promise<BudgetReplica>>();
  private readonly saved: SavedCopies;
  private readonly now: () => number;
  readonly maxStalenessMs: number;

  constructor(private readonly opts: ReplicaManagerOptions) {
    this.now = opts.now ?? Date.now;
    this.maxStalenessMs = opts.maxStalenessMs ?? 60_000;
    this.cache = opts.cache ?? ownReplicaCache(opts.maxBytes ?? 256 * 1024 * 1024);
    this.saved = new SavedCopies(opts.files, opts.tokenKey, opts.log, opts.aside);
  }

  /** Replicas held in memory. */
  held(): BudgetReplica[] {
    return this.cache.values();
  }

  /** The replica of a budget if held, without syncing (for names and formats next to other answers). */
  peek(budgetParam: string): BudgetReplica | undefined {
    return this.cache.get(this.aliases.get(budgetParam) ?? budgetParam);
  }

  /** Answers a read operation from the budget's replica, syncing first when it is not fresh enough. */
  async read(
    budgetParam: string,
    op: OperationId,
    params: Record<string, string>,
    query: TransactionQuery,
    opts: ReplicaAnswerOptions = {},
  ): Promise<{ data: Record<string, unknown>; freshness: Freshness; notices: string[] }> {
    for (let retried = false; ; retried = true) {
      const { replica, notice } = await this.fresh(budgetParam);
      try {
        const data = answerFromReplica(replica, op, { ...params, budget_id: replica.summary.id }, query, new Date(this.now()), opts);
        return { data, freshness: this.freshnessOf(replica, notice), notices: this.takeNotes(replica.summary.id) };
      } catch (e) {
        if (retried || !(await this.dropBroken(replica.summary.id, e))) throw e;
      }
    }
  }

  /**
   * After answering from the budget's copy threw `e`: a copy read from a saved one (unchecked when of
   * this build's shape) that threw what a null or wrongly shaped entry makes code throw, or whose
   * months (read when first asked for: replica-months.ts) were not a form, is dropped, held and
   * saved, and true says to answer once more (a full sync), saying why. Else `e` stands.
   */
  async dropBroken(budgetParam: string, e: unknown): Promise<boolean> {
    const held = this.peek(budgetParam);
    if (!held?.restored || !(e instanceof TypeError || e instanceof RangeError || e instanceof CorruptError)) return false;
    this.cache.delete(held.summary.id);
    await this.saved.drop(held.summary.id, e.message);
    return true;
  }

  /** What the next answer about the budget must also say (a saved copy discarded), once. */
  takeNotes(budgetId: string): string[] {
    return this.saved.takeNotes(budgetId);
  }

  /**
   * The budget's knowledge now, as a baseline for finding what a write created: the held
   * replica's, or that of a first sync when none is held.
   */
  async baseline(budgetParam: string): Promise<{ id: string; knowledge: number }> {
    const held = this.peek(budgetParam);
    if (held) return { id: held.summary.id, knowledge: held.knowledge };
    const { replica } = await this.fresh(budgetParam);
    return { id: replica.summary.id, knowledge: replica.knowledge };
  }

  /**
   * Everything changed since `knowledge` (a raw delta export) and the service's knowledge now,
   * merged into the replica too. When the replica knew less than `knowledge` (a write journal's
   * baseline is often ahead of it), the delta does not cover the gap: the entities are merged but
   * the replica keeps its own knowledge and syncs before its next answer.
   */
  async changesSince(budgetId: string, knowledge: number): Promise<{ delta: E.BudgetDetail; knowledge: number }> {
    const res = await this.opts.client.call('getPlanById', { params: { budget_id: budgetId }, query: { last_knowledge_of_server: knowledge } });
    const delta = res.data.plan as E.BudgetDetail;
    const now = res.data.server_knowledge as number;
    const replica = this.cache.get(budgetId) ?? (await this.loadSaved(budgetId));
    if (replica) {
      replica.applyExport(delta, now, this.now(), { gap: replica.knowledge < knowledge });
      this.cache.set(budgetId, replica);
    }
    return { delta, knowledge: now };
  }

  /** Merges what a write answered with; the next read syncs first. */
  applyWrite(budgetParam: string, data: Record<string, unknown>): void {
    const id = this.aliases.get(budgetParam) ?? budgetParam;
    const replica = this.cache.get(id);
    if (replica) replica.applyWrite(data);
  }

  freshnessOf(r: BudgetReplica, notice?: string): Freshness {
    const age = Math.max(0, Math.round((this.now() - r.syncedAt) / 1000));
    return { source: 'replica', synced_at: new Date(r.syncedAt).toISOString(), age_seconds: age, stale: notice !== undefined, ...(notice ? { notice } : {}) };
  }

  /**
   * The replica of a budget, synced unless fresh enough (at most `maxAgeMs` old; writes that
   * wait for confirmation ask for nearly now); stale with a notice when no request is possible.
   * `dirtyOk`: a copy our own writes changed since its sync will do (their answers are merged in;
   * what it lacks is their side effects), so that a run of writes does not sync before each.
   */
  async fresh(
    budgetParam: string,
    maxAgeMs: number = this.maxStalenessMs,
    opts: { dirtyOk?: boolean } = {},
  ): Promise<{ replica: BudgetReplica; notice?: string }> {
    if (ALIASES.has(budgetParam) && !this.aliases.has(budgetParam) && this.opts.files) {
      const saved = await this.opts.files.loadAliases(await this.opts.tokenKey());
      if (saved[budgetParam]) this.aliases.set(budgetParam, saved[budgetParam]);
    }
    const known = this.aliases.get(budgetParam) ?? (ALIASES.has(budgetParam) ? undefined : budgetParam);
    const held = known ? this.cache.get(known) : undefined;
    let replica = held ?? (known ? await this.loadSaved(known) : undefined);
    if (replica && this.usable(replica, maxAgeMs, opts.dirtyOk) && (await this.seesOwnWrites(replica))) {
      this.opts.onCache?.(held ? 'hit' : 'saved');
      return { replica };
    }
    this.opts.onCache?.('miss');
    try {
      replica = await this.sync(budgetParam, replica);
      return { replica };
    } catch (e) {
      if (replica && canServeStale(e)) {
        const why = e instanceof QuotaExhaustedError || e instanceof StateStoreError ? e.message : `the service could not be reached (${(e as Error).message})`;
        return { replica, notice: `answered from a copy synced ${this.freshnessOf(replica).age_seconds} s ago: ${why}` };
      }
      throw e;
    }
  }

  /** Clean (or `dirtyOk`: changed only by our own writes), and synced within `maxAgeMs` (never more than the staleness bound). */
  private usable(r: BudgetReplica, maxAgeMs: number = this.maxStalenessMs, dirtyOk = false): boolean {
    return (!r.dirty || dirtyOk) && this.now() - r.syncedAt < Math.min(maxAgeMs, this.maxStalenessMs);
  }

  /** Shared replicas: no write of ours (any instance) is newer than this copy. Unknowable (store down): trusted. */
  private async seesOwnWrites(r: BudgetReplica): Promise<boolean> {
    if (!this.opts.shared) return true;
    // A write through this process took the mark past this copy: no read can say otherwise.
    if ((this.opts.shared.writtenHere?.(r.summary.id) ?? 0) > r.knowledge) return false;
    try {
      return (await this.opts.shared.written(r.summary.id)) <= r.knowledge;
    } catch {
      return true;
    }
  }

  /** What kept saved copies from being read or saved so far (the state directory, the replica key), for status. */
  problems(): string[] {
    return this.saved.problems();
  }

  /** The saved copy of a budget, if there is a usable one (saved-copies.ts), held from now on. */
  private async loadSaved(id: string): Promise<BudgetReplica | undefined> {
    // Shared: the copy is saved only now and then, and merges the changes recorded since.
    const replica = await this.saved.read(id, this.opts.shared !== undefined);
    if (replica) this.cache.set(id, replica);
    return replica;
  }

  /** One sync per budget at a time: concurrent callers share the request. */
  private sync(budgetParam: string, current: BudgetReplica | undefined): Promise<BudgetReplica> {
    const key = current?.summary.id ?? budgetParam;
    let pending = this.syncing.get(key);
    if (!pending) {
      pending = (this.opts.shared ? this.sharedSync(budgetParam, current, this.opts.shared) : this.doSync(budgetParam, current)).finally(() =>
        this.syncing.delete(key),
      );
      this.syncing.set(key, pending);
      return pending;
    }
    // Another caller's sync: a wait (hosted: the request's admission slot goes on meanwhile).
    const joined = pending;
    return this.opts.aside ? this.opts.aside(() => joined) : joined;
  }

  /**
   * A sync no other instance runs at the same time, starting from the best copy there is; the
   * budget's feed is read as the lock is taken, and written as it is released (the store's withLock).
   */
  private async sharedSync(budgetParam: string, current: BudgetReplica | undefined, shared: SharedReplicas): Promise<BudgetReplica> {
    const id = current?.summary.id ?? this.aliases.get(budgetParam) ?? budgetParam;
    const feedKey = ALIASES.has(id) ? undefined : await this.saved.feedKey(id);
    return shared.exclusive(id, feedKey, async (held) => {
      const feed = !feedKey ? undefined : held ? await this.saved.feedOf(id, held.read) : await this.saved.feed(id);
      // Another instance may have synced while this one waited: the changes it merged bring a copy
      // held here up to date, or else its saved copy may do.
      if (current && feed && catchUp(current, feed)) {
        this.cache.set(current.summary.id, current);
        if (this.usable(current) && (await this.seesOwnWrites(current))) {
          this.opts.onCatchUp?.('changes');
          return current;
        }
        this.opts.onCatchUp?.('request');
        return this.doSync(budgetParam, current, { feed, locked: id, held });
      }
      const saved = ALIASES.has(id) ? undefined : await this.saved.read(id);
      if (saved && feed) catchUp(saved, feed);
      let base = current;
      if (saved && (!base || saved.knowledge > base.knowledge || (saved.knowledge === base.knowledge && !base.dirty))) base = saved;
      if (base && base !== current && this.usable(base) && (await this.seesOwnWrites(base))) {
        this.cache.set(base.summary.id, base);
        this.opts.onCatchUp?.('copy');
        return base;
      }
      this.opts.onCatchUp?.('request');
      return this.doSync(budgetParam, base, { feed, locked: id, held });
    });
  }

  /**
   * Syncs from `current` (a delta) or from nothing (a full export). `shared`: for other instances
   * too, under the lock named `locked`: the copy is saved before the lock is released, and the feed
   * records what was merged.
   */
  private async doSync(budgetParam: string, current: BudgetReplica | undefined, shared?: SyncUnder): Promise<BudgetReplica> {
    const replica = await this.fetchSync(budgetParam, current, shared);
    // Only a copy YNAB brought up to date is scanned (onSynced): one caught up from another
    // instance's changes or saved copy holds what that instance's sync fetched, and scanned. Each
    // instance scanning it again cost a tenth of the hosted crowd's CPU (2026-11-25).
    this.opts.onSynced?.(replica);
    return replica;
  }

  private async fetchSync(budgetParam: string, current: BudgetReplica | undefined, shared?: SyncUnder): Promise<BudgetReplica> {
    let from = current?.knowledge;
    let res = await this.opts.client.call('getPlanById', { params: { budget_id: budgetParam }, query: current ? { last_knowledge_of_server: from } : {} });
    let budget = res.data.plan as E.BudgetDetail;
    const at = this.now();
    if (current && budget.id !== current.summary.id) {
      // The alias now names another budget: that answer was a delta against the wrong knowledge.
      const other = this.cache.get(budget.id) ?? (await this.loadSaved(budget.id));
      from = other?.knowledge;
      res = await this.opts.client.call('getPlanById', {
        params: { budget_id: budget.id },
        query: other ? { last_knowledge_of_server: from } : {},
      });
      budget = res.data.plan as E.BudgetDetail;
      current = other;
    }
    const replica =
      current ??
      new BudgetReplica({
        id: budget.id,
        name: budget.name,
        last_modified_on: null,
        first_month: null,
        last_month: null,
        date_format: null,
        currency_format: null,
      });
    const knowledge = res.data.server_knowledge as number;
    replica.applyExport(budget, knowledge, at);
    if (ALIASES.has(budgetParam) && this.aliases.get(budgetParam) !== replica.summary.id) {
      this.aliases.set(budgetParam, replica.summary.id);
      void this.opts.files?.saveAliases(await this.opts.tokenKey(), Object.fromEntries(this.aliases)).catch(() => {});
    }
    this.cache.set(replica.summary.id, replica);
    if (!shared) {
      void this.saved.save(replica);
      return replica;
    }
    // Saved before the lock is released, so the next instance finds these changes, and now and then
    // (copyDue) this whole copy: a copy read whole merges the changes since from the feed.
    // The feed read under the lock is this budget's unless the lock was an alias's (a first sync) or
    // the alias named another budget. Syncs under two names can race to write it; each entry is a
    // real delta either way, so the worst is a lost entry, and a copy that cannot catch up is read whole.
    const id = replica.summary.id;
    const previous = shared.locked === id ? shared.feed : await this.saved.feed(id);
    const feed = nextFeed(previous, { from, to: knowledge, at, delta: budget });
    if (copyDue(feed) && (await this.saved.save(replica))) feed.copy = knowledge;
    // Written as the lock is released (Redis: in the release's round trip), before the next sync reads it.
    await this.saved.saveFeed(id, feed, shared.held);
    return replica;
  }

  /** Waits for the saves under way (a sync's scan runs after its copy's save, never beside it: stack.ts). */
  saves(): Promise<void> {
    return this.saved.settled();
  }

  /** Waits for pending saves (tests, shutdown). */
  async flush(): Promise<void> {
    // A save a sync started must not land after this (e.g. after the process's last write).
    await this.saved.settled();
    // Shared replicas are saved by the sync that made them, under its lock: saving a held copy now
    // could put an older one over a newer one another instance saved.
    if (this.opts.shared) return;
    await Promise.all(this.cache.values().map((r) => this.saved.save(r)));
  }
}
