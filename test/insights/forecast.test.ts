/**
 * forecast and recurring (issue 35 items 1, 5, 11) against a budget checked by hand: a new
 * checking account built in the sandbox through the API, with four months of pay, a gym bill and a
 * subscription whose price rose last month, a scheduled rent and a one-off payment, and the pay
 * also scheduled (so it must count once). Every expectation is worked out here by arithmetic from
 * what was planted and from the API's raw answer (the account's balance), not from the code under
 * test: the dates each item falls on, the balance at each month's end and each day, the first day
 * below zero, the next pay and the cash until then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, todayUtc, usd } from './raw.js';

let h: McpHarness;
const u = Date.now().toString(36);
const today = todayUtc();
const ACCOUNT = `Forecast Checking ${u}`;
const PAY = { name: `Lumen Payroll ${u}`, day: 15, amount: 2_000_000 };
const GYM = { name: `Ironworks Gym ${u}`, day: 8, amount: -50_000 };
const STREAM = { name: `Streamly Plus ${u}`, day: 21, amount: -15_000, raised: -17_000 };
const RENT = { name: `Harbor Lofts ${u}`, day: 3, amount: -6_000_000 };
const ONCE = { name: `Bright Dental ${u}`, amount: -300_000, days: 20 };

/** Date arithmetic written out again, apart from src/api/dates.ts. */
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
function onDay(month: string, day: number, plus = 0): string {
  const d = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1 + plus, day));
  return d.toISOString().slice(0, 10);
}
const thisMonth = `${today.slice(0, 7)}-01`;
/** The dates of a monthly item on `day` from `from` (exclusive unless `inclusive`) through `until`. */
function monthly(day: number, from: string, until: string, inclusive = false): string[] {
  const out: string[] = [];
  for (let k = -6; k <= 30; k++) {
    const d = onDay(thisMonth, day, k);
    if ((inclusive ? d >= from : d > from) && d <= until) out.push(d);
  }
  return out;
}
/** The last date on `day` of a month up to today, and the ones before it. */
const pastDates = (day: number, n: number) => monthly(day, addDays(today, -400), today, true).slice(-n);

/** Three months from today, the day kept or the month's last day when shorter. */
const until = (() => {
  const last = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)) + 3, 0)).getUTCDate();
  return onDay(thisMonth, Math.min(Number(today.slice(8, 10)), last), 3);
})();
let start = 0;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'forecast' } });
  ok(await h.call('create_account', { name: ACCOUNT, type: 'checking', balance: 1000 }));
  const txs = [
    ...pastDates(PAY.day, 4).map((date) => ({ date, amount_milliunits: PAY.amount, payee_name: PAY.name, category_id: 'Inflow: Ready to Assign' })),
    ...pastDates(GYM.day, 4).map((date) => ({ date, amount_milliunits: GYM.amount, payee_name: GYM.name, category_id: 'Groceries' })),
    ...pastDates(STREAM.day, 5).map((date, i) => ({
      date,
      amount_milliunits: i === 4 ? STREAM.raised : STREAM.amount,
      payee_name: STREAM.name,
      category_id: 'Subscriptions',
    })),
  ].map((t) => ({ ...t, account_id: ACCOUNT, approved: true }));
  ok(await h.call('create_transactions', { allow_duplicate: true, allow_new_payee: true, transactions: txs }));
  const schedule = (date: string, amount: number, payee: string, frequency: string) =>
    h.call('create_scheduled_transaction', { account_id: ACCOUNT, date, amount_milliunits: amount, payee_name: payee, frequency, allow_new_payee: true });
  ok(await schedule(monthly(RENT.day, today, '9999-12-31')[0]!, RENT.amount, RENT.name, 'monthly'));
  ok(await schedule(addDays(today, ONCE.days), ONCE.amount, ONCE.name, 'never'));
  // The pay is scheduled too, on the date its history gives: it must count once.
  ok(await schedule(monthly(PAY.day, today, '9999-12-31')[0]!, PAY.amount, PAY.name, 'monthly'));
  const r = await raw(h.sb);
  start = r.accounts.find((a) => a.name === ACCOUNT).balance;
});
afterAll(() => h.close());

/** What is coming through `end`, worked out by hand: a day's outflows before its inflows. */
function expected(end: string, kinds: { scheduled: boolean; recurring: boolean }) {
  const events: { date: string; amount: number; pay?: boolean }[] = [];
  if (kinds.scheduled) {
    for (const d of monthly(RENT.day, today, end, true)) events.push({ date: d, amount: RENT.amount });
    if (addDays(today, ONCE.days) <= end) events.push({ date: addDays(today, ONCE.days), amount: ONCE.amount });
    for (const d of monthly(PAY.day, today, end, true)) events.push({ date: d, amount: PAY.amount, pay: true });
  }
  if (kinds.recurring) {
    for (const d of monthly(GYM.day, today, end)) events.push({ date: d, amount: GYM.amount });
    // The new price is what comes next.
    for (const d of monthly(STREAM.day, today, end)) events.push({ date: d, amount: STREAM.raised });
    // The pay is not counted again here when scheduled.
    if (!kinds.scheduled) for (const d of monthly(PAY.day, today, end)) events.push({ date: d, amount: PAY.amount, pay: true });
  }
  events.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.amount - b.amount));
  let balance = start;
  let low = start;
  let below: { date: string; balance: number } | null = start < 0 ? { date: today, balance: start } : null;
  let pay: { date: string; amount: number; low: number } | null = null;
  const days: Record<string, number> = {};
  const monthEnds: Record<string, number> = {};
  for (const e of events) {
    if (e.pay && !pay) pay = { date: e.date, amount: e.amount, low };
    balance += e.amount;
    low = Math.min(low, balance);
    if (balance < 0 && !below) below = { date: e.date, balance };
    days[e.date] = balance;
    monthEnds[`${e.date.slice(0, 7)}-01`] = balance;
  }
  return { events, balance, below, pay, days, monthEnds };
}

describe('forecast', () => {
  it('projects the account from its scheduled and recurring items, each counted once, to each month end, and names the first day below zero and the next pay', async () => {
    const e = expected(until, { scheduled: true, recurring: true });
    const res = ok(await h.call('forecast', { account_id: ACCOUNT, months: 3 }));
    expect(res.until).toBe(until);
    expect(res.balance_today).toBe(start);
    // Month ends: the last event's balance in each month, carried through months without one.
    let carried = start;
    // Compact: each month end as text in the budget's currency.
    const ends = res.month_end_balances_formatted as Record<string, string>;
    for (const [month, end] of Object.entries(ends)) {
      carried = e.monthEnds[`${month}-01`] ?? carried;
      expect(end, month).toBe(usd(carried));
    }
    expect(Object.keys(ends)).toHaveLength(4);
    expect(Object.values(ends).at(-1)).toBe(usd(e.balance));
    // Days: each day whose balance changes, within 60 days.
    const daily = Object.fromEntries(Object.entries(e.days).filter(([d]) => d <= addDays(today, 60)));
    expect(res.day_balances_formatted).toEqual(Object.fromEntries(Object.entries(daily).map(([d, b]) => [d, usd(b as number)])));
    expect(e.below).not.toBeNull();
    expect(res.below_zero).toMatchObject({ date: e.below!.date, account_name: ACCOUNT, balance: e.below!.balance });
    expect(res.next_income).toMatchObject({
      date: e.pay!.date,
      payee_name: PAY.name,
      amount: PAY.amount,
      available_until_then: e.pay!.low,
    });
    expect(res.assumptions.join?.('') ?? JSON.stringify(res.assumptions)).toMatch(/counted once/);
  });

  it('states every recurring item it used, with amount, cadence and next date (detail full), and counts only what include names', async () => {
    const full = ok(await h.call('forecast', { account_id: ACCOUNT, months: 3, detail: 'full' }));
    const items = full.assumptions.find((a: any) => a.recurring).recurring;
    expect(items.map((i: any) => i.payee_name).sort()).toEqual([GYM.name, STREAM.name].sort());
    expect(items.find((i: any) => i.payee_name === STREAM.name)).toMatchObject({
      cadence: 'monthly',
      amount: STREAM.raised,
      next_date: monthly(STREAM.day, today, until)[0],
    });
    expect(full.assumptions.find((a: any) => typeof a === 'string' && a.includes('as scheduled'))).toContain(PAY.name);

    const scheduledOnly = expected(until, { scheduled: true, recurring: false });
    expect(ok(await h.call('forecast', { account_id: ACCOUNT, months: 3, include: ['scheduled'], detail: 'full' })).months.at(-1).end).toBe(
      scheduledOnly.balance,
    );
    const recurringOnly = expected(until, { scheduled: false, recurring: true });
    expect(ok(await h.call('forecast', { account_id: ACCOUNT, months: 3, include: ['recurring'], detail: 'full' })).months.at(-1).end).toBe(
      recurringOnly.balance,
    );
  });

  it('until_date "next payday" stops at the next pay; a bad date or both months and until_date is a clear error', async () => {
    const e = expected(until, { scheduled: true, recurring: true });
    const res = ok(await h.call('forecast', { account_id: ACCOUNT, until_date: 'next payday' }));
    expect(res.until).toBe(e.pay!.date);
    expect(res.next_income.available_until_then).toBe(e.pay!.low);
    const bad = await h.call('forecast', { account_id: ACCOUNT, until_date: 'soon' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/until_date.*YYYY-MM-DD or "next payday"/);
    const both = await h.call('forecast', { account_id: ACCOUNT, months: 2, until_date: until });
    expect(both.content[0].text).toMatch(/months or until_date, not both/);
    expect((await h.call('forecast', { months: 25 })).isError).toBe(true);
  });

  it('answers the demo budget in at most 2 KB by default', async () => {
    for (const args of [{}, { months: 24 }, { until_date: 'next payday' }, { include: ['scheduled', 'recurring', 'assigned'] }]) {
      const res = await h.call('forecast', args);
      ok(res);
      expect(Buffer.byteLength(res.content[0].text, 'utf8'), JSON.stringify(args)).toBeLessThanOrEqual(2048);
    }
  });
});

describe('the demo budget (issue 35 item 10)', () => {
  it('has a subscription whose price rose and irregular income for recurring to find, as the raw transactions show', async () => {
    const r = await raw(h.sb);
    const res = ok(await h.call('recurring', { detail: 'full' }));
    const amounts = (name: string) =>
      r.transactions
        .filter((t) => t.payee_name === name)
        .sort((a, b) => (a.date < b.date ? -1 : 1))
        .map((t) => t.amount);
    const rise = res.subscriptions.find((row: any) => row.price_change && !row.payee_name.endsWith(u));
    expect(rise, 'a demo subscription with a price change').toBeDefined();
    const paid = amounts(rise.payee_name);
    expect(-paid.at(-1)!).toBe(rise.price_change.new);
    expect(-paid.at(-2)!).toBe(rise.price_change.old);
    expect(rise.price_change.new).toBeGreaterThan(rise.price_change.old);
    const irregular = res.incomes.find((row: any) => row.varies && row.cadence === 'monthly' && !row.payee_name.endsWith(u) && row.amount > 500_000);
    expect(irregular, 'demo income that varies').toBeDefined();
    const got = amounts(irregular.payee_name).slice(-6);
    expect(new Set(got).size).toBeGreaterThan(1);
    const [a, b] = [...got].sort((x, y) => x - y).slice(2, 4);
    expect(irregular.amount, 'the median of the last six').toBe(Math.round((a! + b!) / 2));
  });
});

describe('recurring', () => {
  it('lists the planted items by group with cadence, amounts, next date, annual cost and the price rise', async () => {
    const res = ok(await h.call('recurring', { detail: 'full' }));
    const find = (group: string, name: string) => res[group].find((r: any) => r.payee_name === name);
    expect(find('incomes', PAY.name)).toMatchObject({
      cadence: 'monthly',
      amount: PAY.amount,
      annual: PAY.amount * 12,
      next_date: monthly(PAY.day, today, until)[0],
    });
    expect(find('bills', GYM.name)).toMatchObject({
      cadence: 'monthly',
      amount: -GYM.amount,
      annual: -GYM.amount * 12,
      last_date: pastDates(GYM.day, 1)[0],
    });
    expect(find('subscriptions', STREAM.name)).toMatchObject({
      cadence: 'monthly',
      amount: -STREAM.raised,
      annual: -STREAM.raised * 12,
      price_change: { old: -STREAM.amount, new: -STREAM.raised, date: pastDates(STREAM.day, 1)[0] },
    });
    for (const g of ['subscriptions', 'bills', 'incomes']) expect(res.totals[g].per_year, g).toBe(res[g].reduce((s: number, r: any) => s + r.annual, 0));
    const compact = await h.call('recurring', {});
    expect(Buffer.byteLength(compact.content[0].text, 'utf8')).toBeLessThanOrEqual(2048);
  });
});
