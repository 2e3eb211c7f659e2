/**
 * Issue 57, item 7: alerts never skip. Each of the nine event types fires (changes made through
 * the sandbox's API, as a user in YNAB would), and is read back through every path a host reads
 * alerts by: the `alerts` tool (its kept cursor, and a cursor given), the alerts resource (plain,
 * then `?cursor=`), `events/poll` (one subscription per type) and ChatGPT's way, webhooks (one
 * `events/subscribe` per type, to a receiver that checks each signature itself). Every occurrence
 * the budget's log holds is seen by each path exactly once, none skipped: on a first call with no
 * cursor, on a call with a cursor, and for a one-time event arriving between calls. A path that
 * stops at its limit says how many more there are and gives the cursor that gets them. Poll and
 * webhooks start from now on a null cursor, as the SEP says: they owe what fired after it.
 *
 * The oracle for "every occurrence" is the occurrence log as stored (what the paths read from),
 * and the trigger of each type is checked against the sandbox's raw API. Three seeds, two dates
 * (both Mondays, so the weekly digest comes due at 08:00 UTC during the test): the first of a
 * month and the middle of one. The server and the sandbox run in this process's clock.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EVENT_NAMES } from '../../src/events/catalog.js';
import { randomBytes } from 'node:crypto';
import { ok } from '../helpers/mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { assign, budgetFacts, endpoint, lasting, poll, request, spend, type Endpoint } from './helpers.js';
import { receiver, whsec } from './receiver.js';

/** Mondays: the first of a month and the middle of one. */
const DATES = ['2026-06-01', '2026-06-15'];
const SEEDS = ['test', 'alerts-a', 'alerts-b'];

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

interface Seen {
  ids: string[];
  byType: Map<string, string[]>;
}
const seenOf = (): Seen => ({ ids: [], byType: new Map() });
function see(s: Seen, id: string, type: string): void {
  s.ids.push(id);
  s.byType.set(type, [...(s.byType.get(type) ?? []), id]);
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('alerts never skip, seed %s on %s', (seed, date) => {
  let h: { sb: TestSandbox; state: Endpoint['state']; client: Endpoint['client']; call: (name: string, args?: Record<string, unknown>) => Promise<any> };
  let ep: Endpoint;
  let keep: ReturnType<typeof lasting>;
  let rx: Awaited<ReturnType<typeof receiver>>;
  const secret = whsec();
  let budgetId: string;
  /** Each path's cursor (the tool keeps its own), and what each path has seen. */
  const cursors: { given?: string; resource?: string; poll: Record<string, string> } = { poll: {} };
  const seen = { tool: seenOf(), given: seenOf(), resource: seenOf(), poll: seenOf(), webhook: seenOf() };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T07:00:00Z`) });
    const sb = await testSandbox({ rateLimit: 100_000, strict: true, seed });
    keep = lasting();
    // Served over HTTP with a bearer token: webhooks (ChatGPT's way of reading events) need a principal.
    ep = await endpoint(sb, keep, { webhooks: { allowLoopback: true, retryDelaysMs: [20, 20] } }, randomBytes(16).toString('hex'), {
      toolsets: 'alerts,accounts',
    });
    h = { sb, state: ep.state, client: ep.client, call: (name, args = {}) => ep.client.callTool({ name, arguments: args }) };
    rx = await receiver(secret);
    budgetId = (await budgetFacts(sb)).id;
  });
  afterAll(async () => {
    await ep?.close();
    await h?.sb.close();
    await rx?.close();
    keep?.remove();
    vi.useRealTimers();
  });

  /** The occurrence log as stored: every occurrence, oldest first. */
  async function log(): Promise<{ eventId: string; name: string; seq: number }[]> {
    const events = (await h.state.ready()).events;
    return (await events.log.read(budgetId)).events;
  }
  /** A sync of the budget's copy (every read syncs first: max staleness 0), which scans it. */
  const sync = async () => ok(await h.call('list_accounts'));

  /** The alerts tool until it says there is no more: each page's rows, and what each page said. */
  async function tool(cursor?: string): Promise<{ rows: any[]; pages: any[] }> {
    const rows: any[] = [];
    const pages: any[] = [];
    let next = cursor;
    for (;;) {
      const page = ok(await h.call('alerts', next === undefined ? {} : { cursor: next }));
      pages.push(page);
      rows.push(...page.alerts);
      if (!page.more) return { rows, pages };
      expect(page.more).toMatch(new RegExp(`^${page.remaining} more`));
      expect(page.remaining).toBeGreaterThan(0);
      if (cursor !== undefined) next = page.cursor;
    }
  }

  async function resource(cursor?: string): Promise<{ rows: any[]; pages: any[] }> {
    const rows: any[] = [];
    const pages: any[] = [];
    let next = cursor;
    for (;;) {
      const uri = `ynab://budgets/${budgetId}/alerts${next === undefined ? '' : `?cursor=${encodeURIComponent(next)}`}`;
      const text = ((await h.client.readResource({ uri })).contents[0] as { text: string }).text;
      const page = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
      pages.push(page);
      rows.push(...page.alerts);
      next = page.cursor;
      if (!page.more) return { rows, pages };
      expect(page.remaining).toBeGreaterThan(0);
    }
  }

  /** Every type's poll, each from its own cursor, one event a page, until hasMore is false. */
  async function pollAll(first: boolean): Promise<{ eventId: string; name: string }[]> {
    const got: { eventId: string; name: string }[] = [];
    for (const name of EVENT_NAMES) {
      let cursor: string | null = first ? null : cursors.poll[name]!;
      for (;;) {
        const page = await poll(h.client, name, cursor, {}, { maxEvents: 1 });
        got.push(...page.events);
        cursor = page.cursor;
        if (!page.hasMore) {
          expect(page.remaining).toBe(0);
          break;
        }
        expect(page.remaining).toBeGreaterThan(0);
      }
      cursors.poll[name] = cursor!;
      // A day's subscription (the longest granted): the test's clock moves 90 minutes.
      if (first)
        await request(h.client, 'events/subscribe', {
          name,
          arguments: {},
          delivery: { mode: 'webhook', url: rx.url, secret },
          cursor: null,
          ttlMs: 86_400_000,
        });
    }
    return got;
  }

  /** ChatGPT's way: the webhook deliveries (acknowledged with a 200), once each have arrived for `ids`. */
  async function webhooks(ids: string[]): Promise<void> {
    const delivered = () => rx.events().filter((r) => r.status === 200 && r.valid);
    await Promise.race([rx.until(() => ids.every((id) => delivered().some((r) => r.headers['webhook-id'] === id))), new Promise((r) => setTimeout(r, 10_000))]);
    seen.webhook = seenOf();
    for (const r of delivered()) see(seen.webhook, String(r.headers['webhook-id']), JSON.parse(r.body).name);
  }

  /** Reads every path once (each to the end of its pages), noting what each saw; answers how many pages the tool and the resource took. */
  async function readAll(first: boolean): Promise<{ toolPages: number; resourcePages: number }> {
    const t = await tool();
    for (const r of t.rows) see(seen.tool, r.event_id, r.type);
    // The given-cursor reader's first call is the tool's (no cursor yet); then it gives its own.
    const g = first ? t : await tool(cursors.given);
    for (const r of g.rows) see(seen.given, r.event_id, r.type);
    cursors.given = g.pages.at(-1).cursor;
    const res = await resource(first ? undefined : cursors.resource);
    for (const r of res.rows) see(seen.resource, r.event_id, r.type);
    cursors.resource = res.pages.at(-1).cursor;
    for (const e of await pollAll(first)) see(seen.poll, e.eventId, e.name);
    return { toolPages: t.pages.length, resourcePages: res.pages.length };
  }

  /** Every path has seen every occurrence of the log exactly once (poll: those after its first call, as the SEP's null cursor starts from now). */
  async function expectEachOnce(pollFrom: number): Promise<void> {
    const all = await log();
    const ids = all.map((o) => o.eventId);
    for (const path of ['tool', 'given', 'resource'] as const) {
      expect(new Set(seen[path].ids).size, `${path}: an occurrence shown twice`).toBe(seen[path].ids.length);
      expect([...seen[path].ids].sort(), `${path}: every occurrence of the log, none skipped`).toEqual([...ids].sort());
    }
    const polled = all.filter((o) => o.seq > pollFrom).map((o) => o.eventId);
    await webhooks(polled);
    for (const path of ['poll', 'webhook'] as const) {
      expect(new Set(seen[path].ids).size, `${path}: an occurrence shown twice`).toBe(seen[path].ids.length);
      expect([...seen[path].ids].sort(), `${path}: every occurrence after its first cursor`).toEqual([...polled].sort());
    }
  }

  it('shows every occurrence once through the tool, the resource, events/poll and webhooks: first call, a call with a cursor, a one-time event between calls', async () => {
    const facts = await budgetFacts(h.sb);
    await sync();
    // The repro: the review queue grows (an unapproved import), then shrinks before the first
    // alerts call: its review.queue_grew no longer holds, and the first call must still show it.
    const category = facts.categories[0]!;
    const row = await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: category.id, amount: -4_560, approved: false });
    await sync();
    const grew = (await log()).filter((o) => o.name === 'review.queue_grew').at(-1)!;
    expect(grew).toBeDefined();
    expect((await h.sb.call('PATCH', `/budgets/${budgetId}/transactions`, { transactions: [{ id: row.id, approved: true }] })).status).toBe(209);
    await sync();
    // More than one page of the tool (30) before its first call: the queue grows 31 times.
    for (let i = 0; i < 31; i++) {
      await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: category.id, amount: -1_000 - i, approved: false });
      await sync();
    }
    expect((await log()).length).toBeGreaterThan(30);

    // 1. First call of each path, no cursor.
    const pages = await readAll(true);
    // Past the page of 30: each said how many more, and its cursor got them.
    expect(pages.toolPages).toBeGreaterThan(1);
    expect(pages.resourcePages).toBeGreaterThan(1);
    const pollFrom = (await log()).at(-1)!.seq;
    expect(seen.tool.ids).toContain(grew.eventId);
    await expectEachOnce(pollFrom);
    // It said that the queue's growth no longer holds; the next call has nothing new.
    expect((await resource()).rows.find((r) => r.event_id === grew.eventId)).toMatchObject({ type: 'review.queue_grew', still_open: false });
    expect((await tool()).rows).toEqual([]);

    // 2. Calls with a cursor, after each condition type fires (checked against the raw API).
    const target = facts.categories.find((c) => c.balance >= 0 && !facts.overspent.has(c.id) && c.id !== category.id)!;
    await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: target.id, amount: -(target.balance + 7_000) });
    const overspent = (await h.sb.get(`/budgets/${budgetId}/months/current/categories/${target.id}`)).body.data.category.balance;
    expect(overspent).toBe(-7_000);
    const balance = (await h.sb.get(`/budgets/${budgetId}/accounts/${facts.checking.id}`)).body.data.account.balance as number;
    const bill = await h.sb.call('POST', `/budgets/${budgetId}/scheduled_transactions`, {
      scheduled_transaction: {
        account_id: facts.checking.id,
        date: addDays(date, 3),
        frequency: 'never',
        amount: -(balance + 25_000_000),
        payee_name: 'Big Bill',
        category_id: category.id,
      },
    });
    // Beyond what the account holds and the week's scheduled inflows bring (a paycheck may come first).
    expect(bill.status).toBe(201);
    // A steady monthly charge, then the same charge 10 % dearer.
    for (const [n, amount] of [
      [-90, -15_000],
      [-60, -15_000],
      [-30, -15_000],
      [0, -16_500],
    ] as const)
      await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: category.id, payee_name: 'Streamly', amount, date: addDays(date, n) });
    // A card purchase beyond what its category holds: the card's payment category is short.
    const card = facts.accounts.find((a) => a.type === 'creditCard' && !a.closed && !a.deleted)!;
    const empty = facts.categories.find((c) => c.balance === 0 && c.id !== target.id && c.id !== category.id) ?? facts.categories.at(-1)!;
    await spend(h.sb, budgetId, { account_id: card.id, category_id: empty.id, amount: -(Math.max(empty.balance, 0) + 80_000) });
    // A target funded (it clears), then short again: target.due_underfunded fires anew, with the
    // API's goal_under_funded. An account opened today with cash was never reconciled.
    const month = (await h.sb.get(`/budgets/${budgetId}/months/current`)).body.data.month.categories as any[];
    const short = month.find((c) => !c.deleted && !c.hidden && (c.goal_under_funded ?? 0) > 0 && c.id !== target.id && c.id !== category.id)!;
    expect(short, 'a target short in the seed').toBeDefined();
    await assign(h.sb, budgetId, short.id, short.budgeted + short.goal_under_funded);
    await sync();
    await assign(h.sb, budgetId, short.id, short.budgeted);
    const opened = await h.sb.call('POST', `/budgets/${budgetId}/accounts`, { account: { name: 'Cash Jar', type: 'cash', balance: 50_000 } });
    expect(opened.status).toBe(201);
    await sync();
    await readAll(false);
    await expectEachOnce(pollFrom);
    for (const t of [...EVENT_NAMES].filter((n) => n !== 'digest.weekly' && n !== 'review.queue_grew'))
      expect(seen.poll.byType.get(t)?.length ?? 0, `${t} read through events/poll`).toBeGreaterThan(0);
    const underfunded = (await log()).filter((o: any) => o.name === 'target.due_underfunded' && o.data.category_id === short.id).at(-1) as any;
    expect(underfunded.data.amount).toBe(short.goal_under_funded);
    const jar = (await log()).find((o: any) => o.name === 'account.reconcile_due' && o.data.account_id === opened.body.data.account.id) as any;
    expect(jar.data.last_reconciled_on).toBe('never');
    const uncovered = (await log()).find(
      (o: any) => o.name === 'bill.uncovered' && o.data.scheduled_transaction_id === bill.body.data.scheduled_transaction.id,
    ) as any;
    expect(uncovered.data).toMatchObject({ account_id: facts.checking.id, date: addDays(date, 3), bill: balance + 25_000_000, payee: 'Big Bill' });
    const overspentRow = (await log()).find((o: any) => o.name === 'category.overspent' && o.data.category_id === target.id) as any;
    expect(overspentRow.data.amount).toBe(-overspent);

    // 3. One-time events arriving between calls: the weekly digest comes due (Monday 08:00 UTC),
    // and the review queue grows.
    vi.setSystemTime(Date.parse(`${date}T08:30:00Z`));
    await spend(h.sb, budgetId, { account_id: facts.checking.id, category_id: category.id, amount: -2_000, approved: false });
    await sync();
    await readAll(false);
    await expectEachOnce(pollFrom);
    for (const t of ['digest.weekly', 'review.queue_grew']) expect(seen.poll.byType.get(t)?.length, `${t} read through events/poll`).toBeGreaterThan(0);
    // Every path saw all nine types.
    for (const path of ['tool', 'given', 'resource', 'poll', 'webhook'] as const)
      expect([...seen[path].byType.keys()].sort(), `${path} saw every type`).toEqual([...EVENT_NAMES].sort());
  });
});
