/**
 * upcoming through a real MCP client (cash_flow is in cash-flow.test.ts), checked against the
 * API's raw answers with arithmetic written in the test: the
 * scheduled transactions of the coming days are expanded by their frequency here too, and each
 * occurrence's projected balance carried forward from the accounts' balances.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { byDay, occurrences } from './occurrences.js';
import { raw, todayUtc, usd, written } from './raw.js';

let h: McpHarness;
const requests: string[] = [];

beforeAll(async () => {
  h = await mcpHarness({ stack: { onRequest: (r) => requests.push(r.path) } });
});
afterAll(() => h.close());

describe('upcoming: a window, and what is overdue (issue 35 item 7a)', () => {
  const shift = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

  it('lists the occurrences from/to, balances still carried from today; days and to together is an error', async () => {
    const r = await raw(h.sb);
    const today = todayUtc();
    const [from, to] = [shift(today, 10), shift(today, 50)];
    const res = ok(await h.call('upcoming', { from, to, detail: 'full', limit: 100 }));
    const expected = r.scheduled
      .flatMap((s) => occurrences(s, from, to).map((date) => ({ date, s })))
      .filter((o) => r.account.get(o.s.account_id)?.on_budget)
      .sort(byDay);
    expect(res.count).toBe(expected.length);
    expect(res.occurrences.map((o: any) => [o.date, o.scheduled_transaction_id])).toEqual(expected.map((o) => [o.date, o.s.id]));
    // The first occurrence's balance counts everything scheduled from today, before the window too.
    const first = expected[0]!;
    const before = r.scheduled.flatMap((s) => occurrences(s, today, first.date).map((date) => ({ date, s }))).filter((o) => byDay(o, first) <= 0);
    const balance = r.account.get(first.s.account_id).balance;
    const moved = before.reduce(
      (sum, o) => sum + (o.s.account_id === first.s.account_id ? o.s.amount : 0) - (o.s.transfer_account_id === first.s.account_id ? o.s.amount : 0),
      0,
    );
    expect(res.occurrences[0].projected_balance).toBe(balance + moved);
    const both = await h.call('upcoming', { days: 5, to });
    expect(both.isError).toBe(true);
    expect(both.content[0].text).toMatch(/days or to, not both/);
  });

  it('lists occurrences past their date and not entered apart, with their total, instead of dropping them', async () => {
    const tomorrow = shift(todayUtc(), 1);
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Everyday Checking',
        date: tomorrow,
        amount: -80,
        payee_name: 'Overdue Plumber',
        frequency: 'never',
        allow_new_payee: true,
      }),
    );
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Everyday Checking',
        date: tomorrow,
        amount: -20,
        payee_name: 'Overdue Weekly',
        frequency: 'daily',
        allow_new_payee: true,
      }),
    );
    // Three days on: the server and the sandbox (one process) both see the later date.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3 * 86_400_000 });
    try {
      const today = todayUtc();
      const r = await raw(h.sb);
      const late = r.scheduled
        .filter((s) => s.date_next < today)
        .flatMap((s) => occurrences(s, s.date_next, shift(today, -1)).map((date) => ({ date, s })))
        .filter((o) => r.account.get(o.s.account_id)?.on_budget)
        .sort(byDay);
      expect(late.map((o) => o.s.payee_name)).toContain('Overdue Plumber');
      const res = ok(await h.call('upcoming', { detail: 'full' }));
      expect(res.overdue_count).toBe(late.length);
      expect(res.overdue.map((o: any) => [o.date, o.scheduled_transaction_id, o.amount])).toEqual(late.map((o) => [o.date, o.s.id, o.s.amount]));
      expect(res.overdue_total).toBe(late.reduce((sum, o) => sum + o.s.amount, 0));
      // Not among the occurrences to come.
      expect(res.occurrences.some((o: any) => o.date < today)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('upcoming', () => {
  it("expands scheduled transactions by frequency, each with its account's projected balance", async () => {
    // A weekly and a twice-a-month schedule besides the demo's, and a transfer into savings.
    const inTwoDays = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Wallet',
        date: inTwoDays,
        amount: -12.5,
        payee_name: 'Weekly Farm Box',
        category_id: 'Groceries',
        frequency: 'weekly',
      }),
    );
    const savings = ok(await h.call('get_account', { account_id: 'Rainy Day Savings' })).account;
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Everyday Checking',
        date: inTwoDays,
        amount: -25,
        payee_id: savings.transfer_payee_id,
        frequency: 'twiceAMonth',
      }),
    );
    const r = await raw(h.sb);
    const days = 45;
    const today = todayUtc();
    const until = new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    // The writes above made the copy stale: one delta brings it up to date, then nothing more is asked.
    ok(await h.call('upcoming', {}));
    const n = requests.length;
    const res = ok(await h.call('upcoming', { days, detail: 'full' }));
    expect(requests.slice(n)).toEqual([]);
    const expected = r.scheduled
      .flatMap((s) => occurrences(s, today, until).map((date) => ({ date, s })))
      .filter((o) => r.account.get(o.s.account_id)?.on_budget)
      .sort(byDay);
    expect(res.count).toBe(expected.length);
    expect(res.occurrences.map((o: any) => [o.date, o.scheduled_transaction_id])).toEqual(expected.map((o) => [o.date, o.s.id]));
    // Balances carried forward through every account's occurrences (tracking accounts too, unlisted).
    const all = r.scheduled.flatMap((s) => occurrences(s, today, until).map((date) => ({ date, s }))).sort(byDay);
    const balance = new Map(r.accounts.map((a) => [a.id, a.balance]));
    const projected = new Map<string, number>();
    for (const o of all) {
      balance.set(o.s.account_id, balance.get(o.s.account_id)! + o.s.amount);
      if (o.s.transfer_account_id) balance.set(o.s.transfer_account_id, balance.get(o.s.transfer_account_id)! - o.s.amount);
      projected.set(`${o.date}/${o.s.id}`, balance.get(o.s.account_id)!);
    }
    for (const o of res.occurrences) {
      const p = projected.get(`${o.date}/${o.scheduled_transaction_id}`)!;
      expect(o, o.payee_name).toMatchObject({ projected_balance: p, projected_balance_formatted: usd(p) });
      const s = r.scheduled.find((x) => x.id === o.scheduled_transaction_id);
      expect(o).toMatchObject({ amount: s.amount, amount_formatted: usd(s.amount), frequency: s.frequency, account_name: s.account_name });
    }
    const farm = res.occurrences.filter((o: any) => o.payee_name === 'Weekly Farm Box');
    expect(farm.length).toBeGreaterThanOrEqual(6);
    const amounts = expected.map((o) => o.s.amount);
    const inflow = amounts.filter((a) => a > 0).reduce((s, a) => s + a, 0);
    const outflow = amounts.filter((a) => a < 0).reduce((s, a) => s + a, 0);
    expect(res).toMatchObject({
      count: expected.length,
      returned: expected.length,
      has_more: false,
      inflow: inflow,
      inflow_formatted: usd(inflow),
      outflow: outflow,
      outflow_formatted: usd(outflow),
    });

    // Compact (the default): pages of 5 occurrences, each when, who, from where, how much and
    // what is left; every page totals every occurrence.
    const compact: any[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await h.call('upcoming', { days, ...(cursor ? { cursor } : {}) }));
      expect(page).toMatchObject({
        count: expected.length,
        returned: page.occurrences.length,
        inflow: inflow,
        inflow_formatted: usd(inflow),
        outflow: outflow,
        outflow_formatted: usd(outflow),
      });
      expect(page.occurrences.length).toBe(Math.min(5, expected.length - compact.length));
      compact.push(...page.occurrences);
      cursor = page.has_more ? page.next_cursor : undefined;
    } while (cursor);
    expect(compact).toEqual(
      expected.map((o) => ({
        date: o.date,
        payee_name: o.s.payee_name ?? undefined,
        account_name: o.s.account_name,
        amount: o.s.amount,
        amount_formatted: usd(o.s.amount),
        projected_balance: projected.get(`${o.date}/${o.s.id}`),
        projected_balance_formatted: usd(projected.get(`${o.date}/${o.s.id}`)!),
      })),
    );
  });
});
