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
/**
 * Stores that pass every call on to another (each stack's closing gate, closing.ts), by the store
 * they pass it to: lists completed in that one are complete through them. Without it, every user's
 * stack (which reaches the store through its gate) scanned the whole keyspace at each budget's
 * first write and first sync, as if nothing had been completed.
 */
const innerOf = new WeakMap<StateStore, StateStore>();

/** `outer` passes every call on to `inner` (a closing gate's store): it reads and writes the same lists. */
export function passesTo(outer: StateStore, inner: StateStore): void {
  innerOf.set(outer, inner);
}

/** Whether the lists of `store`, or of a store it passes its calls to, were completed by this process. */
function isCompleted(store: StateStore): boolean {
  for (let s: StateStore | undefined = store; s; s = innerOf.get(s)) if (completed.has(s)) return true;
  return false;
}

/**
 * A family of records whose ids are kept in lists. Its records are `<folder>/<id><suffix>`, and
 * each folder's list is `<folder>.ids`, beside the folder.
 */
export interface IdFamily {
  /** The prefix under which all its records are (e.g. `changes/`). */
  prefix: string;
  /** A record's key: its folder (group 1) and id (group 2); nothing else matches. */
  record: RegExp;
}

const listKeyOf = (folder: string): string => `${folder}.ids`;

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
      const m = family.record.exec(key);
      if (!m) continue;
      const list = listKeyOf(m[1]!);
      if (!lists.has(list)) lists.set(list, []);
      lists.get(list)!.push(m[2]!);
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

/** The list of one folder of a family's records. */
export class IdList {
  constructor(
    private readonly store: StateStore,
    private readonly family: IdFamily,
    /** The folder of the records (no trailing '/'); the list is `<folder>.ids`. */
    private readonly folder: () => Promise<string>,
  ) {}

  private async key(): Promise<string> {
    return listKeyOf(await this.folder());
  }

  /** The records' ids found by listing their folder: the fallback for records older than the list. */
  private async listed(): Promise<string[]> {
    const folder = await this.folder();
    const ids: string[] = [];
    for (const key of await this.store.list(`${folder}/`)) {
      const m = this.family.record.exec(key);
      if (m && m[1] === folder) ids.push(m[2]!);
    }
    return ids;
  }

  /** Changes the list atomically; writes only what changed (and the first, empty list). Returns how many ids it holds now. */
  private async change(edit: (ids: Set<string>) => void): Promise<number> {
    return this.store.update(await this.key(), (bytes) => {
      const ids = new Set<string>(bytes ? parse(bytes) : []);
      const before = ids.size; // edits only add or only remove: the size tells whether one did
      edit(ids);
      return { value: bytes && ids.size === before ? undefined : Buffer.from(JSON.stringify([...ids])), result: ids.size };
    });
  }

  /** Adds an id; with no list kept yet, the records listed once go in with it. Returns how many ids the list holds now. */
  async add(id: string): Promise<number> {
    const known = isCompleted(this.store) || (await this.store.get(await this.key())) ? [] : await this.listed();
    return this.change((ids) => {
      for (const k of known) ids.add(k);
      ids.add(id);
    });
  }

  async remove(...gone: string[]): Promise<void> {
    await this.change((ids) => gone.forEach((id) => ids.delete(id)));
  }

  /** The ids; with none kept yet, the records listed once, and their ids kept from then. */
  async all(): Promise<string[]> {
    const bytes = await this.store.get(await this.key());
    if (bytes) return parse(bytes);
    if (isCompleted(this.store)) return [];
    const listed = await this.listed();
    await this.change((ids) => listed.forEach((id) => ids.add(id))); // the first list, even empty: listed once
    return listed;
  }
}

function parse(bytes: Uint8Array): string[] {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as string[];
}
