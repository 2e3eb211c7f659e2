/**
 * Issue 57 item 1, in the weekly digest: an account opened with cash in the digest's week (through
 * the sandbox's API, as a user opening it in the app) is no money earned or spent there. On three
 * seeds and two dates (the account opened in the middle of a month and on the first of one, on the
 * sandbox's clock; the digest three days later on the server's), the digest's spending and the
 * week before are the weeks' activity read from the API's raw transactions (apiSpending in
 * ./recurrence-helpers.ts: on-budget lines, neither in Ready to Assign, where the opening balance
 * is, nor a transfer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { budgetFacts, endpoint, lasting, poll, type Endpoint } from './helpers.js';
import { apiSpending, setDigest } from './recurrence-helpers.js';

const DAY = 86_400_000;
// Both clocks are given, not a faked Date: the HTTP layer between the client and the server keeps the real one.
const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
/** The middle of this month and the first of the next, on the sandbox's clock and the server's. */
const DATES = [`${month0.slice(0, 8)}15`, new Date(Date.UTC(+month0.slice(0, 4), +month0.slice(5, 7), 1)).toISOString().slice(0, 10)];
/** The server's clock. */
let clock = Date.now();
const SEEDS = ['test', 'digest-a', 'digest-b'];
const OPENING = 777_770;

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('the digest, seed %s, an account opened on %s', (seed, date) => {
  let sb: TestSandbox;
  let keep: ReturnType<typeof lasting>;
  let ep: Endpoint;

  beforeAll(async () => {
    sb = await testSandbox({ seed, rateLimit: 100_000, clock: () => new Date(`${date}T12:00:00Z`) });
    keep = lasting();
    ep = await endpoint(sb, keep, { now: () => clock }, undefined, { toolsets: 'all' });
  });
  afterAll(async () => {
    await ep?.close();
    await sb?.close();
    keep?.remove();
  });

  it("leaves the opening balance out of the week's spending", async () => {
    const facts = await budgetFacts(sb);
    const made = await sb.call('POST', `/budgets/${facts.id}/accounts`, { account: { name: `Cash box ${seed}`, type: 'cash', balance: OPENING } });
    expect(made.status).toBe(201);
    const txns = (await sb.get(`/budgets/${facts.id}/transactions?since_date=${date}`)).body.data.transactions as any[];
    expect(txns.some((t) => t.payee_name === 'Starting Balance' && t.amount === OPENING && t.date === date)).toBe(true);
    // The digest three days on: its week (the seven days before) holds the day the account opened.
    const base = Date.parse(`${date}T00:00:00Z`) + 3 * DAY;
    const day = new Date(base).toISOString().slice(0, 10);
    const weekday = ((new Date(base).getUTCDay() + 6) % 7) + 1;
    clock = base + 6 * 3_600_000;
    await setDigest(ep.client, { digest_day: weekday, digest_hour: 12, time_zone: 'UTC' });
    const c0 = await poll(ep.client, 'digest.weekly', null);
    clock = base + 13 * 3_600_000;
    const fired = await poll(ep.client, 'digest.weekly', c0.cursor);
    expect(fired.events).toHaveLength(1);
    const since = new Date(base - 7 * DAY).toISOString().slice(0, 10);
    const data = fired.events[0]!.data;
    expect(data.since).toBe(since);
    expect(data.since <= date && date <= data.until).toBe(true);
    const weeks = await apiSpending(sb, facts.id, since, 2);
    expect(data.spending).toBe(weeks[0]);
    expect(data.spending_week_before).toBe(weeks[1]);
    expect(day > date).toBe(true);
  });
});
