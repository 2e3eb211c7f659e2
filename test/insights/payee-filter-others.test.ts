/**
 * A payee filter names the payees it leaves out whose names hold the filtered one's (issue 58
 * item 7): "REWE" leaves out "REWE City", and search_transactions, spending_summary and the filter
 * writes (recategorize_transactions) each say so in one line with how many of its transactions the
 * rest of the filter matches. Through a real MCP client, on three seeds and two dates (the middle
 * of a month and the first of one); the counts are the sandbox's raw transactions, counted here.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, type Raw } from './raw.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'payee-others-a', 'payee-others-b'];
const BERLIN = 'Haushalt Berlin';

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('payee filter, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const current = `${date.slice(0, 7)}-01`;
  /** REWE City's transactions the sandbox holds, and the line each answer must give. */
  const line = (n: number) => `also: REWE City, ${n} transaction${n === 1 ? '' : 's'}, not counted (payee_id "REWE City" counts them).`;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb, BERLIN);
    const giro = r.accounts.find((a) => a.name === 'Girokonto');
    const food = r.categories.find(
      (c) => !c.hidden && !c.group.hidden && c.group.name !== 'Internal Master Category' && c.group.name !== 'Credit Card Payments',
    );
    // Four at REWE City: today, the first of this month, and two in the month before.
    for (const [d, amount] of [
      [date, -12_340],
      [current, -5_000],
      [shiftMonth(current, -1), -7_250],
      [`${shiftMonth(current, -1).slice(0, 8)}20`, -3_100],
    ] as const) {
      const res = await h.sb.call('POST', `${r.b}/transactions`, {
        transaction: { account_id: giro.id, date: d, amount, payee_name: 'REWE City', category_id: food.id, approved: true },
      });
      expect(res.status).toBe(201);
    }
    r = await raw(h.sb, BERLIN);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  const cityLines = (since: string, until: string) =>
    r.transactions.filter((t) => t.payee_name === 'REWE City' && t.date >= since && t.date <= until && r.account.get(t.account_id)?.on_budget);

  it('search_transactions for "REWE" counts REWE only and names REWE City with its count', async () => {
    const rewe = r.payees.find((p) => p.name === 'REWE');
    const res = ok(await h.call('search_transactions', { budget_id: BERLIN, payee_id: 'REWE', since_date: shiftMonth(current, -1), until_date: date }));
    const own = r.transactions.filter((t) => t.date >= shiftMonth(current, -1) && t.date <= date && r.account.get(t.account_id)?.on_budget);
    const reweLines = own.flatMap((t) =>
      t.subtransactions?.length ? t.subtransactions.filter((s: any) => (s.payee_id ?? t.payee_id) === rewe.id) : t.payee_id === rewe.id ? [t] : [],
    );
    expect(res.count).toBe(reweLines.length);
    expect(res.notices).toContain(line(cityLines(shiftMonth(current, -1), date).length));
  });

  it("spending_summary for REWE this month names REWE City's transactions of the month", async () => {
    const res = ok(await h.call('spending_summary', { budget_id: BERLIN, payee_id: 'rewe', month: 'current' }));
    const n = cityLines(current, date).length;
    expect(n).toBe(2);
    expect(res.notices).toContain(line(n));
  });

  it('recategorize_transactions by the payee filter says it too, and changes nothing unconfirmed', async () => {
    const target = r.categories.find(
      (c) =>
        !c.hidden &&
        !c.group.hidden &&
        c.group.name !== 'Internal Master Category' &&
        c.group.name !== 'Credit Card Payments' &&
        c.name !== r.categories[0].name,
    );
    const res = ok(
      await h.call('recategorize_transactions', { budget_id: BERLIN, new_category_id: target.id, payee_id: 'REWE', since_date: current, expected_count: 999 }),
    );
    expect(res.notices).toContain(line(cityLines(current, date).length));
    const after = await raw(h.sb, BERLIN);
    expect(after.transactions.map((t) => t.category_id)).toEqual(r.transactions.map((t) => t.category_id));
  });

  it('a payee whose name no other payee holds gets no such line', async () => {
    const res = ok(await h.call('search_transactions', { budget_id: BERLIN, payee_id: 'REWE City' }));
    expect(res.count).toBe(r.transactions.filter((t) => t.payee_name === 'REWE City').length);
    expect((res.notices ?? []).filter((n: string) => n.startsWith('also:'))).toEqual([]);
  });
});
