/**
 * The current month's spending labelled as a partial month (issue 57, item 10), wherever it is set
 * beside a previous month: spending_summary's month and cash_flow's current month give
 * `month_so_far`, the days covered and the same days of the month before ("Nov 1–25 (partial):
 * $X; Oct 1–25: $Y"). On three seeds and two dates (the middle of a month and the first of one),
 * every figure recomputed here from the sandbox's raw API (raw.ts), not from the code under test.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { activityLines, raw, shiftMonth, sumsOf, usd, type Raw } from './raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
/** The middle of this month, and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'partial-month-a', 'partial-month-b'];
const SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Nov 1–15", "Dec 1": written here, from the dates. */
function days(month: string, last: number): string {
  const name = SHORT[Number(month.slice(5, 7)) - 1];
  return last === 1 ? `${name} 1` : `${name} 1–${last}`;
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('the month so far, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const current = `${date.slice(0, 7)}-01`;
  const before = shiftMonth(current, -1);
  const day = Number(date.slice(8));
  // The same days of the month before: as many, or all of it when it is shorter.
  const beforeLength = Number(new Date(Date.UTC(Number(before.slice(0, 4)), Number(before.slice(5, 7)), 0)).toISOString().slice(8, 10));
  const beforeUntil = `${before.slice(0, 8)}${String(Math.min(day, beforeLength)).padStart(2, '0')}`;
  /** On-budget activity's net over the dates (spending negative), from the raw transactions. */
  const net = (since: string, until: string) => sumsOf(activityLines(r, since, until)).net;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('spending_summary of the current month: its days so far beside the same days of the month before', async () => {
    const x = net(current, date);
    const y = net(before, beforeUntil);
    const label = `${days(current, day)} (partial): ${usd(x)}; ${days(before, Math.min(day, beforeLength))}: ${usd(y)}`;
    const compact = ok(await h.call('spending_summary', {}));
    expect(compact.month_so_far).toEqual({ label });
    // The whole previous month is still what previous_net compares with, and it says which dates.
    expect(compact.previous_period).toEqual({ since: before, until: beforeLastDay(before) });
    const full = ok(await h.call('spending_summary', { detail: 'full' }));
    expect(full.month_so_far).toEqual({
      label,
      since: current,
      through: date,
      days: day,
      net: x,
      net_formatted: usd(x),
      same_days_before: { since: before, until: beforeUntil },
      net_same_days_before: y,
      net_same_days_before_formatted: usd(y),
    });
    // A month gone by is whole: nothing partial to say.
    expect(ok(await h.call('spending_summary', { month: before })).month_so_far).toBeUndefined();
  });

  it('cash_flow: the current month apart, labelled partial, beside the same days of the month before', async () => {
    const x = -net(current, date);
    const y = -net(before, beforeUntil);
    const label = `${days(current, day)} (partial): ${usd(x)}; ${days(before, Math.min(day, beforeLength))}: ${usd(y)}`;
    expect(ok(await h.call('cash_flow', {})).month_so_far).toEqual({ label });
    expect(ok(await h.call('cash_flow', { complete_months_only: false })).month_so_far).toEqual({ label });
    expect(ok(await h.call('cash_flow', { detail: 'full' })).month_so_far).toMatchObject({
      label,
      days: day,
      spending: x,
      spending_formatted: usd(x),
      same_days_before: { since: before, until: beforeUntil },
      spending_same_days_before: y,
      spending_same_days_before_formatted: usd(y),
    });
  });
});

function beforeLastDay(month: string): string {
  return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
}
