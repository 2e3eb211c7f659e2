// @module-tag redis (needs redis-server and redis-cli: skipped without them, see test/helpers/services.ts)
/**
 * The Redis store on a real Redis Cluster of three masters (test/helpers/redis-cluster.ts): the
 * StateStore contract (get, set, delete, list by SCAN on every master, atomic update by the CAS
 * script, leases) with two connections standing for two instances, every key of one user in one
 * slot by its hash tag, and a cluster URL shown without its password.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterName, clusterPrefix, keyOfClusterName } from '../../src/storage/keys.js';
import { clusterSeeds, redisLocation } from '../../src/storage/redis-url.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { startRedisCluster, type RunningCluster } from '../helpers/redis-cluster.js';
import { stateStoreContract } from './contract.js';

let cluster: RunningCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const bytes = (s: string) => new TextEncoder().encode(s);

stateStoreContract('redis cluster', async () => {
  const prefix = `t${randomBytes(4).toString('hex')}:`;
  const a = await RedisStateStore.connect(cluster.url, { prefix });
  const b = await RedisStateStore.connect(cluster.url, { prefix });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
});

/** The slot Redis computes for a name, asked of a node. */
async function slotOf(name: string): Promise<number> {
  const client = createClient({ url: `redis://127.0.0.1:${cluster.ports[0]}` });
  await client.connect();
  try {
    return Number(await client.sendCommand(['CLUSTER', 'KEYSLOT', name]));
  } finally {
    await client.close();
  }
}

describe('Redis store on a cluster', () => {
  it('puts every key of one user in one slot, and keys are spread over every master', async () => {
    const prefix = `s${randomBytes(4).toString('hex')}:`;
    const store = await RedisStateStore.connect(cluster.url, { prefix });
    const user = 'a1b2c3d4e5f60718293a4b5c';
    const keys = [
      `grants/${user}.json`,
      `replicas/${user}/budget-1.replica`,
      `replicas/${user}/aliases.json`,
      `journal/${user}/budget-1.json`,
      `journal/${user}/budget-1.written`,
      `changes/${user}/budget-1/c1.change`,
      `confirm/${user}/budget-2/h1.token`,
      `answers/${user}/_all/q1`,
    ];
    try {
      for (const k of keys) await store.set(k, bytes(k));
      const slots = new Set(await Promise.all(keys.map((k) => slotOf(prefix + clusterName(k)))));
      expect(slots.size).toBe(1);
      // The names Redis holds are the tagged ones, and each is read back under its own key.
      for (const k of keys) expect(store.describe(k)).toContain(k);
      expect((await store.list(`replicas/${user}/`)).sort()).toEqual([`replicas/${user}/aliases.json`, `replicas/${user}/budget-1.replica`]);
      expect(await store.list(`grants/${user.slice(0, 6)}`)).toEqual([`grants/${user}.json`]);
      // Many users land on every master: SCAN must visit them all for list('grants/') to be whole.
      const users = Array.from({ length: 30 }, (_, i) => `u${String(i).padStart(23, '0')}`);
      for (const u of users) await store.set(`grants/${u}.json`, bytes(u));
      const masters = new Set(await Promise.all(users.map((u) => cluster.masterOf(prefix + clusterName(`grants/${u}.json`)))));
      expect(masters.size).toBe(3);
      expect((await store.list('grants/')).sort()).toEqual([...users.map((u) => `grants/${u}.json`), `grants/${user}.json`].sort());
    } finally {
      await store.close();
    }
  });

  it('names keys with the user as hash tag, only where a key names a user', () => {
    expect(clusterName('changes/abc/b1/c1.change')).toBe('changes/{abc}/b1/c1.change');
    expect(clusterName('grants/abc.json')).toBe('grants/{abc}.json');
    expect(clusterName('quota/tok.json')).toBe('quota/tok.json');
    expect(clusterName('oauth/AccessToken/ff00')).toBe('oauth/AccessToken/ff00');
    expect(clusterName('locks/sync-abc-b1')).toBe('locks/sync-abc-b1');
    expect(keyOfClusterName('changes/{abc}/b1/c1.change')).toBe('changes/abc/b1/c1.change');
    expect(clusterPrefix('grants/')).toBe('grants/');
    expect(clusterPrefix('grants/ab')).toBe('grants/{ab');
    expect(clusterPrefix('changes/abc/b1/')).toBe('changes/{abc}/b1/');
  });

  it('reads a cluster URL: seeds, TLS, credentials kept out of its location', () => {
    const url = 'rediss+cluster://app:s3cr%40t@10.0.0.1:7000,10.0.0.2:7001';
    expect(clusterSeeds(url)).toEqual({ tls: true, username: 'app', password: 's3cr@t', seeds: ['rediss://10.0.0.1:7000', 'rediss://10.0.0.2:7001'] });
    expect(redisLocation(url)).toBe('rediss+cluster://10.0.0.1:7000,10.0.0.2:7001');
    expect(clusterSeeds('redis://10.0.0.1:6379')).toBeUndefined();
    expect(() => clusterSeeds('redis+cluster://10.0.0.1:7000/3')).toThrow(/only database 0/);
  });

  it('an unreachable cluster is a clear error naming the seeds, never the password', async () => {
    const url = `redis+cluster://app:hunter2@127.0.0.1:1,127.0.0.1:2`;
    const e = await RedisStateStore.connect(url, { log: () => undefined }).catch((x: Error) => x);
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(/Redis at redis\+cluster:\/\/127\.0\.0\.1:1,127\.0\.0\.1:2 cannot be reached/);
    expect((e as Error).message).not.toContain('hunter2');
  });
});
