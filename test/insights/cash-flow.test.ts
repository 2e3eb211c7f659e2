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
import { activityLines, lastDay, raw, rawLines, shiftMonth, sumsOf, usd, written, type Raw } from './raw.js';

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

/** milliunits / n to whole cents, half away from zero, in integers. */
function cents(milliunits: number, n: number): number {
  const a = BigInt(Math.abs(milliunits));
  const d = BigInt(n) * 10n;
  return Number((2n * a + d) / (2n * d)) * 10 * (milliunits < 0 ? -1 : 1);
}

/** Income between two dates, line by line: money to Ready to Assign on a budget account, no opening balance, no transfer between budget accounts. */
function incomeBetween(r: Raw, since: string, until: string): number {
  let total = 0;
  for (const l of r.transactions.flatMap(rawLines)) {
    if (l.date < since || l.date > until || l.category_id !== r.rta || !r.account.get(l.account_id)?.on_budget) continue;
    if (l.t.payee_name === 'Starting Balance' && !l.transfer_account_id) continue;
    if (l.transfer_account_id && r.account.get(l.transfer_account_id)?.on_budget) continue;
    total += l.amount;
  }
  return total;
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
    // Averages per complete month, and today's net worth (issue 58 item 2: a model no longer divides).
    const [avgIncome, avgSpending] = [cents(income, raws.length), cents(spending, raws.length)];
    expect(res.totals).toEqual({
      ...written('compact', { income, spending }),
      ...written('compact', { average_income: avgIncome, average_spending: avgSpending }),
    });
    const worth = r.transactions.filter((t) => t.date <= today).reduce((s, t) => s + t.amount, 0);
    expect(res.health).toMatchObject(written('compact', { net_worth: worth }));
    expect(res.health.savings_rate_pct).toBe(tenths(income - spending, income));

    // Runway: cash over the average complete month's spending, rounded to the cent; its basis said.
    const cash = r.accounts.filter((a) => a.on_budget && !a.closed && !CREDIT.has(a.type)).reduce((s, a) => s + a.balance, 0);
    const average = Math.round(spending / raws.length / 10) * 10;
    expect(res.health.runway_months).toBe(tenths(cash, average * 100));
    expect(res.health.runway_basis).toBe(`cash ${usd(cash)} / totals.average_spending`);
    expect(res.totals.average_spending).toBe(average);
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

  it('gives income, spending and saved over a date range, the current month to date counted: year to date by default', async () => {
    const jan1 = `${today.slice(0, 4)}-01-01`;
    const figures = (since: string, until: string) => {
      const income = incomeBetween(r, since, until);
      const spending = -sumsOf(activityLines(r, since, until)).net;
      return { income, spending, saved: income - spending };
    };
    const ytd = figures(jan1, today);
    for (const args of [{ since_date: 'year' }, { until_date: today }, { since_date: jan1, until_date: today }]) {
      const res = ok(await h.call('cash_flow', args));
      expect(res.period, JSON.stringify(args)).toEqual({ since: jan1, until: today });
      expect(res.totals).toMatchObject(written('compact', ytd));
      expect(res.months).toEqual(
        r.months
          .map((m) => m.month)
          .filter((m) => m >= jan1 && m <= today)
          .sort(),
      );
    }
    // A range from the middle of one month to the middle of another, its ends counting their days only.
    const since = `${shiftMonth(current, -3).slice(0, 8)}15`;
    const until = `${shiftMonth(current, -1).slice(0, 8)}10`;
    const mid = ok(await h.call('cash_flow', { since_date: since, until_date: until, detail: 'full' }));
    expect(mid.totals).toMatchObject(written('full', figures(since, until)));
    // The one whole month inside it is averaged; its income is the month view's, less opening balances.
    const whole = shiftMonth(current, -2);
    expect(incomeBetween(r, whole, lastDay(whole))).toBe(incomeOf(r, whole));
    expect(mid.totals).toMatchObject({ averaged_months: 1, average_income: incomeOf(r, whole), average_spending: figures(whole, lastDay(whole)).spending });
    expect(mid.months.map((m: any) => m.partial ?? false)).toEqual([true, false, true]);
    // Whole months as a range give the default answer's totals.
    const six = ok(await h.call('cash_flow', {}));
    const range = ok(await h.call('cash_flow', { since_date: six.months[0], until_date: lastDay(six.months.at(-1)) }));
    expect(range.totals).toMatchObject({ income: six.totals.income, spending: six.totals.spending, average_income: six.totals.average_income });
    expect(Buffer.byteLength((await h.call('cash_flow', { since_date: 'year' })).content[0].text)).toBeLessThanOrEqual(2048);
    // A range from before the budget's first month counts from it, and says so.
    const first = r.budget.first_month as string;
    const early = ok(await h.call('cash_flow', { since_date: shiftMonth(first, -2), until_date: lastDay(first) }));
    expect(early.months).toEqual([first]);
    expect(early.totals).toMatchObject(written('compact', figures(first, lastDay(first))));
    expect(early.notices.join(' ')).toContain(`The range starts ${shiftMonth(first, -2)}, before the budget's first month, ${first}: it counts from ${first}.`);
    const both = await h.call('cash_flow', { months: 3, since_date: 'year' });
    expect(both.isError).toBe(true);
  });
});
