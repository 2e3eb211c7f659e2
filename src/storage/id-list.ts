/**
 * The ids of a family of records, kept in one key beside them (a JSON list), so that listing them
 * reads one key. Listing by prefix (`StateStore.list`) is a SCAN of the whole keyspace in hosted
 * mode: every user's keys, a thousand a round trip, whatever the prefix. An id is added before its
 * record is written and removed after its record is deleted, so a record is never missed; an id
 * whose record is gone (expired, or a removal cut short) is for the caller to remove when it finds
 * so.
 *
 * Records written before their ids were kept: a list that is absent is filled by listing its
 * records by prefix, the first time. On Redis that fallback is itself a SCAN of the whole keyspace
 * for every new user (and, for the undo journal, every budget's first write), which at 10,000 users
 * kept Redis half busy while users signed up (docs/capacity.md, The check). So hosted mode
 * completes every list once at an instance's start (`completeIdLists`, one SCAN a family), and from
 * then an absent list in that store is an empty one.
 */
import type { StateStore } from './store.js';

/** Stores whose lists were all completed by this process (completeIdLists): an absent list there is empty. */
const completed = new WeakSet<StateStore>();

/** A family of records whose ids are kept in lists: where its records are, and which list each belongs to. */
export interface IdFamily {
  /** The prefix under which all its records are (e.g. `changes/`). */
  prefix: string;
  /** The list key and id of a record's key; undefined for a key that is not one of its records. */
  listOf(key: string): { list: string; id: string } | undefined;
}

/**
 * Adds every record of the families to its list (one listing of each family's prefix), and marks
 * the store so that an absent list is taken as empty from then on. Idempotent: lists only grow
 * here, and each is written only when it lacked an id. Returns the ids added.
 */
export async function completeIdLists(store: StateStore, families: IdFamily[]): Promise<number> {
  let added = 0;
  for (const family of families) {
    const lists = new Map<string, string[]>();
    for (const key of await store.list(family.prefix)) {
      const of = family.listOf(key);
      if (of) lists.set(of.list, [...(lists.get(of.list) ?? []), of.id]);
    }
    for (const [list, ids] of lists) {
      added += await store.update(list, (bytes) => {
        const kept = new Set<string>(bytes ? parse(bytes) : []);
        const missing = ids.filter((id) => !kept.has(id));
        return { value: missing.length ? Buffer.from(JSON.stringify([...kept, ...missing])) : undefined, result: missing.length };
      });
    }
  }
  completed.add(store);
  return added;
}

export class IdList {
  constructor(
    private readonly store: StateStore,
    /** The key of the list. */
    private readonly key: () => Promise<string>,
    /** The records' ids found by listing their keys: the fallback for records older than the list. */
    private readonly listed: () => Promise<string[]>,
  ) {}

  /** Changes the list atomically; writes only what changed (and the first, empty list). */
  private async change(edit: (ids: Set<string>) => void): Promise<void> {
    await this.store.update(await this.key(), (bytes) => {
      const ids = new Set<string>(bytes ? parse(bytes) : []);
      const before = JSON.stringify([...ids]);
      edit(ids);
      const after = JSON.stringify([...ids]);
      return { value: bytes && after === before ? undefined : Buffer.from(after), result: undefined };
    });
  }

  /** Adds an id; with no list kept yet, the records listed once go in with it. */
  async add(id: string): Promise<void> {
    const known = completed.has(this.store) || (await this.store.get(await this.key())) ? [] : await this.listed();
    await this.change((ids) => {
      for (const k of known) ids.add(k);
      ids.add(id);
    });
  }

  remove(...gone: string[]): Promise<void> {
    return this.change((ids) => gone.forEach((id) => ids.delete(id)));
  }

  /** The ids; with none kept yet, the records listed once, and their ids kept from then. */
  async all(): Promise<string[]> {
    const bytes = await this.store.get(await this.key());
    if (bytes) return parse(bytes);
    if (completed.has(this.store)) return [];
    const listed = await this.listed();
    await this.change((ids) => listed.forEach((id) => ids.add(id))); // the first list, even empty: listed once
    return listed;
  }
}

function parse(bytes: Uint8Array): string[] {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as string[];
}
