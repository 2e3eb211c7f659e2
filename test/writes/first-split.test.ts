/**
 * The same change is held the same way whatever tool makes it (issue 57, item 10): a first split
 * made through update_transaction or update_transactions (`subtransactions` on a transaction that
 * is not yet a split) answers with a preview and a confirm_token, as split_transaction does, and
 * nothing is written until it is confirmed. Through a real MCP client against the sandbox, under
 * the default `--writes direct`; what was written is read from the sandbox's raw API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, type Raw } from '../insights/raw.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let r: Raw;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'first-split' } });
  r = await raw(h.sb);
});
afterAll(() => h.close());

const checking = () => r.accounts.find((a) => a.name === 'Everyday Checking').id as string;
const categoryId = (name: string) => r.categories.find((c) => c.name === name).id as string;
/** The transaction as the API has it now. */
const rawTxn = async (id: string) => (await h.sb.get(`${r.b}/transactions/${id}`)).body.data.transaction;

/** A plain transaction of −100.00, made for the test (its id). */
async function plain(payee: string): Promise<string> {
  const made = ok(
    await h.call('create_transactions', {
      transactions: [{ account_id: checking(), date: today, amount: -100, payee_name: payee, category_id: categoryId('Groceries') }],
    }),
  );
  return made.transaction_ids[0];
}

const lines = () => [
  { amount: -60, category_id: categoryId('Groceries') },
  { amount: -40, category_id: categoryId('Household Supplies') },
];

/** A preview's message up to what it asks of the caller: "Nothing was changed: <why>." */
const why = (preview: any) => String(preview.message).split(' Show the user')[0];

describe('a first split through update_transaction(s)', () => {
  it('update_transaction with subtransactions previews as split_transaction does, and writes nothing before the confirm', async () => {
    const id = await plain('First Split Market');
    const split = ok(await h.call('split_transaction', { transaction_id: id, subtransactions: lines() }));
    expect(split).toMatchObject({ preview: true, confirm_token: expect.any(String) });

    const args = { transaction_id: id, subtransactions: lines() };
    const held = ok(await h.call('update_transaction', args));
    expect(held).toMatchObject({ preview: true, confirm_token: expect.any(String), summary: split.summary });
    expect(why(held)).toBe(why(split));
    expect(held.transaction_ids).toBeUndefined();
    const before = await rawTxn(id);
    expect(before.subtransactions).toEqual([]);
    expect(before.amount).toBe(-100_000);

    const done = ok(await h.call('update_transaction', { ...args, confirm_token: held.confirm_token }));
    expect(done.preview).toBeUndefined();
    const after = await rawTxn(id);
    expect(after.subtransactions.map((s: any) => s.amount).sort()).toEqual([-60_000, -40_000].sort());
  });

  it('update_transactions with subtransactions on a plain transaction previews the same way; other updates go straight through', async () => {
    const id = await plain('First Split Bazaar');
    const split = ok(await h.call('split_transaction', { transaction_id: id, subtransactions: lines() }));
    const args = { transactions: [{ id, subtransactions: lines() }] };
    const held = ok(await h.call('update_transactions', args));
    expect(held).toMatchObject({ preview: true, confirm_token: expect.any(String), summary: split.summary });
    expect(why(held)).toBe(why(split));
    expect((await rawTxn(id)).subtransactions).toEqual([]);

    ok(await h.call('update_transactions', { ...args, confirm_token: held.confirm_token }));
    expect((await rawTxn(id)).subtransactions).toHaveLength(2);

    // A memo is no split: applied at once, as before.
    const other = await plain('First Split Kiosk');
    const memo = ok(await h.call('update_transactions', { transactions: [{ id: other, memo: 'no split' }] }));
    expect(memo.preview).toBeUndefined();
    expect((await rawTxn(other)).memo).toBe('no split');
  });
});
