/**
 * approve_transactions with `categories` (issue 26 item 2), through a real MCP client against the
 * sandbox over HTTP: approving and categorizing are one change (one change_id, one update
 * request), which undo_change reverts as one; categories take ids or names (an unknown or
 * ambiguous name, or a transaction not among those selected, is refused before anything is
 * sent); a split, a transfer between budget accounts or a transaction in a tracking account
 * cannot take a category and is skipped with the reason; the preview rule holds (more than 5).
 * Expectations are read back from the API's own answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budget: string;
const today = new Date().toISOString().slice(0, 10);
const u = Date.now().toString(36);

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'approve-categories' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const raw = async (id: string) => (await h.sb.get(`/budgets/${budget}/transactions/${id}`)).body.data.transaction;
const category = async (name: string) => {
  const groups = (await h.sb.get(`/budgets/${budget}/categories`)).body.data.category_groups;
  return groups.flatMap((g: any) => g.categories).find((c: any) => c.name === name && !c.deleted);
};
async function unapproved(memo: string, n: number, extra: Record<string, unknown> = {}): Promise<string[]> {
  const items = Array.from({ length: n }, (_, i) => ({
    account_id: 'Everyday Checking',
    date: today,
    amount: -(5 + i),
    payee_name: `Review ${memo} ${u}`,
    memo,
    approved: false,
    ...extra,
  }));
  return ok(await h.call('create_transactions', { transactions: items, allow_duplicate: true })).transaction_ids;
}

describe('approve_transactions with categories', () => {
  it('approves and categorizes in one change (names and ids), which undo_change reverts as one', async () => {
    const [a, b, c] = await unapproved('one change', 3);
    const dining = await category('Dining Out');
    const before = await Promise.all([a, b, c].map((id) => raw(id!)));
    const res = ok(await h.call('approve_transactions', { transaction_ids: [a, b, c], categories: { [a!]: 'groceries', [b!]: dining.id } }));
    expect(res.updated).toBe(3);
    expect(typeof res.change_id).toBe('string');
    const groceries = await category('Groceries');
    expect(await raw(a!)).toMatchObject({ approved: true, category_id: groceries.id });
    expect(await raw(b!)).toMatchObject({ approved: true, category_id: dining.id });
    expect(await raw(c!)).toMatchObject({ approved: true, category_id: before[2].category_id ?? null });
    const listed = ok(await h.call('list_recent_changes', {})).changes;
    expect(listed.filter((x: any) => x.change_id === res.change_id || x.id === res.change_id)).toHaveLength(1);

    const { result } = await confirmed(h, 'undo_change', { change_id: res.change_id });
    ok(result);
    for (const [i, id] of [a, b, c].entries()) {
      const now = await raw(id!);
      expect(now.approved, id).toBe(false);
      expect(now.category_id ?? null, id).toBe(before[i].category_id ?? null);
    }
  });

  it('refuses an unknown or ambiguous category name, and a transaction not selected, sending nothing', async () => {
    const [a, b] = await unapproved('refused', 2);
    const k = h.sb.state.budgets[0]!.knowledge;
    const unknown = await h.call('approve_transactions', { transaction_ids: [a], categories: { [a!]: `Nope ${u}` } });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toMatch(new RegExp(`categories\\.${a}.*no category has that id or name`));
    // Two categories of one name in different groups: the name alone does not say which.
    for (const group of ['Bills', 'Quality of Life']) ok(await h.call('create_category', { name: `Twin ${u}`, category_group_id: group }));
    const twin = await h.call('approve_transactions', { transaction_ids: [a], categories: { [a!]: `Twin ${u}` } });
    expect(twin.isError).toBe(true);
    expect(twin.content[0].text).toMatch(/2 categories have that name/);
    const stray = await h.call('approve_transactions', { transaction_ids: [a], categories: { [b!]: 'Groceries' } });
    expect(stray.isError).toBe(true);
    expect(stray.content[0].text).toMatch(new RegExp(`categories names a transaction not among those to approve: ${b}`));
    expect(h.sb.state.budgets[0]!.knowledge - k).toBe(2); // only the two categories created
    for (const id of [a, b]) expect((await raw(id!)).approved).toBe(false);
  });

  it('skips a split, a transfer between budget accounts and a tracking account with the reason; approves the others', async () => {
    const [plain] = await unapproved('skips', 1);
    const split = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [
          {
            account_id: 'Everyday Checking',
            date: today,
            amount: -30,
            payee_name: `Review split ${u}`,
            approved: false,
            subtransactions: [
              { amount: -10, category_id: 'Groceries' },
              { amount: -20, category_id: 'Dining Out' },
            ],
          },
        ],
      }),
    ).transaction_ids[0];
    const transfer = ok(await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 12, date: today }));
    const transferId: string = transfer.transaction_ids[0];
    const accounts = (await h.sb.get(`/budgets/${budget}/accounts`)).body.data.accounts;
    const tracking = accounts.find((x: any) => !x.on_budget && !x.closed && !x.deleted);
    const off = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [{ account_id: tracking.id, date: today, amount: -4, payee_name: `Review off ${u}`, approved: false }],
      }),
    ).transaction_ids[0];
    const ids = [plain!, split, off, transferId];
    const categories = Object.fromEntries(ids.map((id) => [id, 'Groceries']));
    const res = ok(await h.call('approve_transactions', { transaction_ids: ids, categories }));
    const reasons = Object.fromEntries(res.skipped.map((s: any) => [s.id, s.reason]));
    expect(reasons[split]).toMatch(/a split/);
    expect(reasons[off]).toMatch(/tracking account/);
    expect(reasons[transferId]).toMatch(/transfer between budget accounts/);
    expect(res.updated).toBe(1);
    expect(await raw(plain!)).toMatchObject({ approved: true, category_id: (await category('Groceries')).id });
    expect((await raw(split)).approved).toBe(false);
  });

  it('more than 5 previews first, the categories bound to the token', async () => {
    const ids = await unapproved('preview', 6);
    const categories = Object.fromEntries(ids.map((id) => [id, 'Dining Out']));
    const preview = ok(await h.call('approve_transactions', { transaction_ids: ids, categories }));
    expect(preview.preview).toBe(true);
    for (const id of ids) expect((await raw(id)).approved).toBe(false);
    const result = await h.call('approve_transactions', { transaction_ids: ids, categories, confirm_token: preview.confirm_token });
    expect(ok(result).updated).toBe(6);
    const dining = (await category('Dining Out')).id;
    for (const id of ids) expect(await raw(id)).toMatchObject({ approved: true, category_id: dining });
    // The token is for these categories: another category with it is refused.
    const other = await unapproved('preview other', 6);
    const held = ok(await h.call('approve_transactions', { transaction_ids: other, categories: Object.fromEntries(other.map((id) => [id, 'Dining Out'])) }));
    const swapped = await h.call('approve_transactions', {
      transaction_ids: other,
      categories: Object.fromEntries(other.map((id) => [id, 'Groceries'])),
      confirm_token: held.confirm_token,
    });
    expect(swapped.isError || ok(swapped).preview === true).toBe(true);
    for (const id of other) expect((await raw(id)).category_id).not.toBe((await category('Groceries')).id);
  });
});
