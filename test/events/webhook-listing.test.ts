/**
 * A subscription stays listed when a listing runs while it is being written. upsert() lists the id
 * before it writes the record; an all() in between found the id without its record and dropped it,
 * so the subscription was kept but never listed nor delivered to. The interleaving is forced by
 * holding the real store's write of the record until the listing has run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Webhooks } from '../../src/events/webhooks.js';
import type { StateStore } from '../../src/storage/store.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { endpoint, lasting, type Endpoint } from './helpers.js';

let sb: TestSandbox;
let keep: ReturnType<typeof lasting>;
let ep: Endpoint;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  keep = lasting();
  ep = await endpoint(sb, keep);
});

afterAll(async () => {
  await ep?.close();
  await sb?.close();
  keep?.remove();
});

it('keeps a subscription listed when a listing runs between its id and its record', async () => {
  const { webhooks, store } = (await ep.state.ready()) as unknown as { webhooks: Webhooks; store: StateStore };
  const id = 'sub_listing_race_01';
  const now = Date.now();
  const subscription = {
    id,
    principal: 'bearer',
    name: 'price.increased',
    arguments: {},
    url: 'https://receiver.example/hook',
    secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    budgetId: 'last-used',
    epoch: 'e1',
    through: 0,
    expiresAt: now + 3_600_000,
    status: { active: true, lastDeliveryAt: null, lastError: null },
  };

  // The record's write waits until the listing has run (the order a concurrent all() can take).
  const write = store.update.bind(store);
  let listed: Promise<unknown> | undefined;
  store.update = (async (key: string, fn: never) => {
    if (key.endsWith(`${id}.sub`) && !listed) {
      listed = webhooks.all();
      await listed;
    }
    return write(key, fn);
  }) as typeof store.update;
  try {
    await webhooks.upsert(subscription as never);
  } finally {
    store.update = write;
  }

  expect(listed).toBeDefined();
  expect((await webhooks.all()).map((s) => s.id)).toContain(id);
  await webhooks.remove(id);
});
