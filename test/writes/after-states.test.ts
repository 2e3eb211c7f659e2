/**
 * Writes report their result (issue 43 item 8), the writes write-results.test.ts leaves: each
 * answer gives the after-state of what it touched, checked against the API's state after the
 * write, read raw from the sandbox over HTTP:
 *  - undo_change: each category it touched, its assigned and available after, and Ready to Assign
 *    after (an undone move_money: its month; an undone recategorize: the categories' money now);
 *  - fund_targets: the total assigned and Ready to Assign after;
 *  - reconcile_account: the cleared and working balances after the reconcile (with an adjustment),
 *    not the figures from before.
 * (move_money, approve_transactions, recategorize_transactions, split_transaction,
 * create_transfer and create_transactions: write-results.test.ts; the approval queue's transfer
 * sides: test/insights/queue-counts.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
const month = currentMonth();
const usd = (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
let h: McpHarness;
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'after-states' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
const monthNow = async (m = month) => (await get(`/months/${m}`)).month;

/**
 * A money figure of an answer, as milliunits and its text: the vocabulary's `name` and
 * `name_formatted`, or (task writes another helper moves to the vocabulary) `name_milliunits`, or
 * the `{ milliunits, formatted }` pair.
 */
function figure(o: any, name: string): [number, string] {
  if (typeof o[name] === 'number') return [o[name], o[`${name}_formatted`]];
  if (typeof o[`${name}_milliunits`] === 'number') return [o[`${name}_milliunits`], o[`${name}_formatted`]];
  if (o[name] && typeof o[name].milliunits === 'number') return [o[name].milliunits, o[name].formatted];
  throw new Error(`no figure ${name} in ${JSON.stringify(o).slice(0, 300)}`);
}

/** A category's row of an undo's answer, as the API's month has the category after. */
const categoryAfter = (c: any, m: string) => ({
  category_id: c.id,
  name: c.name,
  month: m,
  assigned: c.budgeted,
  assigned_formatted: usd(c.budgeted),
  available: c.balance,
  available_formatted: usd(c.balance),
});

describe('writes report their state after', () => {
  it("undo_change of a move: both categories' assigned and available after, and Ready to Assign after", async () => {
    const moved = ok(await h.call('move_money', { from_category_id: 'Fun Money', to_category_id: 'Groceries', amount: 17.5, allow_overspend: true }));
    const before = await monthNow();
    const undone = ok((await confirmed(h, 'undo_change', { change_id: moved.change_id })).result);
    const m = await monthNow();
    const named = (n: string) => m.categories.find((c: any) => c.name === n);
    // The undo really moved the money back: the API's figures are not those of before it.
    expect(named('Fun Money').budgeted).toBe(before.categories.find((c: any) => c.name === 'Fun Money').budgeted + 17_500);
    expect(undone.categories).toEqual([categoryAfter(named('Groceries'), month), categoryAfter(named('Fun Money'), month)]);
    expect(undone).toMatchObject({ month, ready_to_assign: m.to_be_budgeted, ready_to_assign_formatted: usd(m.to_be_budgeted) });
  });

  it("undo_change of a recategorize: each category's money now, as the API has it after", async () => {
    const made = ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: 'Everyday Checking', date: today, amount: -23.45, payee_name: 'After Undo', category_id: 'Groceries' }],
      }),
    ).transaction_ids;
    const recat = ok(await h.call('recategorize_transactions', { transaction_ids: made, new_category_id: 'Dining Out' }));
    const undone = ok((await confirmed(h, 'undo_change', { change_id: recat.change_id })).result);
    const m = await monthNow();
    const named = (n: string) => m.categories.find((c: any) => c.name === n);
    expect((await get(`/transactions/${made[0]}`)).transaction.category_name).toBe('Groceries');
    expect(undone.categories).toEqual(expect.arrayContaining([categoryAfter(named('Groceries'), month), categoryAfter(named('Dining Out'), month)]));
    expect(undone.categories).toHaveLength(2);
    expect(undone).toMatchObject({ ready_to_assign: m.to_be_budgeted, ready_to_assign_formatted: usd(m.to_be_budgeted) });
  });

  it('fund_targets: the total assigned and Ready to Assign after', async () => {
    // Money to fund them with: $500 taken back from the Rainy Day Fund into Ready to Assign.
    const rainy = (await monthNow()).categories.find((c: any) => c.name === 'Rainy Day Fund');
    ok(await h.call('update_month_category', { month: 'current', category_id: rainy.id, budgeted: (rainy.budgeted - 500_000) / 1000 }));
    // And a bill left short of its target: $100 taken back from Rent (on some days the demo has
    // funded every bill already, and there would be nothing to do).
    const rent = (await monthNow()).categories.find((c: any) => c.name === 'Rent');
    ok(await h.call('update_month_category', { month: 'current', category_id: rent.id, budgeted: (rent.budgeted - 100_000) / 1000 }));
    const before = await monthNow();
    expect(before.to_be_budgeted).toBeGreaterThanOrEqual(500_000);
    const res = ok((await confirmed(h, 'fund_targets', { option: 'underfunded', category_group_id: 'Bills' })).result);
    const after = await monthNow();
    const byId = new Map(before.categories.map((c: any) => [c.id, c]));
    const assigned = after.categories.reduce((s: number, c: any) => s + c.budgeted - (byId.get(c.id) as any).budgeted, 0);
    expect(assigned).toBeGreaterThan(0);
    expect(figure(res, 'assigned_total')).toEqual([assigned, usd(assigned)]);
    expect(figure(res, 'ready_to_assign_after')).toEqual([after.to_be_budgeted, usd(after.to_be_budgeted)]);
  });

  it('reconcile_account: the cleared and working balances after the reconcile and its adjustment', async () => {
    const accounts = (await get('/accounts')).accounts;
    const wallet = accounts.find((a: any) => a.name === 'Wallet');
    // A statement $12.34 above the cleared balance, nothing to explain it: reconciled with an adjustment.
    const statement = wallet.cleared_balance + 12_340;
    const { preview, result } = await confirmed(h, 'reconcile_account', {
      account_id: 'Wallet',
      statement_balance_milliunits: statement,
      statement_date: today,
      create_adjustment: true,
    });
    const done = ok(result);
    const after = (await get(`/accounts/${wallet.id}`)).account;
    expect(after.cleared_balance).toBe(statement);
    expect(after.balance).toBe(wallet.balance + 12_340);
    // The answer's balances are the API's after, not the preview's from before.
    expect(figure(preview, 'cleared_balance')[0]).toBe(wallet.cleared_balance);
    expect(figure(done, 'cleared_balance')).toEqual([after.cleared_balance, usd(after.cleared_balance)]);
    expect(figure(done, 'working_balance')).toEqual([after.balance, usd(after.balance)]);
    expect(figure(done, 'difference')[0]).toBe(0);
  });
});
