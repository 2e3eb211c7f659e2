/**
 * list_months lists the newest month first (issue 58 item 8: last month was on the second page),
 * on three seeds and two dates (the middle of a month and the first of one), checked against the
 * API's own list of months: the same months, newest first, paged from there, each with the API's
 * figures.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, type Raw } from '../insights/raw.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('list_months, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('gives the newest month first, last month on the first page, each with the API figures', async () => {
    const newest = r.months.filter((m: any) => !m.deleted).sort((a: any, b: any) => (a.month < b.month ? 1 : -1));
    const last = shiftMonth(`${date.slice(0, 7)}-01`, -1);
    const page = ok(await h.call('list_months', { limit: 3, detail: 'full' }));
    expect(page.months.map((m: any) => m.month)).toEqual(newest.slice(0, 3).map((m: any) => m.month));
    expect(newest.slice(0, 3).map((m: any) => m.month)).toContain(last);
    for (const [i, m] of page.months.entries()) expect([m.income, m.budgeted, m.activity]).toEqual([newest[i].income, newest[i].budgeted, newest[i].activity]);
    const next = ok(await h.call('list_months', { limit: 3, detail: 'full', cursor: page.next_cursor }));
    expect(next.months.map((m: any) => m.month)).toEqual(newest.slice(3, 6).map((m: any) => m.month));
  });
});
