// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The undo journal keeps its change ids in one key beside the changes (storage/id-list.ts), so
 * that neither a write (its append and prune) nor a listing scans the store: on Redis, listing by
 * prefix is a SCAN of the whole keyspace, every user's keys, at every hosted write. Against a real
 * redis-server, counting its SCAN calls (INFO commandstats); and a journal written before the
 * list was kept is still listed whole, once, then from the list. Hosted mode completes every list
 * at an instance's start (one SCAN a family), and from then a new user's or budget's first write
 * and listing scan nothing.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionFamily, subscriptionIds } from '../../src/events/webhook-ids.js';
import { ClosingGate } from '../../src/storage/closing.js';
import { completeIdLists } from '../../src/storage/id-list.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { ephemeralKey } from '../../src/sync/seal.js';
import { changeFamily, MAX_CHANGES, UndoJournal } from '../../src/writes/pipeline/undo-journal.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

let redis: RunningRedis;
let admin: ReturnType<typeof createClient>;
beforeAll(async () => {
  redis = await startRedis();
  admin = createClient({ url: redis.url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.close();
  await redis?.stop();
});

/** SCAN calls the server has answered so far. */
async function scans(): Promise<number> {
  const m = /cmdstat_scan:calls=(\d+)/.exec(await admin.info('commandstats'));
  return m ? Number(m[1]) : 0;
}

/** Budget b1's list of change ids, beside its folder of changes (storage/id-list.ts). */
const B1_IDS = 'changes/me/b1.ids';

async function journal(): Promise<{ log: UndoJournal; store: RedisStateStore; clock: { now: number } }> {
  const store = await RedisStateStore.connect(redis.url, { prefix: `t${randomBytes(4).toString('hex')}:` });
  const clock = { now: Date.parse('2026-01-01T00:00:00Z') };
  const keys = ephemeralKey();
  return {
    log: new UndoJournal(
      store,
      keys,
      async () => 'me',
      () => (clock.now += 1000),
    ),
    store,
    clock,
  };
}

describe('the undo journal on Redis', () => {
  it('appends, prunes and lists without a SCAN', async () => {
    const { log, store } = await journal();
    await log.append('b1', { tool: 'update_payee', summary: 'first', entities: [] }); // the list's first write may look for older changes
    const before = await scans();
    for (let i = 0; i < MAX_CHANGES + 3; i++) await log.append('b1', { tool: 'update_payee', summary: `change ${i}`, entities: [] });
    const recent = await log.recent('b1', 2);
    expect(await scans()).toBe(before);
    expect(recent.map((r) => r.summary)).toEqual([`change ${MAX_CHANGES + 2}`, `change ${MAX_CHANGES + 1}`]);
    expect(await log.size('b1')).toBe(MAX_CHANGES);
    await store.close();
  });

  it("an append's round trips: the list's update and the record, and no read of the list to prune while it holds 100 or fewer", async () => {
    const { log, store } = await journal();
    await completeIdLists(store, [changeFamily]); // as a hosted instance does at its start
    await log.append('b1', { tool: 'update_payee', summary: 'first', entities: [] });
    const calls = async () => {
      const info = await admin.info('commandstats');
      const of = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
      return { get: of('get'), set: of('set'), evalsha: of('evalsha') };
    };
    const before = await calls();
    await log.append('b1', { tool: 'update_payee', summary: 'second', entities: [] });
    const after = await calls();
    // The list's update: one EVALSHA from the value this store wrote last (its script's GET and SET
    // count too); the record: one SET. The prune read the list again (a second GET) before.
    expect({ get: after.get - before.get, set: after.set - before.set, evalsha: after.evalsha - before.evalsha }).toEqual({ get: 1, set: 2, evalsha: 1 });
    await store.close();
  });

  it('lists a journal written before its ids were kept, once, then from the list', async () => {
    const { log, store } = await journal();
    for (let i = 0; i < 3; i++) await log.append('b1', { tool: 'update_payee', summary: `old ${i}`, entities: [] });
    await store.delete(B1_IDS); // as an older version left it: the changes alone
    expect((await log.recent('b1')).map((r) => r.summary)).toEqual(['old 2', 'old 1', 'old 0']);
    const before = await scans();
    await log.append('b1', { tool: 'update_payee', summary: 'new', entities: [] });
    expect((await log.recent('b1')).map((r) => r.summary)).toEqual(['new', 'old 2', 'old 1', 'old 0']);
    expect(await scans()).toBe(before);
    await store.close();
  });

  it('an append into a journal with no list yet keeps the older changes listed', async () => {
    const { log, store } = await journal();
    for (let i = 0; i < 2; i++) await log.append('b1', { tool: 'update_payee', summary: `old ${i}`, entities: [] });
    await store.delete(B1_IDS);
    await log.append('b1', { tool: 'update_payee', summary: 'new', entities: [] });
    expect((await log.recent('b1')).map((r) => r.summary)).toEqual(['new', 'old 1', 'old 0']);
    await store.close();
  });

  it('after the lists are completed at start, older changes are listed and a new budget or user scans nothing', async () => {
    const { log, store } = await journal();
    for (let i = 0; i < 2; i++) await log.append('b1', { tool: 'update_payee', summary: `old ${i}`, entities: [] });
    await store.delete(B1_IDS); // as an older version left it
    await store.set('events/me/webhooks/w1.sub', Buffer.from('sealed')); // a subscription, likewise
    expect(await completeIdLists(store, [subscriptionFamily, changeFamily])).toBe(3);
    expect(await completeIdLists(store, [subscriptionFamily, changeFamily])).toBe(0); // again: nothing to add
    const before = await scans();
    expect((await log.recent('b1')).map((r) => r.summary)).toEqual(['old 1', 'old 0']);
    expect(await subscriptionIds(store, async () => 'me').all()).toEqual(['w1']);
    await log.append('b2', { tool: 'update_payee', summary: 'first of b2', entities: [] });
    expect((await log.recent('b2')).map((r) => r.summary)).toEqual(['first of b2']);
    expect(await subscriptionIds(store, async () => 'someone-new').all()).toEqual([]);
    expect(await scans()).toBe(before);
    await store.close();
  });

  it("through a stack's closing gate, as every hosted user's stack reaches the store, a new budget or user scans nothing either", async () => {
    const { store } = await journal();
    await completeIdLists(store, [subscriptionFamily, changeFamily]); // the instance's start, on the store itself
    const gated = new ClosingGate().store(store); // src/stack/stack.ts wraps it so for each user
    const log = new UndoJournal(
      gated,
      ephemeralKey(),
      async () => 'me',
      () => Date.now(),
    );
    const before = await scans();
    await log.append('b3', { tool: 'update_payee', summary: 'first of b3', entities: [] });
    expect((await log.recent('b3')).map((r) => r.summary)).toEqual(['first of b3']);
    expect(await subscriptionIds(gated, async () => 'another-new').all()).toEqual([]);
    expect(await scans()).toBe(before);
    await store.close();
  });

  it('a gated store whose inner store was not completed still lists older changes once', async () => {
    const { log: direct, store } = await journal();
    await direct.append('b1', { tool: 'update_payee', summary: 'old', entities: [] });
    await store.delete(B1_IDS); // as an older version left it
    const log = new UndoJournal(
      new ClosingGate().store(store),
      ephemeralKey(),
      async () => 'me',
      () => Date.now(),
    );
    await log.append('b1', { tool: 'update_payee', summary: 'new', entities: [] });
    expect(await log.size('b1')).toBe(2);
    await store.close();
  });
});
