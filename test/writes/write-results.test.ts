/**
 * Writes report their result (issue 43): each write's answer gives the after-state of what it
 * touched, checked against the API's state after the write, read raw from the sandbox over HTTP,
 * and each write's cost in requests to the API (counted by the server's request hook):
 *  - move_money: both categories' assigned and available, and the month's Ready to Assign;
 *  - approve_transactions: how many wait for approval, how many of those have no category;
 *  - recategorize_transactions: count and total per category, before and after;
 *  - split_transaction: each line;
 *  - create_transfer and create_transactions: each account's balances (working, cleared, uncleared).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
const month = currentMonth();
const usd = (m: number) => `${m < 0 ? '-' : ''}$${(Math.abs(m) / 1000).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;
let h: McpHarness;
let budget: string;
const requests: string[] = [];

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'write-results' }, stack: { onRequest: (r) => requests.push(`${r.method} ${r.path}`) } });
  budget = h.sb.state.budgets[0]!.id;
  ok(await h.call('list_accounts', {}));
});
afterAll(() => h.close());

const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
const accountId = (name: string) => [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === name)!.id;
/** The requests a call makes to the API. */
async function counted<T>(f: () => Promise<T>): Promise<{ value: T; requests: string[] }> {
  const from = requests.length;
  const value = await f();
  return { value, requests: requests.slice(from) };
}
/** An account's balances as the API gives them, as the answers write them. */
async function balances(name: string) {
  const a = (await get(`/accounts/${accountId(name)}`)).account;
  return {
    account_id: a.id,
    account_name: a.name,
    balance: a.balance,
    balance_formatted: usd(a.balance),
    cleared_balance: a.cleared_balance,
    cleared_balance_formatted: usd(a.cleared_balance),
    uncleared_balance: a.uncleared_balance,
    uncleared_balance_formatted: usd(a.uncleared_balance),
  };
}

describe('writes report their result', () => {
  it('move_money: both categories and Ready to Assign after, in two requests (the plan reads the budget now)', async () => {
    const { value: res, requests: made } = await counted(async () =>
      ok(await h.call('move_money', { from_category_id: 'Fun Money', to_category_id: 'Groceries', amount: 12.34, allow_overspend: true })),
    );
    const m = (await get(`/months/${month}`)).month;
    const now = (name: string) => m.categories.find((c: any) => c.name === name);
    for (const [side, name] of [
      ['from', 'Fun Money'],
      ['to', 'Groceries'],
    ] as const) {
      expect(res[side]).toMatchObject({
        assigned: now(name).budgeted,
        assigned_formatted: usd(now(name).budgeted),
        available: now(name).balance,
        available_formatted: usd(now(name).balance),
      });
    }
    expect(res.ready_to_assign).toBe(m.to_be_budgeted);
    expect(res.ready_to_assign_formatted).toBe(usd(m.to_be_budgeted));
    // The two assignments; the plan's read of the budget as it is now is at most one delta.
    expect(made.filter((r) => r.startsWith('PATCH'))).toHaveLength(2);
    expect(made.length).toBeLessThanOrEqual(3);
  });

  it('create_transactions: each account it put money in, as the API has it after, with no request beyond the create', async () => {
    const { value: res, requests: made } = await counted(async () =>
      ok(
        await h.call('create_transactions', {
          transactions: [
            { account_id: 'Everyday Checking', date: today, amount: -21.5, payee_name: 'Results Deli', cleared: 'cleared' },
            { account_id: 'Wallet', date: today, amount: -3.25, payee_name: 'Results Kiosk' },
          ],
        }),
      ),
    );
    expect(res.accounts).toEqual([await balances('Everyday Checking'), await balances('Wallet')]);
    expect(made.filter((r) => !r.startsWith('POST'))).toEqual([]);
  });

  it('create_transactions with a transfer: both accounts, the other side read with one delta', async () => {
    const payee = (await get(`/accounts/${accountId('Rainy Day Savings')}`)).account.transfer_payee_id;
    const { value: res, requests: made } = await counted(async () =>
      ok(
        await h.call('create_transactions', {
          transactions: [{ account_id: 'Everyday Checking', date: today, amount: -15, payee_id: payee, memo: 'results transfer' }],
        }),
      ),
    );
    expect(res.accounts).toEqual([await balances('Everyday Checking'), await balances('Rainy Day Savings')]);
    expect(made.filter((r) => r.startsWith('POST'))).toHaveLength(1);
    expect(made.length).toBeLessThanOrEqual(2);
  });

  it('create_transfer: both accounts after (the other side read back with one delta)', async () => {
    const { value: res, requests: made } = await counted(async () =>
      ok(await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 40, memo: 'results' })),
    );
    expect(res.accounts).toEqual([await balances('Everyday Checking'), await balances('Rainy Day Savings')]);
    expect(made.filter((r) => r.startsWith('POST'))).toHaveLength(1);
    expect(made.length).toBeLessThanOrEqual(2);
  });

  it('approve_transactions: how many still wait for approval, and how many of those have no category', async () => {
    const ids = ok(
      await h.call('create_transactions', {
        transactions: [1, 2].map((i) => ({ account_id: 'Wallet', date: today, amount: -i, payee_name: `Results Approve ${i}`, approved: false })),
      }),
    ).transaction_ids;
    const { value: res, requests: made } = await counted(async () => ok(await h.call('approve_transactions', { transaction_ids: [ids[0]] })));
    const all = (await get('/transactions?since_date=1990-01-01')).transactions.filter((t: any) => !t.deleted && !t.approved);
    const uncategorizedId = (await get('/categories')).category_groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Uncategorized').id;
    const onBudget = new Set((await get('/accounts')).accounts.filter((a: any) => a.on_budget).map((a: any) => a.id));
    const budgetAccount = (id: string | null) => !!id && onBudget.has(id);
    const noCategory = all.filter((t: any) => {
      const lines = t.subtransactions.filter((x: any) => !x.deleted);
      const parts = lines.length ? lines : [t];
      return (
        onBudget.has(t.account_id) &&
        parts.some((x: any) => (!x.category_id || x.category_id === uncategorizedId) && !(x.transfer_account_id && budgetAccount(x.transfer_account_id)))
      );
    });
    expect(all.map((t: any) => t.id)).toContain(ids[1]);
    expect(res).toMatchObject({ updated: 1, unapproved_left: all.length, unapproved_uncategorized: noCategory.length });
    // The update, and the plan's read of the budget now (approving may be held for a preview); the answer adds none.
    expect(made.filter((r) => r.startsWith('PATCH'))).toHaveLength(1);
    expect(made.length).toBeLessThanOrEqual(2);
    // Nothing to change (already approved) still says where the queue stands.
    expect(ok(await h.call('approve_transactions', { transaction_ids: [ids[0]] }))).toMatchObject({
      updated: 0,
      unapproved_left: all.length,
      unapproved_uncategorized: noCategory.length,
    });
  });

  it('recategorize_transactions: the changed transactions by category, before and after', async () => {
    const made = ok(
      await h.call('create_transactions', {
        transactions: [
          { account_id: 'Wallet', date: today, amount: -7, payee_name: 'Results Recat', category_id: 'Groceries' },
          { account_id: 'Wallet', date: today, amount: -8, payee_name: 'Results Recat', category_id: 'Groceries' },
          { account_id: 'Wallet', date: today, amount: -9, payee_name: 'Results Recat', category_id: 'Dining Out' },
        ],
      }),
    ).transaction_ids;
    const res = ok(await h.call('recategorize_transactions', { transaction_ids: made, new_category_id: 'Fun Money' }));
    const after = await Promise.all(made.map(async (id: string) => (await get(`/transactions/${id}`)).transaction));
    const fun = after[0].category_id;
    expect(after.every((t: any) => t.category_id === fun)).toBe(true);
    expect(res.to).toEqual([{ category_id: fun, category_name: 'Fun Money', count: 3, total: -24_000, total_formatted: '-$24.00' }]);
    expect(res.from).toEqual([
      expect.objectContaining({ category_name: 'Groceries', count: 2, total: -15_000, total_formatted: '-$15.00' }),
      expect.objectContaining({ category_name: 'Dining Out', count: 1, total: -9_000, total_formatted: '-$9.00' }),
    ]);
  });

  it('split_transaction: each line as the API has it after', async () => {
    const id = ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: 'Everyday Checking', date: today, amount: -80, payee_name: 'Results Split', category_id: 'Groceries' }],
      }),
    ).transaction_ids[0];
    const { result } = await confirmed(h, 'split_transaction', {
      transaction_id: id,
      subtransactions: [
        { amount: -50, category_id: 'Groceries' },
        { amount: -30, category_id: 'Household Supplies', memo: 'soap' },
      ],
    });
    const lines = ok(result).transaction.lines;
    const t = (await get(`/transactions/${id}`)).transaction;
    const expected = t.subtransactions
      .filter((x: any) => !x.deleted)
      .map((x: any) => ({
        id: x.id,
        amount: x.amount,
        amount_formatted: usd(x.amount),
        category_id: x.category_id,
        category_name: x.category_name,
        payee_name: x.payee_name,
        memo: x.memo,
      }));
    expect(lines).toEqual(expected);
    expect(lines).toHaveLength(2);
  });
});
