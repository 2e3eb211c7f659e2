/**
 * cash_flow through a real MCP client, on three seeds and two dates (the middle of a month and
 * the first of one: the server and the sandbox run in this process's clock), checked against the
 * API's raw answers with arithmetic written here: complete months by default with the current one
 * apart, each month's income (the month view's, less its opening balances: ./opening.ts) and
 * spending as the month view has them, the savings rate to a
 * tenth of a percent, the runway with its basis (cash in open budget accounts that are not
 * credit, over the complete months' average spending rounded to the cent), the net worth change
 * with the opening balances of accounts added in the window apart, and what it covers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { incomeOf } from './opening.js';
import { raw, shiftMonth, usd, written, type Raw } from './raw.js';

const CREDIT = new Set(['creditCard', 'lineOfCredit']);
const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
/** The middle of this month, and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

/** part / whole × 100 to a tenth, half away from zero, in integers. */
function tenths(part: number, whole: number): number {
  const n = BigInt(part) * 1000n;
  const d = BigInt(whole);
  const abs = n < 0n ? -n : n;
  const q = (2n * abs + d) / (2n * d);
  return Number(n < 0n ? -q : q) / 10;
}

/** The day before a YYYY-MM-DD date. */
const dayBefore = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('cash_flow, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const today = date;
  const current = `${date.slice(0, 7)}-01`;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('gives complete months, the current one apart, and rates and averages over the complete months', async () => {
    const res = ok(await h.call('cash_flow', {}));
    const expected = [6, 5, 4, 3, 2, 1].map((i) => shiftMonth(current, -i)).filter((m) => r.months.some((x) => x.month === m));
    expect(res.months).toEqual(expected);
    const raws = expected.map((m) => r.months.find((x) => x.month === m));
    // Income: the month's, less the opening balances in it (issue 57: they are not income).
    const income = raws.reduce((s, m) => s + incomeOf(r, m.month), 0);
    const spending = raws.reduce((s, m) => s - m.activity, 0);
    // Compact: the months' figures as columns, each beside the same list in dollars.
    const incomes = raws.map((m) => incomeOf(r, m.month));
    const spent = raws.map((m) => -m.activity);
    expect(res.by_month).toEqual({ income: incomes, income_formatted: incomes.map(usd), spending: spent, spending_formatted: spent.map(usd) });
    const cur = r.months.find((x) => x.month === current);
    expect(res.current_month).toEqual({ month: current, ...written('compact', { income: incomeOf(r, current), spending: -cur.activity }) });
    expect(res.totals).toEqual({ income: income, income_formatted: usd(income), spending: spending, spending_formatted: usd(spending) });
    expect(res.health.savings_rate_pct).toBe(tenths(income - spending, income));

    // Runway: cash over the average complete month's spending, rounded to the cent; its basis said.
    const cash = r.accounts.filter((a) => a.on_budget && !a.closed && !CREDIT.has(a.type)).reduce((s, a) => s + a.balance, 0);
    const average = Math.round(spending / raws.length / 10) * 10;
    expect(res.health.runway_months).toBe(tenths(cash, average * 100));
    expect(res.health.runway_basis).toBe(`cash ${usd(cash)} / ${usd(average)} spent a month, ${expected[0]!.slice(0, 7)} to ${expected.at(-1)!.slice(0, 7)}`);
    expect(Buffer.byteLength((await h.call('cash_flow', {})).content[0].text)).toBeLessThanOrEqual(2048);
  });

  it('sets the opening balances of accounts added in the window apart from the net worth change, and says what net worth covers', async () => {
    const res = ok(await h.call('cash_flow', { months: 3 }));
    const first = shiftMonth(current, -3);
    const worth = (d: string) => r.transactions.filter((t) => t.date <= d).reduce((s, t) => s + t.amount, 0);
    const opening = r.transactions.filter((t) => t.payee_name === 'Starting Balance' && t.date >= first && t.date <= today);
    const added = opening.reduce((s, t) => s + t.amount, 0);
    const change = worth(today) - worth(dayBefore(first)) - added;
    expect(res.health).toMatchObject({ net_worth_change: change, net_worth_change_formatted: usd(change) });
    if (opening.length) {
      const names = [...new Set(opening.map((t) => r.account.get(t.account_id).name))].sort();
      expect(res.health.accounts_added).toEqual({ names: names.join(', '), opening_balances: added, opening_balances_formatted: usd(added) });
    } else expect(res.health.accounts_added).toBeUndefined();
    expect(res.health.net_worth_covers).toBe(`all ${r.accounts.length} accounts`);
    const full = ok(await h.call('cash_flow', { months: 3, detail: 'full' }));
    for (const a of r.accounts) expect(full.health.net_worth_covers).toContain(a.name);
    expect(full.health.net_worth_change_from).toBe(dayBefore(first));
  });

  it('works with months: 1, and says how many months it had when asked for more', async () => {
    const one = ok(await h.call('cash_flow', { months: 1 }));
    expect(one.months).toHaveLength(1);
    expect(one.health.runway_months).toEqual(expect.any(Number));
    const had = r.months.filter((m) => m.month < current).length;
    const many = ok(await h.call('cash_flow', { months: 36 }));
    expect(many.months).toHaveLength(Math.min(had, 36));
    if (had < 36) expect(many.notices.join(' ')).toContain(`Asked for 36 complete months; the budget has ${had} (`);
  });

  it('counts the current month in rates and totals with complete_months_only: false', async () => {
    const res = ok(await h.call('cash_flow', { months: 2, complete_months_only: false }));
    const months = [shiftMonth(current, -2), shiftMonth(current, -1), current];
    expect(res.months).toEqual(months);
    expect(res.current_month).toBeUndefined();
    expect(res.by_month.partial_month).toBe(current);
    const raws = months.map((m) => r.months.find((x) => x.month === m));
    expect(res.totals.income).toBe(raws.reduce((s, m) => s + incomeOf(r, m.month), 0));
  });
});
