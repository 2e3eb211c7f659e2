/**
 * The ids of a user's webhook subscriptions, kept beside the records (`events/<identity>/webhooks.ids`,
 * storage/id-list.ts), so that listing the subscriptions reads one key. Listing `webhooks/` was a
 * SCAN of the whole keyspace in hosted mode (every user's keys, a thousand at a time) after every
 * sync and at every watcher tick. An id whose record is gone (expired, or a removal cut short) is
 * removed when found so (webhooks.ts, all()).
 */
import { segment } from '../storage/keys.js';
import { IdList, type IdFamily } from '../storage/id-list.js';
import type { StateStore } from '../storage/store.js';

/** The subscriptions as a family of records (storage/id-list.ts): `events/<identity>/webhooks/<id>.sub`. */
export const subscriptionFamily: IdFamily = { prefix: 'events/', record: /^(events\/[^/]+\/webhooks)\/([^/]+)\.sub$/ };

export function subscriptionIds(store: StateStore, identity: () => Promise<string>): IdList {
  return new IdList(store, subscriptionFamily, async () => `events/${segment(await identity())}/webhooks`);
}
