/**
 * The event types against the sandbox's raw data: what is open at first (the alerts tool's first
 * answer) is what the API's own figures say for reconciling and targets, and a bill scheduled
 * beyond what its account holds fires bill.uncovered and forecast.below_zero exactly once each,
 * with the figures the API gives; each clears when its cause goes and fires once more when it
 * comes back (a target funded then unfunded, the bill made small then big again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { assign, budgetFacts, endpoint, lasting, poll, type Endpoint } from './helpers.js';
import { request } from './helpers.js';

let sb: TestSandbox;
let keep: ReturnType<typeof lasting>;
let ep: Endpoint;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  keep = lasting();
  ep = await endpoint(sb, keep, {});
});

afterAll(async () => {
  await ep?.close();
  await sb?.close();
  keep?.remove();
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * The account's balance as the raw API's schedules carry it up to an outflow of `amount` on `date`:
 * every occurrence from today until the day before, and on the day those that come first (a day's
 * outflows before its inflows, the largest first: as the forecast counts a day), transfers into it
 * counted too. No `amount`: up to the day. The window is a few days, shorter than any frequency
 * but daily, so a schedule's next date is its one occurrence in it, or each day of it for a daily one.
 */
async function projectedBefore(budgetId: string, accountId: string, date: string, amount = -Infinity): Promise<number> {
  const account = (await sb.get(`/budgets/${budgetId}/accounts/${accountId}`)).body.data.account;
  const schedules = (await sb.get(`/budgets/${budgetId}/scheduled_transactions`)).body.data.scheduled_transactions as any[];
  let balance = account.balance as number;
  for (const s of schedules.filter((x) => !x.deleted)) {
    let times = 0;
    for (let d = s.date_next as string; d <= date; d = new Date(Date.parse(d) + 86_400_000).toISOString().slice(0, 10)) {
      if (d >= day(0) && (d < date || s.amount < amount)) times++;
      if (s.frequency !== 'daily') break;
    }
    const lines = (s.subtransactions ?? []).filter((x: any) => !x.deleted && x.transfer_account_id === accountId);
    const effect =
      (s.account_id === accountId ? s.amount : 0) - (s.transfer_account_id === accountId ? s.amount : 0) - lines.reduce((n: number, x: any) => n + x.amount, 0);
    balance += effect * times;
  }
  return balance;
}

describe('event types from the budget', () => {
  it('open reconcile and target alerts are what the API says', async () => {
    const facts = await budgetFacts(sb);
    const txns = (await sb.get(`/budgets/${facts.id}/transactions`)).body.data.transactions as any[];
    const used = new Set(txns.filter((t) => !t.deleted).map((t) => t.account_id));
    const stale = facts.accounts
      .filter((a) => !a.closed && !a.deleted && a.on_budget && used.has(a.id) && (!a.last_reconciled_at || a.last_reconciled_at.slice(0, 10) < day(-30)))
      .map((a) => a.id)
      .sort();
    // Every visible category of the month with a target short, credit card payments included.
    const month = (await sb.get(`/budgets/${facts.id}/months/current`)).body.data.month.categories as any[];
    const short = month.filter((c) => !c.deleted && !c.hidden && (c.goal_under_funded ?? 0) > 0);
    const underfunded = short.map((c) => c.id).sort();
    const start = await poll(ep.client, 'account.reconcile_due', null);
    // The log now holds what is open: a replay of everything kept shows it, once per entity.
    const [epoch] = start.cursor.split('.');
    const all = await poll(ep.client, 'account.reconcile_due', `${epoch}.0`);
    expect(all.events.map((e) => e.data.account_id).sort()).toEqual(stale);
    const targets = await poll(ep.client, 'target.due_underfunded', `${epoch}.0`);
    expect(targets.events.map((e) => e.data.category_id).sort()).toEqual(underfunded);
    for (const e of targets.events) expect(e.data.amount).toBe(short.find((c) => c.id === e.data.category_id)!.goal_under_funded);

    // One target funded clears; assigned as before, it is short again and fires once more.
    const one = short[0]!;
    await assign(sb, facts.id, one.id, one.budgeted + one.goal_under_funded);
    const funded = await poll(ep.client, 'target.due_underfunded', targets.cursor);
    expect(funded.events).toEqual([]);
    await assign(sb, facts.id, one.id, one.budgeted);
    const again = await poll(ep.client, 'target.due_underfunded', funded.cursor);
    expect(again.events.map((e) => [e.data.category_id, e.data.amount])).toEqual([[one.id, one.goal_under_funded]]);
    expect(again.events[0]!.eventId).not.toBe(targets.events.find((e) => e.data.category_id === one.id)!.eventId);
  });

  it('a bill its account cannot cover fires bill.uncovered and forecast.below_zero once each', async () => {
    const facts = await budgetFacts(sb);
    const bills = await poll(ep.client, 'bill.uncovered', null);
    const lows = await poll(ep.client, 'forecast.below_zero', null);
    // A bill that leaves the account at least 250.00 short on its day, whatever the schedules before it bring or take;
    // how short exactly, from the raw API's schedules (those on its day that come before it count too).
    const bill = (await projectedBefore(facts.id, facts.checking.id, day(3))) + 250_000;
    const short = bill - (await projectedBefore(facts.id, facts.checking.id, day(3), -bill));
    expect(short).toBeGreaterThanOrEqual(250_000);
    const res = await sb.call('POST', `/budgets/${facts.id}/scheduled_transactions`, {
      scheduled_transaction: {
        account_id: facts.checking.id,
        date: day(3),
        frequency: 'never',
        amount: -bill,
        payee_name: 'Big Bill',
        category_id: facts.categories[0]!.id,
      },
    });
    expect(res.status).toBe(201);
    const scheduled = res.body.data.scheduled_transaction;
    const fired = await poll(ep.client, 'bill.uncovered', bills.cursor);
    const mine = fired.events.filter((e) => e.data.scheduled_transaction_id === scheduled.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.data).toMatchObject({ account_id: facts.checking.id, date: day(3), bill, payee: 'Big Bill', amount: short });
    const low = await poll(ep.client, 'forecast.below_zero', lows.cursor);
    expect(low.events.filter((e) => e.data.account_id === facts.checking.id)).toHaveLength(1);
    // Once: nothing more while it holds.
    expect((await poll(ep.client, 'bill.uncovered', fired.cursor)).events).toEqual([]);
    expect((await poll(ep.client, 'forecast.below_zero', low.cursor)).events).toEqual([]);
    // The bill turns out small: both clear. Then it is the big bill again: each fires once more.
    const path = `/budgets/${facts.id}/scheduled_transactions/${scheduled.id}`;
    expect((await sb.call('PUT', path, { scheduled_transaction: { account_id: facts.checking.id, date: day(3), amount: -1_000 } })).status).toBe(200);
    const billsClear = await poll(ep.client, 'bill.uncovered', fired.cursor);
    const lowsClear = await poll(ep.client, 'forecast.below_zero', low.cursor);
    expect(billsClear.events).toEqual([]);
    expect(lowsClear.events.filter((e) => e.data.account_id === facts.checking.id)).toEqual([]);
    expect((await sb.call('PUT', path, { scheduled_transaction: { account_id: facts.checking.id, date: day(3), amount: -bill } })).status).toBe(200);
    const billAgain = (await poll(ep.client, 'bill.uncovered', billsClear.cursor)).events.filter((e) => e.data.scheduled_transaction_id === scheduled.id);
    expect(billAgain).toHaveLength(1);
    expect(billAgain[0]!.eventId).not.toBe(mine[0]!.eventId);
    const lowAgain = (await poll(ep.client, 'forecast.below_zero', lowsClear.cursor)).events.filter((e) => e.data.account_id === facts.checking.id);
    expect(lowAgain).toHaveLength(1);
    // The types list still answers while this is open.
    expect((await request(ep.client, 'events/list')).events).toHaveLength(9);
  });
});
