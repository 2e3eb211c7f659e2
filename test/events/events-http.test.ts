/**
 * The Events extension over Streamable HTTP with a real 2026-07-28 MCP client: declared in
 * server/discover, events/list with every type's schemas, poll from now, an occurrence that fires
 * once, again when it recurs, replay from a cursor, truncation, errors, and a restart that loses
 * and repeats nothing. Changes are made through the sandbox's API; what should fire is read from
 * the API's raw data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { assign, budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';

const NAMES = [
  'review.queue_grew',
  'category.overspent',
  'card.payment_short',
  'bill.uncovered',
  'forecast.below_zero',
  'price.increased',
  'target.due_underfunded',
  'account.reconcile_due',
  'digest.weekly',
];

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

describe('the Events extension over HTTP', () => {
  it('is declared in server/discover and lists every event type with its schemas and deliveries', async () => {
    expect(ep.client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/events']).toEqual({});
    const list = await request(ep.client, 'events/list');
    expect(list.events.map((e: any) => e.name)).toEqual(NAMES);
    for (const e of list.events) {
      expect(e.delivery).toEqual(['poll', 'push', 'webhook']);
      expect(e.inputSchema.type).toBe('object');
      expect(Object.keys(e.inputSchema.properties)).toEqual(['budget_id', 'categories', 'accounts', 'min_milliunits']);
      expect(e.payloadSchema.properties.data_notice).toBeDefined();
      expect(e.description.length).toBeGreaterThan(10);
    }
  });

  it('fires an overspent category once, again when it recurs, and replays from a cursor', async () => {
    const start = await poll(ep.client, 'category.overspent', null);
    expect(start.events).toEqual([]);
    expect(start.truncated).toBe(false);

    const facts = await budgetFacts(sb);
    const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
    await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 12_340) });
    // Independently: the API says the category is now overspent by 12.34.
    const after = (await sb.get(`/budgets/${facts.id}/months/current/categories/${target.id}`)).body.data.category;
    expect(after.balance).toBe(-12_340);

    const first = await poll(ep.client, 'category.overspent', start.cursor);
    expect(first.events.map((e) => e.data.category_id)).toEqual([target.id]);
    const occurrence = first.events[0]!;
    expect(occurrence.data).toMatchObject({ budget_id: facts.id, category: target.name, amount: 12_340 });
    expect(typeof occurrence.data.data_notice).toBe('string');
    expect(Buffer.byteLength(JSON.stringify(occurrence.data))).toBeLessThanOrEqual(2048);

    // Still overspent: nothing new.
    const quiet = await poll(ep.client, 'category.overspent', first.cursor);
    expect(quiet.events).toEqual([]);

    // Cleared by assigning enough, then overspent again: it fires once more, with a new eventId.
    await assign(sb, facts.id, target.id, after.budgeted + 12_340);
    const cleared = await poll(ep.client, 'category.overspent', quiet.cursor);
    expect(cleared.events).toEqual([]);
    await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -5_000 });
    const again = await poll(ep.client, 'category.overspent', cleared.cursor);
    expect(again.events.map((e) => e.data.category_id)).toEqual([target.id]);
    expect(again.events[0]!.eventId).not.toBe(occurrence.eventId);

    // Replay from the first cursor: exactly those after it, in order.
    const replay = await poll(ep.client, 'category.overspent', start.cursor);
    expect(replay.events.map((e) => e.eventId)).toEqual([occurrence.eventId, again.events[0]!.eventId]);
    expect(replay.truncated).toBe(false);

    // Filters: another category's subscription sees none of it.
    const other = facts.categories.find((c) => c.id !== target.id)!;
    const filtered = await poll(ep.client, 'category.overspent', start.cursor, { categories: [other.name] });
    expect(filtered.events).toEqual([]);
    const byName = await poll(ep.client, 'category.overspent', start.cursor, { categories: [target.name], min_milliunits: 10_000 });
    expect(byName.events.map((e) => e.eventId)).toEqual([occurrence.eventId]);
  });

  it('pages with maxEvents and hasMore', async () => {
    const start = await poll(ep.client, 'review.queue_grew', null);
    const facts = await budgetFacts(sb);
    const category = facts.categories[0];
    for (let i = 0; i < 3; i++) {
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: category.id, amount: -1_000, approved: false });
      await poll(ep.client, 'review.queue_grew', null); // each sync is scanned: the queue grew three times
    }
    const one = await poll(ep.client, 'review.queue_grew', start.cursor, {}, { maxEvents: 2 });
    expect(one.events).toHaveLength(2);
    expect(one.hasMore).toBe(true);
    const rest = await poll(ep.client, 'review.queue_grew', one.cursor);
    expect(rest.events).toHaveLength(1);
    expect(rest.hasMore).toBe(false);
    const sizes = [...one.events, ...rest.events].map((e) => e.data.queue_size);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
  });

  it('says truncated for a cursor it cannot serve, and refuses what is wrong with the SEP error codes', async () => {
    const forged = await poll(ep.client, 'category.overspent', 'abc.3');
    expect(forged).toMatchObject({ events: [], truncated: true });
    await expect(poll(ep.client, 'nope.nothing', null)).rejects.toMatchObject({ code: -32023 });
    await expect(poll(ep.client, 'category.overspent', null, { colour: 'red' })).rejects.toMatchObject({ code: -32602 });
    await expect(poll(ep.client, 'category.overspent', null, { min_milliunits: -1 })).rejects.toThrow(/min_milliunits/);
  });

  it('loses and repeats nothing across a restart', async () => {
    const before = await poll(ep.client, 'category.overspent', null);
    const facts = await budgetFacts(sb);
    await ep.close();
    // While the server is down, a category is overspent.
    const target = facts.categories.find((c) => c.balance >= 0)!;
    await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 1_000) });
    ep = await endpoint(sb, keep);
    const got = await poll(ep.client, 'category.overspent', before.cursor);
    expect(got.events.map((e) => e.data.category_id)).toEqual([target.id]);
    expect(got.truncated).toBe(false);
    const again = await poll(ep.client, 'category.overspent', before.cursor);
    expect(again.events.map((e) => e.eventId)).toEqual(got.events.map((e) => e.eventId));
  });
});
