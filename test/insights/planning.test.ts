/**
 * recurring, forecast and upcoming (issue 42 items 5, 6 and 12, issue 43 item 7) on the demo budget
 * of three seeds, each on two dates (mid-month and the first of a month: the server and the sandbox
 * share one process, so a faked Date moves both), through a real MCP client. Every expectation is
 * computed here from the API's raw answers: the scheduled transactions (expanded by
 * ./occurrences.ts), the transactions, the categories and their targets.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { occurrences } from './occurrences.js';
import { dollars, raw, todayUtc, usd } from './raw.js';

/** A compact recurring group's monthly amounts (given as text), in milliunits. */
const perMonth = (a: any, group: string): Record<string, number> =>
  Object.fromEntries(Object.entries(a[`${group}_per_month_formatted`] ?? {}).map(([k, v]) => [k, dollars(v as string)]));

const DATES = ['2026-03-16T12:00:00Z', '2026-04-01T12:00:00Z'];
const CASES = [1, 2, 3].flatMap((seed) => DATES.map((now) => ({ seed, now })));
const DAY = 86_400_000;
const shift = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
/** How many a year each frequency gives, and milliunits rounded to cents (half away from zero). */
const PER_YEAR: Record<string, number> = {
  daily: 365,
  weekly: 52,
  everyOtherWeek: 26,
  twiceAMonth: 24,
  every4Weeks: 13,
  monthly: 12,
  everyOtherMonth: 6,
  every3Months: 4,
  every4Months: 3,
  twiceAYear: 2,
  yearly: 1,
  everyOtherYear: 0.5,
};
const cents = (m: number) => Math.sign(m) * Math.round(Math.abs(m) / 10) * 10;
const bytes = (res: any) => Buffer.byteLength(res.content[0].text, 'utf8');
const SUBSCRIPTION = /subscri|streaming|membership/i;

describe.each(CASES)('seed $seed on $now', ({ seed, now }) => {
  let h: McpHarness;
  let today = '';
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(now) });
    h = await mcpHarness({ sandbox: { seed } });
    today = todayUtc();
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('recurring lists every repeating schedule with its monthly amount, adds the history, leaves coffee out, in 2 KB', async () => {
    const r = await raw(h.sb);
    const res = await h.call('recurring', {});
    expect(bytes(res)).toBeLessThanOrEqual(2048);
    const a = ok(res);
    // Shopping: 4+ purchases at one payee in 90 days at amounts varying by more than 20% (a schedule there too).
    const spent = new Map<string, number[]>();
    for (const t of r.transactions)
      if (t.amount < 0 && t.payee_id && !t.transfer_account_id && r.account.get(t.account_id)?.on_budget && t.date >= shift(today, -90) && t.date <= today)
        spent.set(t.payee_name, [...(spent.get(t.payee_name) ?? []), -t.amount]);
    const shops = [...spent].filter(([, v]) => v.length >= 4 && Math.max(...v) * 100 > Math.min(...v) * 120).map(([n]) => n);
    expect(shops).toContain('Blue Bottle Coffee');
    let checked = 0;
    for (const s of r.scheduled) {
      const account = r.account.get(s.account_id);
      if (s.frequency === 'never' || !account?.on_budget || account.closed) continue;
      if (s.transfer_account_id && r.account.get(s.transfer_account_id)?.on_budget) continue;
      const lines = (s.subtransactions ?? []).filter((x: any) => !x.deleted);
      const amount = s.amount || lines.reduce((t: number, x: any) => t + x.amount, 0);
      if (!amount) continue;
      const cats = lines.length ? lines.map((x: any) => x.category_id) : [s.category_id];
      const sub = cats.every((id: string) => {
        const c = r.category.get(id);
        return !!c && (SUBSCRIPTION.test(c.name) || SUBSCRIPTION.test(c.group.name));
      });
      const group = amount > 0 ? 'incomes' : sub ? 'subscriptions' : 'bills';
      if (amount < 0 && shops.includes(s.payee_name)) {
        expect(a.left_out, s.payee_name).toContain(s.payee_name);
        expect(perMonth(a, group)[s.payee_name], s.payee_name).toBeUndefined();
        continue;
      }
      const monthly = cents(cents(Math.abs(amount) * PER_YEAR[s.frequency]!) / 12);
      // A name two accounts share is written with its account.
      const rows = perMonth(a, group);
      const shown = rows[s.payee_name] ?? rows[`${s.payee_name} (${account.name})`];
      // A price rise the history shows after the schedule's amount is what comes next.
      if (a.price_rose?.includes(s.payee_name)) expect(shown, s.payee_name).toBeGreaterThan(monthly);
      else expect(shown, s.payee_name).toBe(monthly);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
    // The totals are the sums of the figures listed (nothing left out at this size).
    for (const g of ['subscriptions', 'bills', 'incomes']) {
      expect(a[`${g}_more`]).toBeUndefined();
      const values = Object.values(perMonth(a, g));
      expect(a.totals[g]).toMatchObject({ count: values.length, per_month: values.reduce((x, y) => x + y, 0) });
    }
    // History adds what is not scheduled: the Verizon bill is in no schedule.
    expect(r.scheduled.some((s) => s.payee_name === 'Verizon Wireless')).toBe(false);
    expect(perMonth(a, 'bills')['Verizon Wireless']).toBeGreaterThan(0);
    // Weekly coffee at varying amounts is shopping, not a bill.
    const coffee = r.transactions.filter((t) => t.payee_name === 'Blue Bottle Coffee' && t.date >= shift(today, -90));
    expect(coffee.length).toBeGreaterThanOrEqual(10);
    expect(perMonth(a, 'bills')['Blue Bottle Coffee']).toBeUndefined();
    expect(a.left_out).toContain('Blue Bottle Coffee');
  });

  it('a price that held for months and then came twice higher has risen, in recurring and needs_attention alike', async () => {
    const name = `Cloudbox ${seed}`;
    const plan: [number, number][] = [
      [-150, -9_990],
      [-120, -9_990],
      [-90, -9_990],
      [-60, -9_990],
      [-30, -11_990],
      [0, -11_990],
    ];
    ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        allow_new_payee: true,
        transactions: plan.map(([d, amount_milliunits]) => ({
          account_id: 'Visa Rewards',
          date: shift(today, d),
          amount_milliunits,
          payee_name: name,
          category_id: 'Subscriptions',
          approved: true,
        })),
      }),
    );
    const r = await raw(h.sb);
    const mine = r.transactions.filter((t) => t.payee_name === name).sort((x, y) => (x.date < y.date ? -1 : 1));
    const old = mine.slice(0, 4).map((t) => t.amount);
    const usual = [...old].sort((x, y) => x - y)[1]! / 2 + [...old].sort((x, y) => x - y)[2]! / 2;
    const rec = ok(await h.call('recurring', {}));
    expect(rec.price_rose).toContain(name);
    expect(rec.subscriptions_per_month_formatted[name]).toBe(usd(-mine[5].amount));
    const att = ok(await h.call('needs_attention', { kind: 'price_increase', detail: 'full' })).attention[0];
    expect(att.examples.find((e: any) => e.name === name)).toMatchObject({ old: -usual, new: -mine[5].amount, date: mine[4].date });
  });

  it('upcoming splits money moved to budget accounts from money leaving the budget and states its window', async () => {
    const to = shift(today, 30);
    // A scheduled move to a budget account in the window: the demo's (its savings transfer at a
    // month's end, the next one after the month's made), or on days it falls beyond, one made here.
    const before = await raw(h.sb);
    const savings = before.accounts.find((a) => a.on_budget && a.type === 'savings' && !a.closed && !a.deleted);
    if (!before.scheduled.some((s) => s.transfer_account_id && before.account.get(s.transfer_account_id)?.on_budget && occurrences(s, today, to).length))
      ok(
        await h.call('create_scheduled_transaction', {
          account_id: 'Everyday Checking',
          date: shift(today, 10),
          amount: -75,
          payee_id: savings.transfer_payee_id,
          frequency: 'monthly',
        }),
      );
    const r = await raw(h.sb);
    const res = ok(await h.call('upcoming', { detail: 'full', limit: 100 }));
    expect(res.window).toEqual({ first_day: today, last_day: to });
    const credit = new Set(['creditCard', 'lineOfCredit']);
    let kept = 0;
    let leaving = 0;
    for (const s of r.scheduled) {
      if (!r.account.get(s.account_id)?.on_budget || s.amount >= 0) continue;
      const n = occurrences(s, today, to).length;
      const other = s.transfer_account_id ? r.account.get(s.transfer_account_id) : undefined;
      if (other?.on_budget && !credit.has(other.type)) kept += n * s.amount;
      else leaving += n * s.amount;
    }
    expect(kept).toBeLessThan(0);
    expect(res).toMatchObject({ outflow_to_budget_accounts: kept, outflow_leaving_budget: leaving, outflow: kept + leaving });
  });

  it('forecast with assigned spending keeps savings targets in the bank; its lowest point at a day end is one of its days', async () => {
    const r = await raw(h.sb);
    const savings = r.categories.filter(
      (c) => c.goal_type === 'TB' || c.goal_type === 'TBD' || (c.goal_type === 'NEED' && (c.goal_target_date ?? c.goal_target_month ?? '') > today),
    );
    const month = await r.month(`${today.slice(0, 7)}-01`);
    const funded = savings.filter((c) => {
      const m = month.categories.find((x: any) => x.id === c.id);
      return m && m.budgeted + m.activity > 0;
    });
    expect(funded.length).toBeGreaterThan(0);
    const res = ok(await h.call('forecast', { include: ['scheduled', 'recurring', 'assigned'], months: 1, detail: 'full' }));
    const assigned = res.moves.filter((m: any) => m.source === 'assigned').map((m: any) => m.name);
    expect(assigned.length).toBeGreaterThan(0);
    for (const c of savings) expect(assigned).not.toContain(`assigned: ${c.name}`);
    // Plain `lowest` is the day-end low, a person's "lowest balance" (issue 58 item 5): the first
    // day whose end is least; the within-day low, a day's outflows before its inflows, is named so.
    const ends = [{ date: today, balance: res.balance_today }, ...res.days];
    const least = Math.min(...ends.map((d: any) => d.balance));
    expect(res.lowest).toEqual({ date: ends.find((d: any) => d.balance === least)!.date, balance: least, balance_formatted: usd(least) });
    expect(res).not.toHaveProperty('lowest_at_day_end');
    if (res.lowest_within_day) expect(res.lowest_within_day.balance).toBeLessThan(least);
    // A month's `low` is at a day's end too: the least of the month's day ends and the balance it opened with.
    for (const [i, m] of res.months.entries()) {
      const opened = i ? res.months[i - 1].end : res.balance_today;
      const inMonth = ends.filter((d: any) => d.date.slice(0, 7) === m.month.slice(0, 7) && d.date > today).map((d: any) => d.balance);
      if (res.days.length < 60) expect(m.low, m.month).toBe(Math.min(opened, ...inMonth));
    }
    const compact = await h.call('forecast', { include: ['scheduled', 'recurring', 'assigned'] });
    expect(bytes(compact)).toBeLessThanOrEqual(2048);
    expect(ok(compact).largest_moves.length).toBeGreaterThan(0);
  });

  it('overdue occurrences: forecast counts them today and says how many and their total; upcoming answers a past window as what was due', async () => {
    const start = today;
    ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Everyday Checking',
        date: shift(start, 1),
        amount_milliunits: -80_000,
        payee_name: `Overdue Plumber ${seed}`,
        frequency: 'never',
        allow_new_payee: true,
      }),
    );
    vi.setSystemTime(Date.parse(now) + 3 * DAY);
    const later = todayUtc();
    const r = await raw(h.sb);
    const late = r.scheduled
      .filter((s) => s.date_next < later && r.account.get(s.account_id)?.on_budget)
      .flatMap((s) => occurrences(s, s.date_next, shift(later, -1)).map((date) => ({ date, s })));
    expect(late.some((o) => o.s.payee_name === `Overdue Plumber ${seed}`)).toBe(true);
    const up = ok(await h.call('upcoming', { from: start, to: shift(later, -1), detail: 'full', limit: 100 }));
    expect(up.window).toEqual({ first_day: start, last_day: shift(later, -1) });
    expect(up.count).toBe(0);
    expect(up.overdue_count).toBe(late.length);
    const amounts = late.map((o) => o.s.amount);
    expect(up.overdue_inflow).toBe(amounts.filter((x) => x > 0).reduce((x, y) => x + y, 0));
    expect(up.overdue_outflow).toBe(amounts.filter((x) => x < 0).reduce((x, y) => x + y, 0));

    const checking = r.accounts.find((a) => a.name === 'Everyday Checking');
    const mine = late.filter((o) => o.s.account_id === checking.id || o.s.transfer_account_id === checking.id);
    const total = mine.reduce((t, o) => t + (o.s.account_id === checking.id ? o.s.amount : -o.s.amount), 0);
    const fc = ok(await h.call('forecast', { account_id: 'Everyday Checking', detail: 'full' }));
    const said = fc.assumptions.find((x: any) => typeof x === 'string' && x.startsWith('Overdue scheduled'));
    expect(said).toContain(`Overdue scheduled: ${mine.length} past their date and not entered (${usd(total)}), counted today`);
    const due = fc.moves.filter((m: any) => m.due);
    expect(due.every((m: any) => m.date === later)).toBe(true);
    expect(due.reduce((t: number, m: any) => t + m.amount, 0)).toBe(total);
  });
});
