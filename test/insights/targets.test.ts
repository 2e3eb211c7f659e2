/**
 * targets_summary through a real MCP client, checked against the API's own month: which
 * categories have targets (visible ones), YNAB's underfunded figure for each, the total against
 * Ready to Assign, and next month's estimate recomputed here from the goal fields with the rules
 * the tool states (this month funded, nothing more spent). The demo budget must have every goal
 * type, both NEED behaviours, cadences beyond monthly, and some targets underfunded now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth, usd, type Raw } from './raw.js';

let h: McpHarness;
let r: Raw;
let month: any;

beforeAll(async () => {
  h = await mcpHarness();
  r = await raw(h.sb);
  month = await r.month(thisMonth());
});
afterAll(() => h.close());

/** Months from a to b (first days), b − a. */
const monthsBetween = (a: string, b: string) => (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));
/** Spread amounts are asked in whole cents, rounded up. */
const ceilDiv = (a: number, b: number) => Math.ceil(a / (b * 10)) * 10;

/** The visible categories with a target, in the API's group order, with this month's figures. */
function targets(): any[] {
  const byId = new Map(month.categories.map((c: any) => [c.id, c]));
  return r.groups
    .filter((g: any) => !g.hidden && !g.deleted)
    .flatMap((g: any) =>
      g.categories.filter((c: any) => !c.hidden && !c.deleted && !c.internal).map((c: any) => ({ ...(byId.get(c.id) as any), group: g.name })),
    )
    .filter((c: any) => c.goal_type);
}

/** Every visible category Underfunded looks at this month, card payment categories in. */
function scopeAll(): any[] {
  const byId = new Map(month.categories.map((c: any) => [c.id, c]));
  return r.groups
    .filter((g: any) => !g.hidden && !g.deleted)
    .flatMap((g: any) => g.categories.filter((c: any) => !c.hidden && !c.deleted && !c.internal).map((c: any) => byId.get(c.id)));
}

/** The weekdays `day` in a month. */
function weekdays(m: string, day: number): number {
  let n = 0;
  for (let d = new Date(`${m}T00:00:00Z`); d.toISOString().slice(0, 7) === m.slice(0, 7); d = new Date(d.getTime() + 86_400_000))
    if (d.getUTCDay() === day) n++;
  return n;
}

/** Next month's ask, by the rules the tool states, written out again. */
function nextMonth(c: any): number {
  const next = shiftMonth(thisMonth(), 1);
  const T = c.goal_target;
  const carry = Math.max(0, c.balance + Math.max(0, c.goal_under_funded ?? 0));
  const lacks = Math.max(0, T - carry);
  const period =
    c.goal_cadence === 13
      ? 12
      : c.goal_cadence >= 3 && c.goal_cadence <= 12
        ? c.goal_cadence - 1
        : c.goal_cadence === 1
          ? (c.goal_cadence_frequency ?? 1)
          : null;
  const dated = (repeats: boolean) => {
    let due = `${c.goal_target_date.slice(0, 7)}-01`;
    let held = carry;
    if (due < next) {
      if (!repeats) return 0;
      held = Math.max(0, carry - T);
      // A dated NEED target that does not repeat asks what it lacks at once.
      if (!period) return Math.max(0, T - held);
      while (due < next) due = shiftMonth(due, period);
    }
    return ceilDiv(Math.max(0, T - held), monthsBetween(next, due) + 1);
  };
  if (c.goal_type === 'MF' || c.goal_type === 'DEBT') return T;
  if (c.goal_type === 'TB') return lacks;
  if (c.goal_type === 'TBD') return c.goal_target_date ? dated(false) : lacks;
  if (c.goal_cadence === 2) return T * weekdays(next, c.goal_day ?? 0);
  if (c.goal_target_date) return dated(true);
  return c.goal_needs_whole_amount === false ? lacks : T;
}

describe('targets_summary', () => {
  it('the demo has every goal type, both NEED behaviours, longer cadences, and targets underfunded now', () => {
    const all = targets();
    expect(new Set(all.map((c) => c.goal_type))).toEqual(new Set(['TB', 'TBD', 'MF', 'NEED', 'DEBT']));
    expect(new Set(all.filter((c) => c.goal_type === 'NEED').map((c) => c.goal_needs_whole_amount))).toEqual(new Set([true, false]));
    const cadences = new Set(all.map((c) => `${c.goal_cadence}/${c.goal_cadence_frequency}`));
    for (const c of ['1/1', '2/1', '13/1', '7/null', '1/2']) expect(cadences, c).toContain(c);
    expect(all.filter((c) => c.goal_under_funded > 0).length).toBeGreaterThanOrEqual(3);
  });

  it("lists in full every target with YNAB's underfunded figure and next month's estimate", async () => {
    const res = ok(await h.call('targets_summary', { detail: 'full' }));
    const all = targets();
    expect(res.month).toBe(thisMonth());
    expect(res.targets.map((t: any) => t.id)).toEqual(all.map((c) => c.id));
    for (const [i, c] of all.entries()) {
      const t = res.targets[i];
      expect(t, c.name).toMatchObject({
        name: c.name,
        group: c.group,
        type: c.goal_type === 'NEED' ? `NEED ${c.goal_needs_whole_amount === false ? 'refill' : 'set aside'}` : c.goal_type,
        target: c.goal_target,
        assigned: c.budgeted,
        available: c.balance,
        underfunded: Math.max(0, c.goal_under_funded),
        underfunded_formatted: usd(Math.max(0, c.goal_under_funded)),
        next_month: nextMonth(c),
      });
      expect(t.next_month % 10, `${c.name}: whole cents`).toBe(0);
    }
    const under = all.reduce((s, c) => s + Math.max(0, c.goal_under_funded), 0);
    const cover = scopeAll().reduce((s, c) => s + Math.max(0, -(c.balance + Math.max(0, c.goal_under_funded ?? 0))), 0);
    expect(res.totals).toMatchObject({
      count: all.length,
      underfunded: under,
      ready_to_assign: month.to_be_budgeted,
      overspent: cover,
      to_assign: under + cover,
      short: Math.max(0, under + cover - Math.max(0, month.to_be_budgeted)),
      next_month: all.reduce((s, c) => s + nextMonth(c), 0),
    });
    expect(res.assumptions.length).toBeGreaterThan(0);
  });

  it('compact: the underfunded ones, how many need nothing, within 2 KB', async () => {
    const result = await h.call('targets_summary', {});
    const res = ok(result);
    const under = targets().filter((c) => c.goal_under_funded > 0);
    expect(res.targets.map((t: any) => t.name)).toEqual(under.map((c) => c.name));
    expect(res.fully_funded).toBe(targets().length - under.length);
    expect(Buffer.byteLength(result.content[0].text)).toBeLessThanOrEqual(2048);
  });

  it('takes another month of the budget and later ones, and refuses one before its first', async () => {
    const prev = shiftMonth(thisMonth(), -1);
    const res = ok(await h.call('targets_summary', { month: prev }));
    const m = await r.month(prev);
    expect(res.totals.ready_to_assign).toBe(m.to_be_budgeted);
    expect(ok(await h.call('targets_summary', { month: shiftMonth(thisMonth(), 3) })).projected).toBe(true);
    const bad = await h.call('targets_summary', { month: '1990-01-01' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/1990-01-01 is before this budget's first month/);
  });
});
