/**
 * Issue 58 item 8, the writes that cost a turn, through a real MCP client against the sandbox over
 * HTTP, checked against the API's raw answers:
 *  - a filter write without expected_count previews the count with a confirm_token instead of
 *    refusing; nothing is written without the token, and the token applies to exactly the
 *    previewed set (a set changed since is refused, saying what changed);
 *  - delete_transactions deletes several transactions, by ids or by filter, in one call after one
 *    preview, as one change that undo_change puts back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'tasks' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
const raw = async (id: string) => (await get(`/transactions/${id}`)).transaction;
const categoryId = (name: string) => [...h.sb.state.budgets[0]!.rec.categories.values()].find((c) => c.name === name)!.id;
/** The transactions whose memo is `memo`, as the API has them (deleted ones are gone from the list). */
const withMemo = async (memo: string) => (await get(`/transactions?since_date=${today}`)).transactions.filter((t: any) => t.memo === memo && !t.deleted);

async function make(memo: string, n: number, amount: number): Promise<string[]> {
  const items = Array.from({ length: n }, (_, i) => ({ account_id: 'Wallet', date: today, amount: amount - i, payee_name: `Turns ${memo}`, memo }));
  return ok(await h.call('create_transactions', { transactions: items, allow_duplicate: true })).transaction_ids;
}

describe('a filter write without expected_count', () => {
  it('previews the count with a confirm_token; the token applies exactly that set', async () => {
    const ids = await make('recat', 2, -41);
    const k = h.sb.state.budgets[0]!.knowledge;
    const args = { query: 'Turns recat', new_category_id: 'Household Supplies' };
    const preview = ok(await h.call('recategorize_transactions', args));
    expect(preview).toMatchObject({ preview: true, matched: (await withMemo('recat')).length, count: 2 });
    expect(preview.notices.join(' ')).toMatch(/2 transactions match; confirm_token applies to exactly these/);
    // The preview wrote nothing.
    expect(h.sb.state.budgets[0]!.knowledge).toBe(k);
    for (const id of ids) expect((await raw(id)).category_id).not.toBe(categoryId('Household Supplies'));
    expect(ok(await h.call('recategorize_transactions', { ...args, confirm_token: preview.confirm_token })).updated).toBe(2);
    for (const id of ids) expect((await raw(id)).category_id).toBe(categoryId('Household Supplies'));
  });

  it('a set changed since the preview is refused, naming what changed, and nothing is written', async () => {
    const ids = await make('grown', 2, -51);
    const args = { query: 'Turns grown', new_category_id: 'Coffee' };
    const preview = ok(await h.call('recategorize_transactions', args));
    expect(preview).toMatchObject({ preview: true, count: 2 });
    const [extra] = await make('grown', 1, -59);
    const res = await h.call('recategorize_transactions', { ...args, confirm_token: preview.confirm_token });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/is now part of this change/);
    expect(res.content[0].text).toMatch(/Nothing was changed/);
    for (const id of [...ids, extra!]) expect((await raw(id)).category_id).not.toBe(categoryId('Coffee'));
  });
});

describe('delete_transactions', () => {
  it('by ids: one call, one preview, one change; undo_change puts them back', async () => {
    const ids = await make('del ids', 4, -61);
    const k = h.sb.state.budgets[0]!.knowledge;
    const preview = ok(await h.call('delete_transactions', { transaction_ids: ids }));
    expect(preview).toMatchObject({ preview: true, count: 4 });
    expect(h.sb.state.budgets[0]!.knowledge).toBe(k);
    const res = ok(await h.call('delete_transactions', { transaction_ids: ids, confirm_token: preview.confirm_token }));
    expect(res.deleted).toBe(4);
    expect(await withMemo('del ids')).toHaveLength(0);
    const undo = await confirmed(h, 'undo_change', { change_id: res.change_id });
    ok(undo.result);
    expect((await withMemo('del ids')).map((t: any) => t.amount).sort()).toEqual([-61_000, -62_000, -63_000, -64_000].sort());
  });

  it('by filter: the preview gives the count of the API set; the token deletes exactly it', async () => {
    await make('del filter', 3, -71);
    const expected = (await withMemo('del filter')).length;
    const { preview, result } = await confirmed(h, 'delete_transactions', { query: 'Turns del filter' });
    expect(preview).toMatchObject({ preview: true, count: expected, matched: expected });
    expect(ok(result).deleted).toBe(expected);
    expect(await withMemo('del filter')).toHaveLength(0);
  });

  it('a transfer goes with its other side, sent once when both sides are selected', async () => {
    const t = ok(await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 7.77, memo: 'del pair' }));
    const { preview, result } = await confirmed(h, 'delete_transactions', { transaction_ids: t.transaction_ids });
    // One delete sent; the other side listed as going with it.
    expect(preview.count).toBe(1);
    expect(preview.changes.map((c: any) => c.linked ?? false).sort()).toEqual([false, true]);
    expect(ok(result).deleted).toBe(2);
    expect(await withMemo('del pair')).toHaveLength(0);
  });
});
