/**
 * forecast with assigned spending keeps money assigned to savings targets in the bank (issue 42
 * item 6): on the demo budget of three seeds and the newcomer's (seed "demo", as `serve --sandbox`
 * starts it), each on two dates (mid-month and the first of a month; the server and the sandbox
 * share one process, so a faked Date moves both), through a real MCP client.
 *
 * The figure is computed here from the API's raw month, apart from the code under test: what is
 * assigned and not yet spent this month in the categories whose target is a savings target (TB,
 * TBD, and NEED with a date after today). Then those targets are removed through the API (a
 * category's goal_target set to null, as YNAB's API allows), which makes the same money ordinary
 * spending: the forecast's lowest point to the month's end must fall by exactly that figure. So
 * before, it did not count that money as spent; and it is counted nowhere else.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { occurrences } from './occurrences.js';
import { raw, todayUtc } from './raw.js';

const DATES = ['2026-11-16T12:00:00Z', '2026-12-01T12:00:00Z'];
const CASES = ['demo', 1, 2, 3].flatMap((seed) => DATES.map((now) => ({ seed, now })));
const ARGS = { include: ['scheduled', 'recurring', 'assigned'], detail: 'full' };

/** The month's last day. */
function monthEnd(day: string): string {
  return new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)), 0)).toISOString().slice(0, 10);
}

describe.each(CASES)('seed $seed on $now', ({ seed, now }) => {
  let h: McpHarness;
  let today = '';
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(now) });
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
    today = todayUtc();
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it("the month's money assigned to savings targets is not counted as spent: removing the targets lowers the low point by exactly it", async () => {
    const r = await raw(h.sb);
    const month = await r.month(`${today.slice(0, 7)}-01`);
    const savings = r.categories.filter(
      (c) =>
        !c.deleted && (c.goal_type === 'TB' || c.goal_type === 'TBD' || (c.goal_type === 'NEED' && (c.goal_target_date ?? c.goal_target_month ?? '') > today)),
    );
    const until = monthEnd(today);
    // What scheduled occurrences of these categories take by the month's end: the rest is what stays in the bank.
    const takes = new Map<string, number>();
    for (const s of r.scheduled) {
      const n = occurrences(s, today, until).length;
      const lines = s.subtransactions?.some((x: any) => !x.deleted) ? s.subtransactions.filter((x: any) => !x.deleted) : [s];
      for (const x of lines) if (x.category_id && x.amount < 0) takes.set(x.category_id, (takes.get(x.category_id) ?? 0) - n * x.amount);
    }
    const kept = savings.map((c) => {
      const m = month.categories.find((x: any) => x.id === c.id);
      return Math.max(0, Math.max(0, m.budgeted + m.activity) - (takes.get(c.id) ?? 0));
    });
    const figure = kept.reduce((a, b) => a + b, 0);
    expect(figure).toBeGreaterThan(0);
    expect(figure % 10).toBe(0);

    const before = ok(await h.call('forecast', { ...ARGS, until_date: until }));
    const assigned = before.moves.filter((m: any) => m.source === 'assigned').map((m: any) => m.name);
    for (const c of savings) expect(assigned).not.toContain(`assigned: ${c.name}`);

    for (const c of savings) {
      const res = await h.sb.call('PATCH', `${r.b}/categories/${c.id}`, { category: { goal_target: null } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.category.goal_type).toBeNull();
    }
    const after = ok(await h.call('forecast', { ...ARGS, until_date: until }));
    expect(before.balance_today).toBe(after.balance_today);
    // The low within a day (a day's outflows first), named so since issue 58 item 5; `lowest`, at a day's end, when they are the same.
    const low = (f: any) => (f.lowest_within_day ?? f.lowest).balance;
    expect(low(before) - low(after)).toBe(figure);
  });
});
