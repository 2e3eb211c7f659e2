/**
 * spending_summary's averages and comparisons (issue 43 item 6), through a real MCP client against
 * the sandbox, every figure counted again here from the API's own transactions (raw.ts): a range
 * of months gives its average month, every month counted (one with nothing spent as zero); a
 * period compares with the average month of the N months before it; a comparison that reaches
 * before the budget's first month says so; a year to date compares with the same dates a year
 * earlier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { activityLines, categoryOf, lastDay, raw, shiftMonth, sumsOf, thisMonth, todayUtc, usd, type Raw } from './raw.js';

let h: McpHarness;
let r: Raw;

beforeAll(async () => {
  h = await mcpHarness();
  r = await raw(h.sb);
});
afterAll(() => h.close());

/** milliunits / n, rounded half away from zero to whole cents, in BigInt (no float on the way). */
function centsAverage(milliunits: number, n: number): number {
  const a = BigInt(Math.abs(milliunits));
  const d = BigInt(n) * 10n;
  const q = (2n * a + d) / (2n * d);
  return Number(q) * 10 * (milliunits < 0 ? -1 : 1);
}

describe('spending_summary averages', () => {
  it('a range of months gives its average month, counting every month of the range', async () => {
    const first = shiftMonth(thisMonth(), -6);
    const until = lastDay(shiftMonth(thisMonth(), -1));
    const res = ok(await h.call('spending_summary', { since_date: first, until_date: until, group_by: 'month' }));
    const net = sumsOf(activityLines(r, first, until)).net;
    expect(res.totals.net).toBe(net);
    expect(res.totals.months).toBe(6);
    expect(res.totals.average_month_net).toBe(centsAverage(net, 6));
    expect(res.totals.average_month_net_formatted).toBe(usd(centsAverage(net, 6)));
    expect(Math.abs(res.totals.average_month_net) % 10).toBe(0);
  });

  it('a month with nothing spent counts as zero: the average divides by the months of the range, not the rows', async () => {
    // A payee that bought in fewer months than the range has: its months with nothing are not rows.
    const since = shiftMonth(thisMonth(), -12);
    const until = lastDay(shiftMonth(thisMonth(), -1));
    const lines = activityLines(r, since, until);
    const monthsByPayee = new Map<string, Set<string>>();
    for (const l of lines) {
      const p = l.t.payee_id as string | null;
      if (!p) continue;
      if (!monthsByPayee.has(p)) monthsByPayee.set(p, new Set());
      monthsByPayee.get(p)!.add(l.t.date.slice(0, 7));
    }
    const [payee, months] = [...monthsByPayee.entries()].find(([, m]) => m.size >= 2 && m.size <= 8)!;
    const name = r.payees.find((p) => p.id === payee)!.name;
    const res = ok(await h.call('spending_summary', { since_date: since, until_date: until, group_by: 'month', payee_id: payee }));
    const net = sumsOf(lines.filter((l) => l.t.payee_id === payee)).net;
    expect(res.rows.length, name).toBe(months.size);
    expect(res.totals.months).toBe(12);
    expect(res.totals.average_month_net).toBe(centsAverage(net, 12));
  });

  it('compares a month with the average month of the N months before it, by category and in total', async () => {
    const month = shiftMonth(thisMonth(), -1);
    const base = activityLines(r, shiftMonth(month, -3), lastDay(shiftMonth(month, -1)));
    const res = ok(await h.call('spending_summary', { month, compare_months: 3, top: 50 }));
    expect(res.compared_with).toEqual({ since: shiftMonth(month, -3), until: lastDay(shiftMonth(month, -1)), months: 3, as: 'the average month' });
    expect(res.previous_period).toBeUndefined();
    expect(res.totals.average_month_net).toBe(centsAverage(sumsOf(base).net, 3));
    const byName = new Map<string, number>();
    for (const l of base) {
      const c = categoryOf(r, l);
      const n = c ? (r.category.get(c)?.name ?? 'Uncategorized') : 'Uncategorized';
      byName.set(n, (byName.get(n) ?? 0) + l.amount);
    }
    const named = res.rows.filter((x: any) => x.name !== 'everything else');
    expect(named.length).toBeGreaterThan(3);
    for (const row of named) expect(row.average_month_net, row.name).toBe(centsAverage(byName.get(row.name) ?? 0, 3));
  });
});

describe('spending_summary comparisons', () => {
  it("says when the previous period is before the budget's first month", async () => {
    const first = r.budget.first_month as string;
    const res = await h.call('spending_summary', { month: first });
    const text = JSON.stringify(res.structuredContent);
    expect(text).toContain(`before the budget's first month, ${first}`);
    const later = ok(await h.call('spending_summary', { month: shiftMonth(first, 2) }));
    expect(JSON.stringify(later)).not.toContain("before the budget's first month");
  });

  it('a year to date compares with the same dates a year earlier', async () => {
    // January 1 to March 15 of the latest year that has reached March 15.
    const today = todayUtc();
    const year = Number(today.slice(0, 4)) - (today.slice(5) >= '03-15' ? 0 : 1);
    const [since, until] = [`${year}-01-01`, `${year}-03-15`];
    const res = ok(await h.call('spending_summary', { since_date: since, until_date: until }));
    const earlier = [`${year - 1}-01-01`, `${year - 1}-03-15`] as const;
    expect(res.previous_period).toEqual({ since: earlier[0], until: earlier[1] });
    expect(res.totals.net).toBe(sumsOf(activityLines(r, since, until)).net);
    expect(res.totals.previous_net).toBe(sumsOf(activityLines(r, ...earlier)).net);
  });
});
