/**
 * recurring when nothing qualifies says why (issue 42 item 5), on a real case built through the
 * sandbox's API: the demo budget of three seeds with every scheduled transaction deleted (YNAB's
 * DELETE), then the clock moved on so that its history ended long before today (the sandbox and
 * the server share one process, so a faked Date moves both; the sandbox adds nothing as time
 * passes, as a budget nobody uses). Today is, in turn, the middle and the first of a month.
 *
 * The explanation is computed here from the API's raw transactions: the latest date of any
 * transaction in an on-budget account, and today. The lists and totals must be empty, the
 * compact answer within 2 KB.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, todayUtc } from './raw.js';

const DAY = 86_400_000;
/** How long the budget has lain unused: past 1.5 intervals of every cadence the demo's history repeats at 3+ times. */
const UNUSED_DAYS = 400;
const TODAYS = ['2026-11-16T12:00:00Z', '2026-12-01T12:00:00Z'];
const CASES = [1, 2, 3].flatMap((seed) => TODAYS.map((now) => ({ seed, now })));

describe.each(CASES)('seed $seed, unused until $now', ({ seed, now }) => {
  let h: McpHarness;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(now) - UNUSED_DAYS * DAY });
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
  });
  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  it('answers with nothing, and why: no schedule, and the latest transaction against the staleness rule', async () => {
    const before = await raw(h.sb);
    expect(before.scheduled.length).toBeGreaterThan(0);
    for (const s of before.scheduled) {
      const res = await h.sb.call('DELETE', `${before.b}/scheduled_transactions/${s.id}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    vi.setSystemTime(Date.parse(now));
    const today = todayUtc();
    const r = await raw(h.sb);
    expect(r.scheduled).toEqual([]);
    const latest = r.transactions
      .filter((t) => r.account.get(t.account_id)?.on_budget)
      .map((t) => t.date as string)
      .sort()
      .at(-1);
    expect(latest! < today).toBe(true);

    for (const detail of ['compact', 'full']) {
      const res = await h.call('recurring', { detail });
      expect(Buffer.byteLength(res.content[0].text, 'utf8')).toBeLessThanOrEqual(detail === 'full' ? 4096 : 2048);
      const a = ok(res);
      expect(a.none_because).toBe(
        'No repeating scheduled transaction in an open on-budget account, and no payee charged 3+ times at a steady interval that is still going: ' +
          `latest transaction ${latest}; a series is stale once its latest is more than 1.5 intervals before today (${today}).`,
      );
      for (const g of ['subscriptions', 'bills', 'income']) expect(a.totals[g]).toMatchObject({ count: 0, per_month_milliunits: 0 });
    }
  });
});
