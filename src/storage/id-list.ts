/**
 * The ids of a family of records, kept in one key beside them (a JSON list), so that listing them
 * reads one key. Listing by prefix (`StateStore.list`) is a SCAN of the whole keyspace in hosted
 * mode: every user's keys, a thousand a round trip, whatever the prefix. An id is added before its
 * record is written and removed after its record is deleted, so a record is never missed; an id
 * whose record is gone (expired, or a removal cut short) is for the caller to remove when it finds
 * so. Records written before their ids were kept are listed by prefix once, the first time.
 */
import type { StateStore } from './store.js';

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
    const known = (await this.store.get(await this.key())) ? [] : await this.listed();
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
    const listed = await this.listed();
    await this.change((ids) => listed.forEach((id) => ids.add(id)));
    return listed;
  }
}

function parse(bytes: Uint8Array): string[] {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as string[];
}
