/**
 * fund_targets names each category of its scope it leaves as it is, and why (issue 58 item 8):
 * with underfunded, "already funded" (a target that needs nothing more and nothing overspent) and
 * "no target" (nothing overspent either), on three seeds and two dates (the middle of a month and
 * the first of one), computed from the API's own month; with another option, the categories it
 * would set to what they hold already.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, type Raw } from '../insights/raw.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['fund-targets', 'test', 'cash-flow-a'];

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('fund_targets left_out, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  const month = `${date.slice(0, 7)}-01`;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  /** The visible categories of visible groups, not YNAB's own, as the month has them, in group order. */
  const inScope = async () => {
    const byId = new Map<string, any>((await r.month(month)).categories.map((c: any) => [c.id, c]));
    return r.groups
      .filter((g: any) => !g.deleted && !g.hidden)
      .flatMap((g: any) => g.categories.filter((c: any) => !c.deleted && !c.internal && !c.hidden))
      .map((c: any) => byId.get(c.id))
      .filter(Boolean);
  };

  it('underfunded names each category it leaves, already funded or without a target', async () => {
    const cats = await inScope();
    const need = (c: any) => Math.max(0, c.goal_under_funded ?? 0);
    const asks = (c: any) => need(c) + Math.max(0, -(c.balance + need(c)));
    const left = cats.filter((c: any) => asks(c) === 0);
    const expected: Record<string, string[]> = {};
    for (const c of left) (expected[c.goal_type ? 'already funded' : 'no target'] ??= []).push(c.name);
    const res = ok(await h.call('fund_targets', { option: 'underfunded' }));
    expect(res.left_out ?? {}).toEqual(expected);
    expect(Object.values(expected).flat().length).toBeGreaterThan(0);
  });

  it('reset_assigned names the categories that hold nothing assigned already', async () => {
    const cats = await inScope();
    const res = ok(await h.call('fund_targets', { option: 'reset_assigned' }));
    const zero = cats.filter((c: any) => c.budgeted === 0).map((c: any) => c.name);
    expect(res.left_out ?? {}).toEqual(zero.length ? { 'already as reset_assigned asks': zero } : {});
  });
});
