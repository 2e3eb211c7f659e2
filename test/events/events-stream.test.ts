/**
 * Push delivery (events/stream) over Streamable HTTP with a real 2026-07-28 client: the
 * confirmation first, replay from a cursor, then a new occurrence as it is recorded, each
 * notification carrying the stream's subscription id; and the extension over stdio with the CLI
 * (`serve --sandbox`): events/list and a poll answer there too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';

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

describe('events/stream over HTTP', () => {
  it('confirms, replays from the cursor, then pushes a new occurrence once', async () => {
    const facts = await budgetFacts(sb);
    const start = await poll(ep.client, 'category.overspent', null);
    const [a, b] = facts.categories.filter((c) => c.balance >= 0 && !facts.overspent.has(c.id));
    await spend(sb, facts.id, { account_id: facts.checking.id, category_id: a.id, amount: -(a.balance + 1_000) });

    const seen: any[] = [];
    let wake: () => void = () => {};
    for (const method of ['notifications/events/active', 'notifications/events/event', 'notifications/events/heartbeat'])
      ep.client.setNotificationHandler(
        method as never,
        { params: z.record(z.string(), z.any()) } as never,
        ((params: any) => {
          seen.push({ method, params });
          wake();
        }) as never,
      );
    const until = (n: number) =>
      new Promise<void>((resolve) => {
        wake = () => seen.filter((s) => s.method === 'notifications/events/event').length >= n && resolve();
        wake();
      });

    void request(ep.client, 'events/stream', { name: 'category.overspent', arguments: {}, cursor: start.cursor }).catch(() => 'closed with the client');
    await until(1);
    expect(seen[0].method).toBe('notifications/events/active');
    expect(seen[0].params.truncated).toBe(false);
    const firstEvent = seen.find((s) => s.method === 'notifications/events/event')!;
    expect(firstEvent.params.data.category_id).toBe(a.id);
    expect(typeof firstEvent.params.cursor).toBe('string');
    const subscription = seen[0].params._meta['io.modelcontextprotocol/subscriptionId'];
    expect(firstEvent.params._meta['io.modelcontextprotocol/subscriptionId']).toBe(subscription);

    // A new overspending, noticed by any sync of the budget (here an interactive tool call's).
    await spend(sb, facts.id, { account_id: facts.checking.id, category_id: b.id, amount: -(b.balance + 2_000) });
    await ep.client.callTool({ name: 'list_accounts', arguments: {} });
    await until(2);
    const events = seen.filter((s) => s.method === 'notifications/events/event');
    expect(events.map((e) => e.params.data.category_id)).toEqual([a.id, b.id]);
    // The pushed cursor resumes a poll exactly after it.
    const after = await poll(ep.client, 'category.overspent', events[1].params.cursor);
    expect(after.events).toEqual([]);
  });
});

describe('the extension over stdio', () => {
  it('answers events/list and a poll', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ynab-mcp-events-stdio-'));
    const { client } = await cliMcp(['serve', '--sandbox'], {
      PATH: process.env.PATH,
      YNAB_MCP_STATE_DIR: join(root, 'state'),
      YNAB_MCP_CONFIG_DIR: join(root, 'config'),
      YNAB_MCP_KEYCHAIN: 'off',
    });
    try {
      const list = await request(client, 'events/list');
      expect(list.events).toHaveLength(9);
      const first = await poll(client, 'account.reconcile_due', null);
      expect(first.events).toEqual([]);
      expect(typeof first.cursor).toBe('string');
    } finally {
      await client.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
