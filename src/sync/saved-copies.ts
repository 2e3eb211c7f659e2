/**
 * The saved (encrypted) copies of the replica manager's budgets (manager.ts): read when a budget
 * is not held, saved after each sync once its answer has gone out, and what went wrong with them.
 * A problem is logged on stderr once (not per sync), told to the next answer about the budget it
 * concerns, and listed by status. Apart from the manager because none of this decides when to
 * sync; it only keeps what a sync made.
 */
import { replicaFeedKey } from '../storage/keys.js';
import { type Held, type IoAside, KeyUnavailableError, StateStoreError } from '../storage/store.js';
import type { ReplicaFiles } from './persist.js';
import { BudgetReplica } from './replica.js';
import { catchUp, type Feed } from './replica-feed.js';

/** What the next answer says when a saved copy was discarded. */
const discarded = (why: string) => `The saved copy of this budget could not be used (${why}); it was discarded and the budget fetched again from YNAB.`;

/** What an answer says when saved copies cannot be read or kept (the replica key, the state directory). */
function noCopy(e: StateStoreError): string {
  return `No saved copy of this budget can be used or kept: ${e.message} Answers come from YNAB; the copy is held in memory only.`;
}

export class SavedCopies {
  /** What the next answer about a budget must say (a saved copy discarded), by budget id. */
  private readonly notes = new Map<string, string[]>();
  /** Messages already logged, so that a state directory that cannot be written is said once, not per sync. */
  private readonly logged = new Set<string>();
  /** Budgets whose answers were told that no saved copy can be used or kept. */
  private readonly toldNoCopy = new Set<string>();
  /** Saves under way, so that the manager's flush() also waits for those started by a sync. */
  private readonly saving = new Set<Promise<boolean>>();

  /** Reads under way, by budget: callers asking at once share one. */
  private readonly reading = new Map<string, Promise<BudgetReplica | undefined>>();

  constructor(
    private readonly files: ReplicaFiles | undefined,
    /** Key of the current token (a hash), separating saved replicas of different users. */
    private readonly tokenKey: () => Promise<string>,
    private readonly log?: (line: string) => void,
    /** Wraps a wait on another caller's read of the same copy: hosted mode's admission. */
    private readonly aside?: IoAside,
  ) {}

  /**
   * The saved copy of a budget as a replica, if there is a usable one. One that was discarded
   * leaves a note for the next answer; a state store that cannot be read is logged and treated as
   * holding nothing (the budget is fetched; the request ledger reports the same directory by name
   * if it fails too). `caughtUp` (shared copies, saved only now and then): with the changes the
   * budget's feed recorded since merged in.
   */
  read(id: string, caughtUp = false): Promise<BudgetReplica | undefined> {
    const key = `${caughtUp}/${id}`;
    let pending = this.reading.get(key);
    if (!pending) {
      pending = (async () => {
        const [replica, feed] = await Promise.all([this.readWhole(id), caughtUp ? this.feed(id) : undefined]);
        if (replica && feed) catchUp(replica, feed);
        return replica;
      })().finally(() => this.reading.delete(key));
      this.reading.set(key, pending);
      return pending;
    }
    const joined = pending;
    return this.aside ? this.aside(() => joined) : joined;
  }

  private async readWhole(id: string): Promise<BudgetReplica | undefined> {
    if (!this.files) return undefined;
    let loaded;
    try {
      loaded = await this.files.load(await this.tokenKey(), id, { monthsLater: true });
    } catch (e) {
      if (!(e instanceof StateStoreError)) throw e;
      this.logOnce(`ynab-mcp: ${e.message}`);
      // The budget is fetched and held in memory; the answer says why no saved copy is used.
      this.noteNoCopy(id, e);
      return undefined;
    }
    if (!loaded.snapshot) {
      if (loaded.discarded) this.notes.set(id, [discarded(loaded.discarded)]);
      return undefined;
    }
    try {
      return BudgetReplica.fromSnapshot(loaded.snapshot, loaded.shared, loaded.months);
    } catch (e) {
      // Of this build's shape, so not checked entity by entity, and not a copy a replica can hold.
      await this.drop(id, (e as Error).message);
      return undefined;
    }
  }

  /**
   * Drops the budget's saved copy (and, hosted, its feed) that could not be answered from; the next
   * answer about the budget says so, once. One that cannot be removed is dropped again next time.
   */
  async drop(id: string, why: string): Promise<void> {
    await this.settled(); // a save under way must not bring it back
    this.notes.set(id, [discarded(why)]);
    this.log?.(`ynab-mcp: the saved copy of budget ${id} could not be answered from (${why}); it was removed and the budget will be fetched again`);
    if (this.files) await this.files.remove(await this.tokenKey(), id).catch(() => undefined);
  }

  /** Saves the copy; whether it was saved (a failure is logged once, and told to the next answer when it is the key's). */
  save(replica: BudgetReplica): Promise<boolean> {
    const pending = this.write(replica).finally(() => this.saving.delete(pending));
    this.saving.add(pending);
    return pending;
  }

  /**
   * The budget's feed of recent changes (hosted mode), or undefined. Only a shortcut: when it cannot
   * be read, copies are read whole, so a problem here is for the saved copy's own read to report.
   */
  async feed(id: string): Promise<Feed | undefined> {
    if (!this.files) return undefined;
    try {
      return await this.files.loadFeed(await this.tokenKey(), id);
    } catch {
      return undefined;
    }
  }

  /** The key of the budget's feed, read with the sync's lock (manager.ts); undefined without saved copies. */
  async feedKey(id: string): Promise<string | undefined> {
    return this.files ? replicaFeedKey(await this.tokenKey(), id) : undefined;
  }

  /** The budget's feed from what the sync's lock read of its key (feedKey), as feed() says. */
  async feedOf(id: string, bytes: Uint8Array | undefined): Promise<Feed | undefined> {
    if (!this.files) return undefined;
    try {
      return await this.files.openFeed(await this.tokenKey(), id, bytes);
    } catch {
      return undefined;
    }
  }

  /**
   * Records the feed after a sync (`held`: written as the sync's lock is released, in its round
   * trip); when that fails, instances read the saved copy whole instead.
   */
  async saveFeed(id: string, feed: Feed, held?: Held): Promise<void> {
    if (!this.files) return;
    const failed = (e: unknown) => this.logOnce(`ynab-mcp: could not save the recent changes of budget ${id}: ${(e as Error).message}`);
    try {
      const identity = await this.tokenKey();
      if (!held) return await this.files.saveFeed(identity, id, feed);
      const { key, sealed } = await this.files.sealFeed(identity, id, feed);
      held.setOnRelease(key, sealed).catch(failed);
    } catch (e) {
      failed(e);
    }
  }

  /** Waits for the saves under way. */
  async settled(): Promise<void> {
    await Promise.all([...this.saving]);
  }

  /** What the next answer about this budget must also say (a saved copy that was discarded), once. */
  takeNotes(budgetId: string): string[] {
    const notes = this.notes.get(budgetId) ?? [];
    this.notes.delete(budgetId);
    return notes;
  }

  /** What kept saved copies from being read or saved so far (the state directory, the replica key), for status. */
  problems(): string[] {
    return [...this.logged].map((line) => line.replace(/^ynab-mcp: /, ''));
  }

  private async write(replica: BudgetReplica): Promise<boolean> {
    if (!this.files) return false;
    // Once the answer waiting for the sync has gone out: saving compresses and encrypts the whole
    // budget, and the first time opens the keychain for the key.
    await new Promise((r) => setImmediate(r));
    try {
      await this.files.save(await this.tokenKey(), replica.snapshot());
      return true;
    } catch (e) {
      if (!(e instanceof KeyUnavailableError)) {
        this.logOnce(`ynab-mcp: could not save the copy of budget ${replica.summary.id}: ${(e as Error).message}`);
        return false;
      }
      // One problem for every budget, said once on stderr (as when loading); the next answer about
      // this budget says it too, unless an answer about it already did.
      this.logOnce(`ynab-mcp: ${e.message}`);
      this.noteNoCopy(replica.summary.id, e);
      return false;
    }
  }

  private logOnce(line: string): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    this.log?.(line);
  }

  /** The next answer about `budgetId` says why no saved copy is used or kept (once per budget). */
  private noteNoCopy(budgetId: string, e: StateStoreError): void {
    if (this.toldNoCopy.has(budgetId)) return;
    this.toldNoCopy.add(budgetId);
    this.notes.set(budgetId, [...(this.notes.get(budgetId) ?? []), noCopy(e)]);
  }
}
