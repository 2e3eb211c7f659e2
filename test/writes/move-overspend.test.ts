/**
 * move_money that would leave its source category overspent is previewed first, even under
 * `--writes direct` (the default), saying the balance it would leave; nothing moves until the
 * preview's confirm_token comes back, and `allow_overspend: true` moves it at once. A move that
 * leaves the source at zero or more goes straight through. Figures come from the API's raw month.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const month = currentMonth(new Date());
let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'overspend' } });
});
afterAll(() => h.close());

const category = async (name: string) => {
  const b = h.sb.state.budgets[0]!;
  return (await h.sb.get(`/budgets/${b.id}/months/${month}`)).body.data.month.categories.find((c: any) => c.name === name);
};
const usd = (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;

describe('move_money that overspends its source', () => {
  it('answers with a preview saying what it would leave, and moves nothing until confirmed', async () => {
    const fun = await category('Fun Money');
    const dining = await category('Dining Out');
    const amount = fun.balance + 4_939_860; // leaves −4,939.86
    const args = { from_category_id: 'Fun Money', to_category_id: 'Dining Out', amount_milliunits: amount };
    const preview = ok(await h.call('move_money', args));
    expect(preview).toMatchObject({
      preview: true,
      confirm_token: expect.any(String),
      from_available_after: -4_939_860,
      from_available_after_formatted: '-$4,939.86',
    });
    expect(preview.summary).toBe(
      `Move ${usd(amount)} from "Fun Money" to "Dining Out" in ${month.slice(0, 7)}, leaving "Fun Money" at -$4,939.86 available (overspent)`,
    );
    expect(preview.message).toMatch(/leaves its source category overspent is confirmed first \(allow_overspend: true/);
    expect((await category('Fun Money')).budgeted).toBe(fun.budgeted);
    expect((await category('Dining Out')).budgeted).toBe(dining.budgeted);

    const done = ok(await h.call('move_money', { ...args, confirm_token: preview.confirm_token }));
    expect(done.change_id).toEqual(expect.any(String));
    expect((await category('Fun Money')).balance).toBe(-4_939_860);
    expect((await category('Dining Out')).budgeted).toBe(dining.budgeted + amount);
  });

  it('allow_overspend: true moves it at once, with a notice of what it left', async () => {
    const groceries = await category('Groceries');
    const amount = groceries.balance + 1_000;
    const done = ok(
      await h.call('move_money', { from_category_id: 'Groceries', to_category_id: 'Dining Out', amount_milliunits: amount, allow_overspend: true }),
    );
    expect(done.preview).toBeUndefined();
    expect(done.from).toMatchObject({ name: 'Groceries', available: -1_000 });
    expect(done.notices).toContain('"Groceries" will have -$1.00 available (overspent).');
    expect((await category('Groceries')).balance).toBe(-1_000);
  });

  it('a move that leaves the source at zero goes straight through', async () => {
    const dining = await category('Dining Out');
    const done = ok(await h.call('move_money', { from_category_id: 'Dining Out', to_category_id: 'Groceries', amount_milliunits: dining.balance }));
    expect(done.preview).toBeUndefined();
    expect((await category('Dining Out')).balance).toBe(0);
  });
});
