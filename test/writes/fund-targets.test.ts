/**
 * fund_targets through a real MCP client, each of YNAB's seven Auto-Assign options checked
 * against assignments computed here from the API's own months (the option's rule written out
 * again), with Ready to Assign after as the API reports it, then undone: every category back to
 * what it was. Every call previews first (in direct mode too), listing each category and Ready to
 * Assign after; short of Ready to Assign, the options other than underfunded fund in group order
 * (underfunded's order: test/insights/targets-month.test.ts); a credit card payment category is
 * funded and can be named; a call the request ledger cannot finish is refused before its first
 * request, saying when it can run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, shiftMonth, thisMonth, type Raw } from '../insights/raw.js';

let h: McpHarness;
const month = thisMonth();

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'fund-targets' } });
});
afterAll(() => h.close());

/** The month as the API has it now: categories by id, and Ready to Assign. */
async function monthNow(r: Raw, m = month): Promise<{ byId: Map<string, any>; rta: number }> {
  const data = (await h.sb.get(`${r.b}/months/${m}`)).body.data.month;
  return { byId: new Map(data.categories.map((c: any) => [c.id, c])), rta: data.to_be_budgeted };
}

/** The categories an option looks at, in the API's group order: visible, not YNAB's own (card payment categories are in); one group's when named. */
function inScope(r: Raw, group?: string): any[] {
  return r.groups
    .filter((g: any) => !g.deleted && (group ? g.name === group : !g.hidden))
    .flatMap((g: any) => g.categories.filter((c: any) => !c.deleted && !c.internal && !c.hidden));
}

/** What the option makes a category's assigned amount, from the API's months (null: nothing to say). */
async function expectedTo(r: Raw, option: string, c: any, now: any): Promise<number | null> {
  const at = async (k: number) => (await r.month(shiftMonth(month, -k))).categories.find((x: any) => x.id === c.id);
  const spent = (x: any) => Math.max(0, -(x?.activity ?? 0));
  const average = async (figure: (x: any) => number) => {
    const values: number[] = [];
    for (let k = 12; k >= 1; k--) {
      const v = figure(await at(k));
      if (values.length || v !== 0) values.push(v);
    }
    if (!values.length) return null;
    // Rounded half up to whole cents.
    return Math.floor((2 * values.reduce((a, b) => a + b, 0) + values.length * 10) / (2 * values.length * 10)) * 10;
  };
  switch (option) {
    case 'underfunded':
      // The target's need, then what would still be overspent after it.
      return now.budgeted + Math.max(0, now.goal_under_funded ?? 0) + Math.max(0, -(now.balance + Math.max(0, now.goal_under_funded ?? 0)));
    case 'assigned_last_month':
      return (await at(1))?.budgeted ?? 0;
    case 'spent_last_month':
      return spent(await at(1));
    case 'average_assigned':
      return average((x) => x?.budgeted ?? 0);
    case 'average_spent':
      return average(spent);
    case 'reset_available':
      return now.budgeted - now.balance;
    default:
      return 0;
  }
}

/** The changes an option makes in scope, in order: [id, before, to]. */
async function planned(r: Raw, option: string, group?: string): Promise<[string, number, number][]> {
  const { byId } = await monthNow(r);
  const out: [string, number, number][] = [];
  for (const c of inScope(r, group)) {
    const now = byId.get(c.id);
    const to = await expectedTo(r, option, c, now);
    if (to !== null && to !== now.budgeted) out.push([c.id, now.budgeted, to]);
  }
  return out;
}

/**
 * What Ready to Assign pays for, when it is short: the decreases, then the increases in group
 * order, each in full while money is left, the last in part. Enough money: every change.
 */
function allocate(changes: [string, number, number][], rta: number): [string, number, number][] {
  let money = rta + changes.reduce((s, [, from, to]) => s + Math.max(0, from - to), 0);
  const need = changes.reduce((s, [, from, to]) => s + to - from, 0);
  if (need <= rta) return changes;
  const out: [string, number, number][] = [];
  for (const [id, from, to] of changes) {
    if (to <= from) out.push([id, from, to]);
    else if (money > 0) {
      const give = Math.min(to - from, money);
      money -= give;
      out.push([id, from, from + give]);
    }
  }
  return out;
}

const CASES: [string, string | undefined][] = [
  ['assigned_last_month', 'Everyday Expenses'],
  ['spent_last_month', 'Everyday Expenses'],
  ['average_assigned', 'Health & Family'],
  ['average_spent', 'Health & Family'],
  ['reset_available', 'True Expenses'],
  ['reset_assigned', 'Bills'],
];

/**
 * Money in Ready to Assign for an option to spend: on some days the demo's month has all of it
 * assigned. Taken back from the Rainy Day Fund through the server, as a user would.
 */
async function someToAssign(r: Raw): Promise<void> {
  const { byId, rta } = await monthNow(r);
  if (rta > 0) return;
  const rainy = r.categories.find((c: any) => c.name === 'Rainy Day Fund');
  ok(await h.call('update_month_category', { month, category_id: rainy.id, budgeted: (byId.get(rainy.id).budgeted - 200_000) / 1000 }));
}

describe('fund_targets', () => {
  it.each(CASES)('%s (%s): each category as the rule says, Ready to Assign after, undone', async (option, group) => {
    const r = await raw(h.sb);
    await someToAssign(r);
    const before = await monthNow(r);
    const changes = await planned(r, option, group);
    expect(changes.length, 'the demo gives the option something to change').toBeGreaterThan(0);
    const given = allocate(changes, before.rta);
    const res = ok((await confirmed(h, 'fund_targets', { option, category_group_id: group })).result);
    const after = await monthNow(r);
    for (const [id, , to] of given) expect(after.byId.get(id).budgeted, r.category.get(id).name).toBe(to);
    expect(after.rta).toBe(before.rta - given.reduce((s, [, from, to]) => s + to - from, 0));
    expect(res.count).toBe(res.categories.length);
    expect(res.ready_to_assign_after).toBe(after.rta);
    for (const c of inScope(r)) if (!given.some(([id]) => id === c.id)) expect(after.byId.get(c.id).budgeted, c.name).toBe(before.byId.get(c.id).budgeted);
    // Undone: every category and Ready to Assign as before.
    ok((await confirmed(h, 'undo_change', { change_id: res.change_id })).result);
    const undone = await monthNow(r);
    for (const [id, c] of before.byId) expect(undone.byId.get(id).budgeted, c.name).toBe(c.budgeted);
    expect(undone.rta).toBe(before.rta);
  });

  it("underfunded: a credit card payment category's target is funded, and category_id names it", async () => {
    const r = await raw(h.sb);
    const card = r.categories.find((c: any) => c.name === 'Citi Store Card' && c.group.name === 'Credit Card Payments');
    const before = (await monthNow(r)).byId.get(card.id);
    expect(before.goal_under_funded, 'the demo leaves the card payment target underfunded').toBeGreaterThan(0);
    // Money for it: taken back from the Rainy Day Fund.
    const rainy = r.categories.find((c: any) => c.name === 'Rainy Day Fund');
    const held = (await monthNow(r)).byId.get(rainy.id).budgeted;
    ok(await h.call('update_month_category', { month, category_id: rainy.id, budgeted: (held - before.goal_under_funded) / 1000 }));
    const { preview, result } = await confirmed(h, 'fund_targets', { option: 'underfunded', category_id: 'Citi Store Card' });
    expect(preview.categories).toEqual([expect.objectContaining({ name: 'Citi Store Card', assigned: before.budgeted + before.goal_under_funded })]);
    const res = ok(result);
    const after = await monthNow(r);
    expect(after.byId.get(card.id).budgeted).toBe(before.budgeted + before.goal_under_funded);
    expect(after.byId.get(card.id).goal_under_funded).toBe(0);
    expect(res.ready_to_assign_after).toBe(after.rta);
    ok((await confirmed(h, 'undo_change', { change_id: res.change_id })).result);
    ok(await h.call('update_month_category', { month, category_id: rainy.id, budgeted: held / 1000 }));
  });

  it("Inflow: Ready to Assign is YNAB's own: refused by name", async () => {
    const res = await h.call('fund_targets', { option: 'underfunded', category_id: 'Inflow: Ready to Assign' });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/YNAB's own category/);
  });

  it('one category, and nothing to change said as such', async () => {
    const r = await raw(h.sb);
    const rent = r.categories.find((c: any) => c.name === 'Rent');
    const res = ok((await confirmed(h, 'fund_targets', { option: 'reset_assigned', category_id: 'Rent' })).result);
    expect(res.categories).toEqual([expect.objectContaining({ name: 'Rent', assigned: 0 })]);
    expect((await monthNow(r)).byId.get(rent.id).budgeted).toBe(0);
    const again = ok(await h.call('fund_targets', { option: 'reset_assigned', category_id: 'Rent' }));
    expect(again.message).toMatch(/Nothing to change/);
    ok((await confirmed(h, 'undo_change', { change_id: res.change_id })).result);
  });
});

describe('fund_targets: preview and quota', () => {
  it('under --writes confirm too, previews every category and Ready to Assign after, nothing changed', async () => {
    const c = await mcpHarness({ sandbox: { seed: 'fund-targets' }, flags: { writes: 'confirm' } });
    try {
      const r = await raw(c.sb);
      const before = (await c.sb.get(`${r.b}/months/${month}`)).body.data.month;
      const preview = ok(await c.call('fund_targets', { option: 'reset_assigned', category_group_id: 'Bills' }));
      const bills = inScope(r, 'Bills').filter((x) => before.categories.find((y: any) => y.id === x.id).budgeted !== 0);
      expect(preview.preview).toBe(true);
      expect(preview.categories.map((x: any) => x.name)).toEqual(bills.map((x) => x.name));
      const freed = bills.reduce((s, x) => s + before.categories.find((y: any) => y.id === x.id).budgeted, 0);
      expect(preview.ready_to_assign_after).toBe(before.to_be_budgeted + freed);
      expect((await c.sb.get(`${r.b}/months/${month}`)).body.data.month.to_be_budgeted).toBe(before.to_be_budgeted);
    } finally {
      await c.close();
    }
  });

  it('a call the hourly limit cannot finish is refused before its first request, saying when it can run', async () => {
    const r0 = await raw(h.sb);
    const n = (await planned(r0, 'reset_assigned')).length;
    // The sandbox announces a limit of n + 5 (X-Rate-Limit) and counts this test's reads too: fewer than n are left.
    const c = await mcpHarness({ sandbox: { seed: 'fund-targets', rateLimit: n + 5 } });
    try {
      const r = await raw(c.sb);
      const before = (await c.sb.get(`${r.b}/months/${month}`)).body.data.month;
      const res = await c.call('fund_targets', { option: 'reset_assigned' });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(new RegExp(`needs ${n} requests .* it can run at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`));
      expect((await c.sb.get(`${r.b}/months/${month}`)).body.data.month).toEqual(before);
      // One category fits.
      ok(await c.call('fund_targets', { option: 'reset_assigned', category_id: 'Rent' }));
    } finally {
      await c.close();
    }
  });
});
