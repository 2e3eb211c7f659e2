/**
 * Issue 59 item 2: alerts reach hosts without Events, by default. A default-configured server
 * (no --toolsets) is asked "anything I should know?" through needs_attention by a real MCP client
 * that declares no Events (as Claude does): its first ask starts from now; then one call answers
 * with what fired since that client last asked (a price rise, an uncovered bill, the weekly digest, their figures recomputed from
 * the sandbox's raw API and quotable as the alerts tool gives them); the next ask has none new.
 * A second client on the same server that declares Events gets an alert by events/poll, and its
 * own needs_attention does not give it again, while the first client's still does; the same for
 * a ChatGPT-like client over HTTP whose webhook (a receiver on loopback that checks the signature)
 * got the alert, and for a client that had it pushed on an events/stream: each alert reaches each
 * client once. Its cursor is kept in the state store, per client, so a reconnect
 * (a new server instance on the same state) resumes it: in the file store, and in a real
 * redis-server as hosted mode keeps it. The date is a Monday, so the weekly digest comes due
 * (08:00 UTC) during the test.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, InMemoryTransport, StreamableHTTPClientTransport, type ClientCapabilities } from '@modelcontextprotocol/client';
import { buildServer } from '../../src/mcp/server.js';
import { clientKey } from '../../src/mcp/state/caller.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, whsec } from './receiver.js';
import { apiSpending } from './recurrence-helpers.js';
import { RedisStateStore } from '../../src/storage/redis-store.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';

const DATE = '2026-06-15';
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

let h: McpHarness;
let budgetId: string;

/** Another client of the same server (its own name; Events declared or not), as a host connecting beside the first. */
async function client(name: string, capabilities: ClientCapabilities = {}) {
  const server = buildServer(h.state, { live: true });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const c = new Client({ name, version: '1.0.0' }, { capabilities });
  await c.connect(a);
  return {
    ask: async () => ok(await c.callTool({ name: 'needs_attention', arguments: { detail: 'full' } })),
    c,
    close: async () => {
      await c.close();
      await server.close();
    },
  };
}

/** needs_attention until it says there are no more alerts: every alert row, in order. */
async function askAll(ask: () => Promise<any>): Promise<any[]> {
  const rows: any[] = [];
  for (let i = 0; i < 100; i++) {
    const answer = await ask();
    expect(Array.isArray(answer.alerts), 'needs_attention answers with its alerts').toBe(true);
    rows.push(...answer.alerts);
    if (!answer.alerts_more) return rows;
    expect(answer.alerts_more).toMatch(/^\d+ more: ask again/);
  }
  throw new Error('needs_attention kept saying there were more alerts');
}

/** Milliunits as the demo budget's currency (US dollars) writes them, written out here. */
const usd = (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

const log = async () => (await (await h.state.ready()).events.log.read(budgetId)).events;

function suite(store: () => Promise<RedisStateStore | undefined>) {
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${DATE}T07:00:00Z`) });
    const s = await store();
    // The default configuration: no --toolsets flag.
    h = await mcpHarness({ flags: { toolsets: undefined }, maxStalenessMs: 0, ...(s ? { stack: { store: s } } : {}) });
    budgetId = (await budgetFacts(h.sb)).id;
  });

  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  it('needs_attention is listed by default and the alerts tool is not: the answer comes from needs_attention', async () => {
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('needs_attention');
    expect(names).not.toContain('alerts');
  });

  it('answers in one call what fired since the client last asked: a price rise, an uncovered bill, the weekly digest; then none new', async () => {
    const ask = async (args: Record<string, unknown> = {}) => ok(await h.call('needs_attention', args));
    // The client's first ask starts from now (the kinds give what is open), and says where the earlier alerts are.
    const first = await ask({ detail: 'full' });
    expect(first.alerts).toEqual([]);
    expect(first.alerts_since).toBe(`first ask: new alerts from now on; ${(await log()).length} earlier: the alerts resource`);
    expect((await ask()).alerts).toEqual([]);
    const seen = (await log()).length;

    const facts = await budgetFacts(h.sb);
    const category = facts.categories[0]!;
    // A steady monthly charge, then the same charge 10 % dearer.
    for (const [n, amount] of [
      [-90, -15_000],
      [-60, -15_000],
      [-30, -15_000],
      [0, -16_500],
    ] as const)
      await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: category.id, payee_name: 'Streamly', amount, date: addDays(DATE, n) });
    // A bill in three days beyond what checking holds.
    const balance = (await h.sb.get(`/budgets/${budgetId}/accounts/${facts.checking.id}`)).body.data.account.balance as number;
    const bill = await h.sb.call('POST', `/budgets/${budgetId}/scheduled_transactions`, {
      scheduled_transaction: {
        account_id: facts.checking.id,
        date: addDays(DATE, 3),
        frequency: 'never',
        amount: -(balance + 25_000_000),
        payee_name: 'Big Bill',
        category_id: category.id,
      },
    });
    expect(bill.status).toBe(201);
    // The weekly digest comes due: Monday 08:00 UTC.
    vi.setSystemTime(Date.parse(`${DATE}T08:30:00Z`));

    const answer = await ask();
    const fired = (await log()).slice(seen);
    // One call (the overview: names, dates and figures as text): every alert that fired since the last ask, once, oldest first.
    expect(answer.alerts_more).toBeUndefined();
    expect(answer.alerts.map((r: any) => r.type)).toEqual(fired.map((o) => o.name));
    const byType = (t: string) => answer.alerts.filter((r: any) => r.type === t);

    expect(byType('price.increased')).toEqual([
      { type: 'price.increased', payee: 'Streamly', date: DATE, old_formatted: usd(15_000), amount_formatted: usd(16_500) },
    ]);
    const uncovered = byType('bill.uncovered').find((r: any) => r.payee === 'Big Bill');
    expect(uncovered).toMatchObject({ account: 'Everyday Checking', date: addDays(DATE, 3), bill_formatted: usd(balance + 25_000_000) });
    expect(uncovered.amount_formatted).toBe(usd(fired.find((o) => o.name === 'bill.uncovered' && o.data.payee === 'Big Bill')!.data.amount as number));

    const [digest] = byType('digest.weekly');
    const [week, weekBefore] = await apiSpending(h.sb, budgetId, addDays(DATE, -7), 2);
    expect(digest).toMatchObject({
      since: addDays(DATE, -7),
      until: addDays(DATE, -1),
      spending_formatted: usd(week!),
      spending_week_before_formatted: usd(weekBefore!),
    });
    // The overview made room for them: the alerts take at most 1,000 bytes of the answer.
    expect(Buffer.byteLength(JSON.stringify(answer.alerts))).toBeLessThanOrEqual(1_000);

    // Asked again: nothing new.
    const again = await ask();
    expect(again.alerts).toEqual([]);
    expect(again.alerts_more).toBeUndefined();
  });

  it('an Events client gets an alert by events/poll and not again in its needs_attention; a client without Events still gets it; each keeps its place across a reconnect', async () => {
    const events = await client('events-host', { extensions: { 'io.modelcontextprotocol/events': {} } } as ClientCapabilities);
    const plain = await client('plain-host');
    try {
      // Each client's first ask: what the last 7 days hold (the first test's alerts among them).
      await askAll(events.ask);
      await askAll(plain.ask);
      const start = await poll(events.c, 'price.increased', null);
      const facts = await budgetFacts(h.sb);
      const category = facts.categories[1]!;
      for (const [n, amount] of [
        [-90, -9_000],
        [-60, -9_000],
        [-30, -9_000],
        [0, -12_000],
      ] as const)
        await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: category.id, payee_name: 'Gym Plus', amount, date: addDays(DATE, n) });
      const polled = await poll(events.c, 'price.increased', start.cursor);
      const rise = polled.events.find((e) => e.data.payee === 'Gym Plus');
      expect(rise?.data).toMatchObject({ old: 9_000, amount: 12_000 });

      // Delivered by Events: not in the Events client's pull answer; what Events did not deliver (the rest that fired) is.
      const eventsRows = await askAll(events.ask);
      expect(eventsRows.map((r) => r.event_id)).not.toContain(rise!.eventId);
      const firedSince = (await log()).filter((o) => o.seq > Number(start.cursor.split('.')[1])).map((o) => o.eventId);
      expect(eventsRows.map((r) => r.event_id).sort()).toEqual(firedSince.filter((id) => id !== rise!.eventId).sort());
      // The client without Events gets it in its pull answer, once.
      const plainRows = await askAll(plain.ask);
      expect(plainRows.map((r) => r.event_id).sort()).toEqual(firedSince.sort());
      expect(plainRows.find((r) => r.event_id === rise!.eventId)).toMatchObject({ type: 'price.increased', payee: 'Gym Plus', old: 9_000, amount: 12_000 });

      // A reconnect (a new server instance, the same state): the client's place is kept.
      await plain.close();
      const back = await client('plain-host');
      try {
        expect((await back.ask()).alerts).toEqual([]);
      } finally {
        await back.close();
      }
    } finally {
      await events.close();
      await plain.close().catch(() => {});
    }
  });
}

describe('alerts by default, for hosts without Events: the file store', () => {
  suite(async () => undefined);
});

describe('alerts by default, for hosts without Events: kept in Redis', { tags: ['redis'] }, () => {
  let redis: RunningRedis;
  let s: RedisStateStore | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await s?.close().catch(() => undefined);
    await redis?.stop();
  });
  suite(async () => (s = await RedisStateStore.connect(redis.url, { prefix: `t${randomBytes(4).toString('hex')}:` })));
});

describe('alerts by default: what a webhook or a stream delivered is not pulled again by that client', () => {
  let sb: TestSandbox;
  let ep: Endpoint;
  let keep: ReturnType<typeof lasting>;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let other: Client;
  const secret = whsec();
  const token = randomBytes(16).toString('hex');

  beforeAll(async () => {
    sb = await testSandbox({ rateLimit: 100_000, strict: true });
    keep = lasting();
    // `serve` over HTTP with a bearer token (webhooks need a principal), the default toolsets.
    ep = await endpoint(sb, keep, { webhooks: { allowLoopback: true, retryDelaysMs: [20, 20] } }, token);
    rx = await receiver(secret);
    other = new Client({ name: 'claude-like', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await other.connect(new StreamableHTTPClientTransport(new URL(ep.http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  });
  afterAll(async () => {
    await other?.close();
    await ep?.close();
    await sb?.close();
    await rx?.close();
    keep?.remove();
  });

  it('the subscriber does not get its webhook-delivered alert in needs_attention; another client of the same principal does', async () => {
    const ask = async (c: Client) => ok(await c.callTool({ name: 'needs_attention', arguments: { detail: 'full' } }));
    await askAll(() => ask(ep.client));
    await askAll(() => ask(other));
    await request(ep.client, 'events/subscribe', {
      name: 'price.increased',
      arguments: {},
      delivery: { mode: 'webhook', url: rx.url, secret },
      cursor: null,
      ttlMs: 3_600_000,
    });
    const facts = await budgetFacts(sb);
    const today = new Date().toISOString().slice(0, 10);
    for (const [n, amount] of [
      [-90, -20_000],
      [-60, -20_000],
      [-30, -20_000],
      [0, -23_000],
    ] as const)
      await spend(sb, facts.id, {
        account_id: facts.checking.id,
        category_id: facts.categories[0]!.id,
        payee_name: 'Cloudbox',
        amount,
        date: addDays(today, n),
      });
    // The other client's ask syncs the budget: the rise fires, and the webhook delivers it. (A
    // sync the watcher began before the last charge may answer the first ask: it asks again.)
    const otherRows: any[] = [];
    let rise: any;
    for (let i = 0; i < 5 && !rise; i++) {
      otherRows.push(...(await askAll(() => ask(other))));
      rise = otherRows.find((r) => r.type === 'price.increased' && r.payee === 'Cloudbox');
    }
    expect(rise).toMatchObject({ old: 20_000, amount: 23_000 });
    const delivered = () => rx.events().some((r) => r.status === 200 && r.valid && r.headers['webhook-id'] === rise.event_id);
    await rx.until(delivered);
    await (await ep.state.ready()).settled();
    const answer = await ask(ep.client);
    expect(answer.alerts.map((r: any) => r.event_id)).not.toContain(rise.event_id);
    expect(answer.alerts_left_out).toMatch(/^1 delivered to this client by Events/);
    // The rest that fired reaches the subscriber here, as it reached the other client.
    expect(answer.alerts.map((r: any) => r.event_id).sort()).toEqual(
      otherRows
        .map((r) => r.event_id)
        .filter((id) => id !== rise.event_id)
        .sort(),
    );
  });
  it('an alert pushed on an events/stream is not in the needs_attention of the client that opened it; another client gets it', async () => {
    const ask = async (c: Client) => ok(await c.callTool({ name: 'needs_attention', arguments: { detail: 'full' } }));
    const streamer = new Client({ name: 'stream-host', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await streamer.connect(new StreamableHTTPClientTransport(new URL(ep.http.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      await askAll(() => ask(streamer));
      await askAll(() => ask(other));
      const pushed: any[] = [];
      let wake: () => void = () => {};
      streamer.setNotificationHandler(
        'notifications/events/event' as never,
        { params: z.record(z.string(), z.any()) } as never,
        ((params: any) => {
          pushed.push(params);
          wake();
        }) as never,
      );
      const start = await poll(streamer, 'category.overspent', null);
      void request(streamer, 'events/stream', { name: 'category.overspent', arguments: {}, cursor: start.cursor }).catch(() => 'closed with the client');
      const facts = await budgetFacts(sb);
      const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id))!;
      await spend(sb, facts.id, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 4_000) });
      const otherRows: any[] = [];
      let over: any;
      for (let i = 0; i < 5 && !over; i++) {
        otherRows.push(...(await askAll(() => ask(other))));
        over = otherRows.find((r) => r.type === 'category.overspent' && r.category_id === target.id);
      }
      expect(over).toMatchObject({ amount: 4_000 });
      await new Promise<void>((resolve) => {
        wake = () => pushed.some((p) => p.eventId === over.event_id) && resolve();
        wake();
      });
      // The stream notes what it sent once it has sent it: wait for that note, not for the time it takes.
      const pulls = (await ep.state.ready()).events.pulls;
      for (let i = 0; i < 100 && !(await pulls.get(facts.id, clientKey('bearer', 'stream-host'))).delivered.includes(over.event_id); i++)
        await new Promise((r) => setTimeout(r, 20));
      const answer = await ask(streamer);
      expect(answer.alerts.map((r: any) => r.event_id)).not.toContain(over.event_id);
      expect(answer.alerts_left_out).toMatch(/^1 delivered to this client by Events/);
    } finally {
      await streamer.close();
    }
  });
});
