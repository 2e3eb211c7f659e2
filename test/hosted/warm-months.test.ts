// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The warm-up's users step (src/hosted/warm-users.ts) on a real redis-server: with time left once
 * the users' copies are read, it reads their months too, which a saved copy otherwise leaves to
 * the first answer about a month (src/sync/replica-months.ts), so that a crowd after a restart does
 * not decode them mid-crowd on every instance. Given no time, it reads neither; a copy whose months
 * were read already is not counted again.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataKey } from '../../src/hosted/sealing.js';
import { warmBudget, WARM_BUDGET_ID } from '../../src/hosted/warm-budget.js';
import { RECENT_USERS_KEY, warmUsers, type WarmUsersOptions } from '../../src/hosted/warm-users.js';
import { sessionBudgetKey } from '../../src/storage/keys.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { ReplicaFiles } from '../../src/sync/persist.js';
import { BudgetReplica } from '../../src/sync/replica.js';
import { SharedReplicaCache } from '../../src/sync/replica-cache.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

const USERS = 4;
let redis: RunningRedis;
let store: RedisStateStore;
const dataKey = new DataKey(randomBytes(32));
const identities = Array.from({ length: USERS }, (_, u) => `warm-months-${u}-${randomBytes(4).toString('hex')}`);
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  redis = await startRedis();
  store = await RedisStateStore.connect(redis.url, { log: () => undefined });
  const files = new ReplicaFiles(store, { key: async () => dataKey.subkey('replicas') }, () => undefined);
  for (const [u, identity] of identities.entries()) {
    await files.save(identity, BudgetReplica.fromExport(warmBudget(today), 1, Date.now()).snapshot());
    await store.set(sessionBudgetKey(identity), Buffer.from(JSON.stringify({ id: WARM_BUDGET_ID })));
    await store.keyed('write', 'ZADD', RECENT_USERS_KEY, String(Date.now() - u), identity);
  }
});

afterAll(async () => {
  await store?.close();
  await redis?.stop();
});

function options(replicas: SharedReplicaCache, budgetMs: number): WarmUsersOptions {
  return { store, replicas, opts: { replicaCacheBytes: 256 * 2 ** 20, dataKey }, settings: { users: 200, budgetMs }, log: () => undefined };
}

const held = (replicas: SharedReplicaCache) => identities.map((identity) => replicas.of(identity).get(WARM_BUDGET_ID));

describe("the warm-up's users step reads the users' months with the time the copies left", () => {
  it('reads every copy and then its months, which the saved form leaves unread', async () => {
    // The saved form leaves them unread: what a first call would find without the step's second pass.
    const files = new ReplicaFiles(store, { key: async () => dataKey.subkey('replicas') }, () => undefined);
    const loaded = await files.load(identities[0]!, WARM_BUDGET_ID, { monthsLater: true });
    if (!loaded.snapshot) throw new Error(`the saved copy did not read back (${loaded.discarded ?? 'none'})`);
    const lazy = BudgetReplica.fromSnapshot(loaded.snapshot, loaded.shared, loaded.months);
    expect(lazy.monthsUnread).toBe(true);
    const months = [...lazy.months.keys()];
    expect(months.length).toBeGreaterThan(0);

    const replicas = new SharedReplicaCache(256 * 2 ** 20);
    expect(await warmUsers(options(replicas, 60_000))).toEqual({ read: USERS, left: 0, months: USERS });
    for (const replica of held(replicas)) {
      expect(replica?.monthsUnread).toBe(false);
      expect([...replica!.months.keys()]).toEqual(months);
    }

    // Read again into the same cache: the copies are held, their months read, none counted again.
    expect(await warmUsers(options(replicas, 60_000))).toEqual({ read: USERS, left: 0, months: 0 });
  });

  it('given no time, reads no copy and no months', async () => {
    const replicas = new SharedReplicaCache(256 * 2 ** 20);
    expect(await warmUsers(options(replicas, 0))).toEqual({ read: 0, left: USERS, months: 0 });
    expect(held(replicas)).toEqual(identities.map(() => undefined));
  });
});
