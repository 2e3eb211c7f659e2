/**
 * The ids of a user's webhook subscriptions, kept beside the records (`events/<identity>/webhooks.ids`,
 * a JSON list), so that listing the subscriptions reads one key. Listing `webhooks/` was a SCAN of
 * the whole keyspace in hosted mode (every user's keys, a thousand at a time) after every sync and
 * at every watcher tick. An id is added before its record is written and removed after its record
 * is deleted, so a record is never missed; an id whose record is gone (expired, or a removal cut
 * short) is removed when found so (webhooks.ts, all()).
 */
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';

export class SubscriptionIds {
  constructor(
    private readonly store: StateStore,
    private readonly identity: () => Promise<string>,
  ) {}

  private async key(): Promise<string> {
    return `events/${segment(await this.identity())}/webhooks.ids`;
  }

  /** Changes the list atomically; writes only what changed (and the first, empty list). */
  private async change(edit: (ids: Set<string>) => void): Promise<void> {
    await this.store.update(await this.key(), (bytes) => {
      const ids = new Set<string>(bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as string[]) : []);
      const before = ids.size;
      edit(ids);
      return { value: bytes && ids.size === before ? undefined : Buffer.from(JSON.stringify([...ids])), result: undefined };
    });
  }

  add(id: string): Promise<void> {
    return this.change((ids) => ids.add(id));
  }

  remove(id: string): Promise<void> {
    return this.change((ids) => ids.delete(id));
  }

  /** The ids; with none kept yet (records written before the ids were), the records listed once, and their ids kept from then. */
  async all(): Promise<string[]> {
    const bytes = await this.store.get(await this.key());
    if (bytes) return JSON.parse(Buffer.from(bytes).toString('utf8')) as string[];
    const prefix = `events/${segment(await this.identity())}/webhooks/`;
    const listed = (await this.store.list(prefix)).filter((k) => k.endsWith('.sub')).map((k) => k.slice(prefix.length, -'.sub'.length));
    await this.change((ids) => listed.forEach((id) => ids.add(id)));
    return listed;
  }
}
