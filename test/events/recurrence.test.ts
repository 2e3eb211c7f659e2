/**
 * The event types that events-http.test.ts and types.test.ts do not take round a whole cycle: a
 * card whose payment falls short, a subscription whose price rises, the weekly digest and an
 * account due for reconciling each fire exactly once, nothing while they hold, nothing when they
 * clear, and once more (a new eventId) when they come back. Changes go through the sandbox's API
 * as a user's would (a purchase on the card, a charge at a new price, a bank's correction); the
 * reconciliation, which the API cannot do, through the sandbox's own store, as the app does. The
 * digest and the reconcile window are about time: that server runs on a clock the test moves.
 * Every expected figure is read from the API's raw data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payloadOf } from '../../src/events/catalog.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { assign, budgetFacts, endpoint, lasting, poll, spend, type Endpoint, type PollAnswer } from './helpers.js';
import { apiQueue, apiSpending, cardFacts, charge, isoWeekOf, reconcileInApp, setDigest } from './recurrence-helpers.js';

const DAY = 86_400_000;
let sb: TestSandbox;
let keep: ReturnType<typeof lasting>;
let ep: Endpoint;
/** The clock of the second server (digest, reconcile window). */
let clock = Date.now();
let timed: Endpoint;
let keepTimed: ReturnType<typeof lasting>;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
  keep = lasting();
  keepTimed = lasting();
  ep = await endpoint(sb, keep, {});
  timed = await endpoint(sb, keepTimed, { now: () => clock }, undefined, { toolsets: 'all' });
});

afterAll(async () => {
  await ep?.close();
  await timed?.close();
  await sb?.close();
  keep?.remove();
  keepTimed?.remove();
});

/** Every payload is what events/list's payloadSchema says, and within 2 KB. */
function conforms(p: PollAnswer): void {
  for (const e of p.events) {
    expect(
      payloadOf(e.name as never)
        .strict()
        .safeParse(e.data).error,
    ).toBeUndefined();
    expect(Buffer.byteLength(JSON.stringify(e.data))).toBeLessThanOrEqual(2048);
  }
}

const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

describe('each event type fires once, and again when it recurs', () => {
  it('card.payment_short: a purchase on the card beyond its category, covered, then again', async () => {
    const facts = await budgetFacts(sb);
    const card = await cardFacts(sb, facts.id);
    // Cover what the card owes first, so nothing is open for it when the test starts.
    if (card.shortfall > 0) await assign(sb, facts.id, card.payment.id, card.payment.budgeted + card.shortfall);
    expect((await cardFacts(sb, facts.id)).shortfall).toBeLessThanOrEqual(0);
    const c0 = await poll(ep.client, 'card.payment_short', null);
    const mine = (p: PollAnswer) => p.events.filter((e) => e.data.account_id === card.account.id);

    // A category with nothing spent this month, on the card, 20.00 beyond what it holds.
    const category = facts.categories.find((c) => c.activity === 0 && c.balance >= 0)!;
    await spend(sb, facts.id, { account_id: card.account.id, category_id: category.id, amount: -(category.balance + 20_000) });
    const short = (await cardFacts(sb, facts.id)).shortfall;
    expect(short).toBe(20_000);
    const first = await poll(ep.client, 'card.payment_short', c0.cursor);
    expect(mine(first)).toHaveLength(1);
    expect(mine(first)[0]!.data).toMatchObject({ account_id: card.account.id, account: card.account.name, amount: short });
    expect(mine(await poll(ep.client, 'card.payment_short', first.cursor))).toEqual([]);

    // Covered: the payment category given what the card owes. It clears and fires nothing.
    const now = await cardFacts(sb, facts.id);
    await assign(sb, facts.id, now.payment.id, now.payment.budgeted + now.shortfall);
    expect((await cardFacts(sb, facts.id)).shortfall).toBe(0);
    const cleared = await poll(ep.client, 'card.payment_short', first.cursor);
    expect(mine(cleared)).toEqual([]);

    // Another 7.00 on the card in the overspent category: short again, a new occurrence.
    await spend(sb, facts.id, { account_id: card.account.id, category_id: category.id, amount: -7_000 });
    const again = await poll(ep.client, 'card.payment_short', cleared.cursor);
    expect(mine(again)).toHaveLength(1);
    expect(mine(again)[0]!.data.amount).toBe((await cardFacts(sb, facts.id)).shortfall);
    conforms(first);
    conforms(again);
    expect(mine(again)[0]!.eventId).not.toBe(mine(first)[0]!.eventId);
  });

  it('price.increased: a steady subscription charged more, corrected by the bank, then charged more again', async () => {
    const facts = await budgetFacts(sb);
    const c0 = await poll(ep.client, 'price.increased', null);
    const category = facts.categories[1]!;
    const at = (offset: number, amount: number) => charge(sb, facts.id, { account_id: facts.checking.id, category_id: category.id, date: day(offset), amount });
    // Four months at 15.99, then 17.99: 12.5 % more.
    for (const offset of [-150, -120, -90, -60]) await at(offset, -15_990);
    const rise = await at(-30, -17_990);
    const mine = (p: PollAnswer) => p.events.filter((e) => e.data.payee_id === rise.payee_id);
    const first = await poll(ep.client, 'price.increased', c0.cursor);
    expect(mine(first)).toHaveLength(1);
    expect(mine(first)[0]!.data).toMatchObject({ payee: 'Streamly Recurrence', date: day(-30), old: 15_990, amount: 17_990 });
    expect(mine(await poll(ep.client, 'price.increased', first.cursor))).toEqual([]);

    // The bank corrects the charge back to 15.99: no rise any more.
    const fix = await sb.call('PUT', `/budgets/${facts.id}/transactions/${rise.id}`, { transaction: { amount: -15_990 } });
    expect(fix.status).toBe(200);
    const cleared = await poll(ep.client, 'price.increased', first.cursor);
    expect(mine(cleared)).toEqual([]);

    // This month's charge is 18.99: a rise again, from today.
    await at(0, -18_990);
    const again = await poll(ep.client, 'price.increased', cleared.cursor);
    expect(mine(again)).toHaveLength(1);
    expect(mine(again)[0]!.data).toMatchObject({ date: day(0), old: 15_990, amount: 18_990 });
    conforms(first);
    conforms(again);
    expect(mine(again)[0]!.eventId).not.toBe(mine(first)[0]!.eventId);
  });

  it("digest.weekly: once at the subscriber's day and hour, nothing more that week, once again the next week", async () => {
    const facts = await budgetFacts(sb);
    const base = Date.parse(`${day(0)}T00:00:00Z`);
    const weekday = ((new Date(base).getUTCDay() + 6) % 7) + 1;
    clock = base + 6 * 3_600_000; // 06:00 UTC, before the digest's hour
    await setDigest(timed.client, { digest_day: weekday, digest_hour: 12, time_zone: 'UTC' });
    const c0 = await poll(timed.client, 'digest.weekly', null);

    clock = base + 13 * 3_600_000;
    const first = await poll(timed.client, 'digest.weekly', c0.cursor);
    expect(first.events).toHaveLength(1);
    const today = day(0);
    const since = new Date(base - 7 * DAY).toISOString().slice(0, 10);
    const until = new Date(base - DAY).toISOString().slice(0, 10);
    const weeks = await apiSpending(sb, facts.id, since, 9);
    const sorted = weeks.slice(1).sort((a, b) => a - b);
    expect(first.events[0]!.data).toMatchObject({
      week: isoWeekOf(today),
      since,
      until,
      spending: weeks[0],
      spending_week_before: weeks[1],
      // The median of eight whole-cent figures: the mean of the middle two, to the cent (half away from zero).
      spending_usual: Math.sign(sorted[3]! + sorted[4]!) * Math.round(Math.abs(sorted[3]! + sorted[4]!) / 20) * 10,
      usual_weeks: 8,
    });
    expect(first.events[0]!.data.queue_size).toBe(await apiQueue(sb, facts.id));
    const open = first.events[0]!.data.open as Record<string, number>;
    expect(Object.keys(open).every((n) => n !== 'digest.weekly' && Number.isInteger(open[n]) && open[n]! > 0)).toBe(true);

    // Later that day and the next: the same week's digest is open, nothing fires.
    clock = base + DAY + 10 * 3_600_000;
    const quiet = await poll(timed.client, 'digest.weekly', first.cursor);
    expect(quiet.events).toEqual([]);
    // The next week, before the hour: nothing; at the hour: the next digest.
    clock = base + 7 * DAY + 6 * 3_600_000;
    expect((await poll(timed.client, 'digest.weekly', quiet.cursor)).events).toEqual([]);
    clock = base + 7 * DAY + 13 * 3_600_000;
    const next = await poll(timed.client, 'digest.weekly', quiet.cursor);
    expect(next.events).toHaveLength(1);
    expect(next.events[0]!.data.week).toBe(isoWeekOf(new Date(base + 7 * DAY).toISOString().slice(0, 10)));
    expect(next.events[0]!.data.spending).toBe((await apiSpending(sb, facts.id, today, 1))[0]);
    expect(next.events[0]!.eventId).not.toBe(first.events[0]!.eventId);
    conforms(first);
    conforms(next);
  });

  it('account.reconcile_due: reconciled in the app it clears; thirty days on it is due again', async () => {
    clock = Date.now();
    const facts = await budgetFacts(sb);
    const c0 = await poll(timed.client, 'account.reconcile_due', null);
    const [epoch] = c0.cursor.split('.');
    const open = await poll(timed.client, 'account.reconcile_due', `${epoch}.0`);
    const stale = open.events.find((e) => e.data.account_id === facts.checking.id) ?? open.events[0]!;
    expect(stale).toBeDefined();
    const accountId = stale.data.account_id as string;

    reconcileInApp(sb, facts.id, accountId, new Date(clock));
    const cleared = await poll(timed.client, 'account.reconcile_due', c0.cursor);
    expect(cleared.events.filter((e) => e.data.account_id === accountId)).toEqual([]);
    // Twenty-nine days on: not yet.
    clock += 29 * DAY;
    const early = await poll(timed.client, 'account.reconcile_due', cleared.cursor);
    expect(early.events.filter((e) => e.data.account_id === accountId)).toEqual([]);
    // Thirty-one days on: due again, since the reconciliation the app recorded.
    clock += 2 * DAY;
    const again = await poll(timed.client, 'account.reconcile_due', early.cursor);
    const mine = again.events.filter((e) => e.data.account_id === accountId);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.data.last_reconciled_on).toBe(day(0));
    expect(mine[0]!.eventId).not.toBe(stale.eventId);
    conforms(again);
  });
});
