/**
 * upcoming by account (issue 58 item 8: "what goes out on the Visa next month" meant adding up
 * rows): per-account totals of the whole window, and an account filter, on three seeds and two
 * dates (the middle of a month and the first of one), computed from the API's scheduled
 * transactions with the tests' own expansion of each schedule (./occurrences.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { occurrences } from './occurrences.js';
import { raw, shiftMonth, usd, type Raw } from './raw.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('upcoming by account, seed %s on %s', (seed, date) => {
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

  /** Each account's count, inflow and outflow of the window's occurrences (budget accounts unless `only`). */
  const expected = (from: string, to: string, only?: string, full = true) => {
    const out: Record<string, { count: number; inflow: number; outflow: number }> = {};
    for (const s of r.scheduled) {
      const a = r.account.get(s.account_id);
      if (only ? a?.name !== only : !a?.on_budget) continue;
      const n = occurrences(s, from, to).length;
      if (!n) continue;
      const row = (out[a.name] ??= { count: 0, inflow: 0, outflow: 0 });
      row.count += n;
      if (s.amount > 0) row.inflow += n * s.amount;
      else row.outflow += n * s.amount;
    }
    return Object.fromEntries(
      Object.entries(out).map(([k, v]) => [
        k,
        { ...(full ? { count: v.count, inflow: v.inflow, inflow_formatted: usd(v.inflow) } : {}), outflow: v.outflow, outflow_formatted: usd(v.outflow) },
      ]),
    );
  };

  it('gives each account its outflow over the whole window, and its count and inflow in full detail', async () => {
    const want = expected(date, addDays(date, 30), undefined, false);
    expect(Object.keys(want).length).toBeGreaterThan(1);
    expect(ok(await h.call('upcoming', {})).by_account).toEqual(want);
    expect(ok(await h.call('upcoming', { detail: 'full' })).by_account).toEqual(expected(date, addDays(date, 30)));
  });

  it('takes an account: only its occurrences, with its totals', async () => {
    const visa = r.accounts.find((a: any) => a.type === 'creditCard' && !a.closed && r.scheduled.some((s: any) => s.account_id === a.id));
    const to = addDays(date, 60);
    const res = ok(await h.call('upcoming', { account_id: visa.name, to, detail: 'full', limit: 100 }));
    const want = expected(date, to, visa.name);
    expect(res.by_account).toEqual(want);
    expect(res.count).toBe((want[visa.name]?.count as number) ?? 0);
    expect(res.occurrences.every((o: any) => o.account_name === visa.name)).toBe(true);
    expect(res.outflow).toBe(want[visa.name]?.outflow ?? 0);
  });
});
