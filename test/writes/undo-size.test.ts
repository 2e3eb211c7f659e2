/**
 * Answers about big changes stay small: the preview and the result of an undo of a change of 42
 * transactions (created at once, then approved at once), and the preview of the approval itself,
 * are each at most 8 KB of text (the text a model reads, data boundary included), with a summary,
 * the count of everything, and the first rows; the rest are counted, never dropped silently, and
 * the undo still puts back every one (checked against the API's raw transactions).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const N = 42;
const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'undo-size' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const bytes = (res: any) => Buffer.byteLength(res.content[0].text, 'utf8');
const raw = async (id: string) => h.sb.get(`/budgets/${budget}/transactions/${id}`);

/** A preview or result of many rows: within 8 KB, counting them all, listing the first, saying the rest are counted. */
function small(res: any, rows: string, count: number) {
  expect(res.isError, res.content[0].text.slice(0, 300)).toBeFalsy();
  expect(bytes(res)).toBeLessThanOrEqual(8192);
  const body = res.structuredContent;
  expect(body.count).toBe(count);
  expect(body[rows].length).toBeGreaterThan(0);
  expect(body[rows].length).toBeLessThan(count);
  expect(body.notices.join(' ')).toMatch(new RegExp(`Only the first ${body[rows].length} of ${count}`));
}

describe(`a change of ${N} transactions`, () => {
  it('undo previews and results are at most 8 KB, and every transaction is still put back', async () => {
    const made = ok(
      await h.call('create_transactions', {
        transactions: Array.from({ length: N }, (_, i) => ({
          account_id: 'Everyday Checking',
          date: today,
          amount: -(10 + i),
          payee_name: `Big Change Shop ${i}`,
          memo: `a memo long enough to be like a bank's own text, number ${i}`,
          category_id: 'Groceries',
          approved: false,
        })),
      }),
    );
    const ids: string[] = made.transaction_ids;
    expect(ids).toHaveLength(N);

    // Approving them all: a bulk update, previewed first.
    const approve = await confirmed(h, 'approve_transactions', { transaction_ids: ids });
    expect(Buffer.byteLength(JSON.stringify(approve.preview), 'utf8')).toBeLessThanOrEqual(8192);
    const approved = ok(approve.result);
    for (const id of ids.slice(0, 3)) expect((await raw(id)).body.data.transaction.approved).toBe(true);

    // Undoing the approval: 42 updates back.
    const preview = await h.call('undo_change', { change_id: approved.change_id });
    small(preview, 'changes', N);
    const undone = await h.call('undo_change', { change_id: approved.change_id, confirm_token: preview.structuredContent.confirm_token });
    small(undone, 'restored', N);
    for (const id of ids) expect((await raw(id)).body.data.transaction.approved).toBe(false);

    // Undoing the create: 42 deletes.
    const second = await h.call('undo_change', { change_id: made.change_id });
    small(second, 'changes', N);
    const deleted = await h.call('undo_change', { change_id: made.change_id, confirm_token: second.structuredContent.confirm_token });
    small(deleted, 'restored', N);
    for (const id of ids) expect((await raw(id)).status).toBe(404);

    // Undoing that undo: 42 created again, with new ids, said once.
    const again = await h.call('undo_change', { change_id: deleted.structuredContent.change_id });
    small(again, 'changes', N);
    const recreated = await h.call('undo_change', { change_id: deleted.structuredContent.change_id, confirm_token: again.structuredContent.confirm_token });
    small(recreated, 'restored', N);
    expect(recreated.structuredContent.notices.join(' ')).toMatch(new RegExp(`${N} entities were created again with new ids`));
  }, 120_000);
});
