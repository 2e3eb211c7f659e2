/**
 * needs_attention's overview names the first item of each kind with its figure, and its full answer
 * lists every item of each kind in lean rows or says how many more there are and where (issue 58
 * item 5), through a real MCP client on three seeds and two dates (mid-month and the first of a
 * month). Built through the sandbox's HTTP API: two categories overspent from checking, a bill
 * due in 5 days that takes savings below zero, and 52 unapproved transactions. Expected figures
 * come from the raw API: the month's categories, the account's balance and the schedule, the
 * unapproved transactions and the accounts' reconcile dates.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, usd, type Raw } from './raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];
const DAY = 86_400_000;
const PAYMENT_GROUP = 'Credit Card Payments';

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('needs_attention lists, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const day = (n: number) => new Date(Date.parse(date) + n * DAY).toISOString().slice(0, 10);
  const kind = (res: any, k: string) => res.attention.find((x: any) => x.kind === k);
  const post = async (path: string, body: unknown) => {
    const res = await h.sb.call('POST', `${r.b}${path}`, body);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  };

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
    const checking = r.accounts.find((a) => a.name === 'Everyday Checking');
    const savings = r.accounts.find((a) => a.name === 'Rainy Day Savings');
    const month = await r.month(`${date.slice(0, 7)}-01`);
    const available = (name: string) => month.categories.find((c: any) => c.name === name).balance;
    // Two categories overspent from checking (cash), by 900.00 and 700.00 beyond what they hold.
    const spend = (name: string, over: number) => ({
      account_id: checking.id,
      date,
      amount: -(Math.max(0, available(name)) + over),
      payee_name: `Overspend ${name}`,
      category_id: r.categories.find((c) => c.name === name).id,
      approved: true,
    });
    const unapproved = Array.from({ length: 52 }, (_, i) => ({
      account_id: checking.id,
      date: day(-1),
      amount: -(1_000 + i * 10),
      payee_name: `Queue ${i}`,
      approved: false,
    }));
    await post('/transactions', { transactions: [spend('Dining Out', 900_000), spend('Clothing', 700_000), ...unapproved] });
    // A bill in 5 days that takes savings 250.00 below zero.
    await post('/scheduled_transactions', {
      scheduled_transaction: { account_id: savings.id, date: day(5), frequency: 'never', amount: -(savings.balance + 250_000), payee_name: 'Roof Repair Co' },
    });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('the overview names the first item of each kind with its figure, within its 1,580 bytes', async () => {
    const res = ok(await h.call('needs_attention'));
    expect(Buffer.byteLength(JSON.stringify(res.attention))).toBeLessThanOrEqual(1_580);
    for (const k of res.attention) {
      expect(k.examples, k.kind).toBeUndefined();
      if (k.kind !== 'ready_to_assign') expect(Object.keys(k.first ?? {}), k.kind).toHaveLength(1);
    }
    // Overspent: the category furthest below zero this month, with its overspending (cash: spent from checking).
    const month = await r.month(`${date.slice(0, 7)}-01`);
    const over = month.categories
      .filter((c: any) => c.balance < 0 && c.category_group_name !== PAYMENT_GROUP && c.category_group_name !== 'Internal Master Category')
      .sort((a: any, b: any) => a.balance - b.balance);
    expect(kind(res, 'overspent')).toMatchObject({ count: over.length, first: { [over[0].name]: `${usd(-over[0].balance)} (cash)` } });
    // Upcoming shortfall: savings, its lowest balance after the bill, and the bill with its payee.
    const savings = r.accounts.find((a) => a.name === 'Rainy Day Savings');
    const bill = r.scheduled.find((s) => s.payee_name === 'Roof Repair Co');
    const lowest = savings.balance + bill.amount;
    expect(kind(res, 'upcoming_shortfall').first).toEqual({
      'Rainy Day Savings': `${usd(lowest)} on ${bill.date_next} after Roof Repair Co ${usd(bill.amount)}`,
    });
    // Unapproved: the newest, by payee and amount.
    const queue = r.transactions.filter((t) => !t.approved && r.account.get(t.account_id).on_budget);
    const newest = queue
      .map((t) => t.date)
      .sort()
      .at(-1);
    const firsts = queue.filter((t) => t.date === newest).map((t) => JSON.stringify({ [t.payee_name]: usd(t.amount) }));
    expect(firsts).toContain(JSON.stringify(kind(res, 'unapproved').first));
    expect(kind(res, 'unapproved').count).toBe(queue.length);
  });

  it('the full answer lists every item of each kind in lean rows, or says how many more and where', async () => {
    const full = ok(await h.call('needs_attention', { detail: 'full' }));
    const queue = r.transactions.filter((t) => !t.approved && r.account.get(t.account_id).on_budget);
    const unapproved = kind(full, 'unapproved');
    expect(unapproved).toMatchObject({ count: queue.length, more: queue.length - 50 });
    expect(unapproved.examples).toHaveLength(50);
    expect(unapproved.rest).toBe('kind "unapproved" lists up to 100; review_transactions status "unapproved" lists them all');
    const ids = new Set(queue.map((t) => t.id));
    for (const row of unapproved.examples) {
      expect(ids.has(row.id)).toBe(true);
      const t = r.transactions.find((x) => x.id === row.id);
      expect(row).toMatchObject({ date: t.date, account_name: r.account.get(t.account_id).name, amount: t.amount, amount_formatted: usd(t.amount) });
      expect(
        Object.keys(row).every((f) => ['id', 'date', 'account_name', 'payee_name', 'amount', 'amount_formatted', 'category_name', 'memo'].includes(f)),
      ).toBe(true);
    }
    // One kind asked for: all of them (up to 100), nothing more to say.
    const one = ok(await h.call('needs_attention', { kind: 'unapproved', detail: 'full' })).attention[0];
    expect(one.examples.map((x: any) => x.id).sort()).toEqual([...ids].sort());
    expect(one.more).toBeUndefined();
    // Unreconciled: every open budget account in use not reconciled for 30 days, all of them listed.
    const cutoff = day(-30);
    const used = new Set(r.transactions.map((t) => t.account_id));
    const stale = r.accounts.filter((a) => a.on_budget && !a.closed && used.has(a.id) && (a.last_reconciled_at ?? '').slice(0, 10) < cutoff);
    const listed = kind(full, 'unreconciled');
    expect(listed.count).toBe(stale.length);
    expect(listed.examples.map((x: any) => x.name).sort()).toEqual(stale.map((a) => a.name).sort());
    expect(listed.more).toBeUndefined();
    // Every kind: all its items listed, or how many more.
    for (const k of full.attention) expect(k.examples.length + (k.more ?? 0), k.kind).toBe(k.count);
    // Overspent in full: both built categories, with their figures.
    const month = await r.month(`${date.slice(0, 7)}-01`);
    for (const name of ['Dining Out', 'Clothing']) {
      const c = month.categories.find((x: any) => x.name === name);
      expect(kind(full, 'overspent').examples.find((x: any) => x.name === name)).toMatchObject({ overspent: -c.balance, overspent_formatted: usd(-c.balance) });
    }
  });
});
