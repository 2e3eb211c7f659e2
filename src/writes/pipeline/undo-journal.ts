/**
 * The undo journal: every change this server applies to a budget, with each entity before and
 * after, the last 100 per budget (a rehearsal's keeps more: `max`). One sealed value per change in the state store
 * (`changes/<identity>/<budget>/<id>.change`, encrypted like the replicas, since it holds budget
 * data), so that every process and hosted instance sharing the store sees the same history, and
 * appending one change writes one small value. Change ids sort by time. The ids are kept in one key
 * beside them (`changes/<identity>/<budget>.ids`, storage/id-list.ts): listing the changes by prefix
 * was a SCAN of the whole keyspace in hosted mode at every write (its prune) and every listing.
 *
 * A change that is being undone is claimed first, atomically (`undo.state: 'undoing'`), so that
 * two undo calls for one change cannot both apply; the claim becomes `'undone'` with the id of
 * the change that undid it, or is released when the undo failed before changing anything.
 */
import { randomBytes } from 'node:crypto';
import { changeKey, changesPrefix } from '../../storage/keys.js';
import { IdList, type IdFamily } from '../../storage/id-list.js';
import type { StateStore } from '../../storage/store.js';
import { SealError, type KeySource } from '../../sync/seal.js';
import { SealedRecords } from './sealed-records.js';
import type { EntityChange } from './entities.js';

export const MAX_CHANGES = 100;
const MAGIC = Buffer.from('YMCPC1\n');
/** An undo claim older than this belongs to a call that died. */
const CLAIM_LAPSE_MS = 10 * 60_000;

export interface ChangeRecord {
  id: string;
  /** When it was applied (ISO). */
  at: string;
  tool: string;
  /** What it did, in one sentence. */
  summary: string;
  entities: EntityChange[];
  /** Why it cannot be undone, when it cannot (YNAB's API has no delete for categories, payees, accounts). */
  not_undoable?: string;
  /** The change this one undid. */
  undoes?: string;
  /** Payees it made, which an undo cannot delete (plan.ts). */
  payees_created?: string[];
  undo?: { state: 'undoing' | 'undone'; by?: string; at: string };
}

/** The changes as a family of records (storage/id-list.ts): `changes/<identity>/<budget>/<id>.change`. */
export const changeFamily: IdFamily = { prefix: 'changes/', record: /^(changes\/[^/]+\/[^/]+)\/([^/]+)\.change$/ };

/** The time part of the last change id this process made. */
let lastIdMs = 0;

/**
 * A change id: time first (base 36, fixed width) so ids sort in the order the changes were made,
 * then random. Two changes in one millisecond (or after the clock stepped back) would sort by
 * their random part, and an undo would then miss the later change that touched the same thing
 * (undo-task.ts): the time part is one past the last one's when the clock has not moved on.
 */
function newId(now: number): string {
  lastIdMs = Math.max(now, lastIdMs + 1);
  return `ch-${lastIdMs.toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
}

export class UndoJournal extends SealedRecords {
  constructor(
    store: StateStore,
    keys: KeySource,
    identity: () => Promise<string>,
    now: () => number = Date.now,
    /** How many changes of a budget are kept (a rehearsal keeps more: writes/rehearsal/changes.ts). */
    readonly max: number = MAX_CHANGES,
  ) {
    super(store, keys, identity, now, MAGIC);
  }

  private async keyOf(budgetId: string, id: string): Promise<string> {
    return changeKey(await this.identity(), budgetId, id);
  }

  /** The budget's change ids, kept in one key beside its changes (`changes/<identity>/<budget>.ids`). */
  private idList(budgetId: string): IdList {
    return new IdList(this.store, changeFamily, async () => changesPrefix(await this.identity(), budgetId).slice(0, -1));
  }

  /** Records a change; returns it with its id. Keeps the last `max` of the budget. */
  async append(budgetId: string, change: Omit<ChangeRecord, 'id' | 'at'>): Promise<ChangeRecord> {
    const now = this.now();
    const record: ChangeRecord = { id: newId(now), at: new Date(now).toISOString(), ...change };
    const key = await this.keyOf(budgetId, record.id);
    const sealed = await this.sealer.seal(Buffer.from(JSON.stringify(record)), key);
    // Listed and kept in one round trip, not two (sent together, pipelined). A failure of the
    // listing alone leaves the record unlisted: it is then never shown, and goes with its
    // retention (hosted: 35 days) instead of with the pruning.
    const [listed] = await Promise.all([this.idList(budgetId).add(record.id), this.store.set(key, sealed)]);
    // Pruned only when the list says there are more than `max` (no read of it otherwise);
    // more than that kept only costs space.
    if (listed > this.max) await this.prune(budgetId).catch(() => undefined);
    return record;
  }

  /** The ids, oldest first, with their keys. */
  private async ids(budgetId: string): Promise<{ id: string; key: string }[]> {
    const identity = await this.identity();
    return (await this.idList(budgetId).all()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((id) => ({ id, key: changeKey(identity, budgetId, id) }));
  }

  private async prune(budgetId: string): Promise<void> {
    const all = await this.ids(budgetId);
    const old = all.slice(0, Math.max(0, all.length - this.max));
    if (old.length === 0) return;
    for (const o of old) await this.store.delete(o.key);
    await this.idList(budgetId).remove(...old.map((o) => o.id)); // after the records: none is left unlisted
  }

  private async open(key: string, bytes: Uint8Array | undefined): Promise<ChangeRecord | undefined> {
    if (!bytes) return undefined;
    try {
      return JSON.parse((await this.sealer.open(bytes, key)).toString('utf8')) as ChangeRecord;
    } catch (e) {
      if (e instanceof SealError || e instanceof SyntaxError) return undefined; // not ours, or under another key: not a change we can show
      throw e;
    }
  }

  /** The most recent changes first. */
  async recent(budgetId: string, limit = this.max): Promise<ChangeRecord[]> {
    const all = (await this.ids(budgetId)).reverse().slice(0, limit);
    const out: ChangeRecord[] = [];
    for (const { key } of all) {
      const r = await this.open(key, await this.store.get(key));
      if (r) out.push(r);
    }
    return out;
  }

  /** How many changes the budget's journal keeps (none opened). */
  async size(budgetId: string): Promise<number> {
    return (await this.ids(budgetId)).length;
  }

  async get(budgetId: string, id: string): Promise<ChangeRecord | undefined> {
    const key = await this.keyOf(budgetId, id);
    return this.open(key, await this.store.get(key));
  }

  /**
   * Claims a change for undoing, atomically. Returns the record, or why it cannot be claimed
   * (unknown, already undone, being undone by another call).
   */
  async claim(budgetId: string, id: string): Promise<ChangeRecord | { refused: string }> {
    const key = await this.keyOf(budgetId, id);
    const secret = await this.sealer.key();
    const at = new Date(this.now()).toISOString();
    return this.store.update<ChangeRecord | { refused: string }>(key, (bytes) => {
      if (!bytes)
        return {
          value: undefined,
          result: { refused: `no change ${id} is in this budget's undo journal (it keeps the last ${this.max}); list_recent_changes lists them` },
        };
      let r: ChangeRecord;
      try {
        r = JSON.parse(this.sealer.openSync(secret, bytes, key).toString('utf8')) as ChangeRecord;
      } catch {
        return { value: undefined, result: { refused: `change ${id} cannot be read (it was recorded under another key)` } };
      }
      if (r.undo?.state === 'undone')
        return { value: undefined, result: { refused: `change ${id} was already undone${r.undo.by ? ` by ${r.undo.by}` : ''} at ${r.undo.at}` } };
      // A claim whose holder died lapses (a retry then finds the entities as the undo left them, or not).
      if (r.undo?.state === 'undoing' && Date.parse(r.undo.at) > this.now() - CLAIM_LAPSE_MS)
        return {
          value: undefined,
          result: { refused: `change ${id} is being undone by another call (since ${r.undo.at}); list_recent_changes shows when it is done` },
        };
      const claimed: ChangeRecord = { ...r, undo: { state: 'undoing', at } };
      return { value: this.sealer.sealSync(secret, Buffer.from(JSON.stringify(claimed)), key), result: claimed };
    });
  }

  /** Ends a claim: undone by `by`, or released (undefined) when nothing was changed. */
  async settle(budgetId: string, id: string, by: string | undefined): Promise<void> {
    const key = await this.keyOf(budgetId, id);
    const secret = await this.sealer.key();
    const at = new Date(this.now()).toISOString();
    await this.store.update(key, (bytes) => {
      if (!bytes) return { value: undefined, result: undefined };
      const r = JSON.parse(this.sealer.openSync(secret, bytes, key).toString('utf8')) as ChangeRecord;
      const { undo: _undo, ...rest } = r;
      const next: ChangeRecord = by ? { ...rest, undo: { state: 'undone', by, at } } : rest;
      return { value: this.sealer.sealSync(secret, Buffer.from(JSON.stringify(next)), key), result: undefined };
    });
  }
}
