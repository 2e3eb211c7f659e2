/**
 * The ids of a user's webhook subscriptions, kept beside the records (`events/<identity>/webhooks.ids`,
 * storage/id-list.ts), so that listing the subscriptions reads one key. Listing `webhooks/` was a
 * SCAN of the whole keyspace in hosted mode (every user's keys, a thousand at a time) after every
 * sync and at every watcher tick. An id whose record is gone (expired, or a removal cut short) is
 * removed when found so (webhooks.ts, all()). A subscription's id is derived from what it is
 * (subscriptionId), so a repeated subscribe is a refresh of the same one.
 */
import { createHash } from 'node:crypto';
import type { EventArguments } from './catalog.js';
import { segment } from '../storage/keys.js';
import { IdList, type IdFamily } from '../storage/id-list.js';
import type { StateStore } from '../storage/store.js';

/** The subscriptions as a family of records (storage/id-list.ts): `events/<identity>/webhooks/<id>.sub`. */
export const subscriptionFamily: IdFamily = { prefix: 'events/', record: /^(events\/[^/]+\/webhooks)\/([^/]+)\.sub$/ };

export function subscriptionIds(store: StateStore, identity: () => Promise<string>): IdList {
  return new IdList(store, subscriptionFamily, async () => `events/${segment(await identity())}/webhooks`);
}

/** JSON with keys sorted: arguments compare equal however they were written. */
export const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

export function subscriptionId(principal: string, url: string, name: string, args: EventArguments): string {
  return `sub_${createHash('sha256')
    .update(canonical([principal, url, name, args]))
    .digest('hex')
    .slice(0, 16)}`;
}
