/**
 * A write that files money under a hidden category is held (issue 58 item 7): a scheduled
 * transaction filed under the demo budget's hidden "Gym Membership" ("Cancelled; we run outside
 * now"), a transaction, a split line, an assignment and a move of money into it each answer with a
 * preview whose notice says the category is hidden, and nothing is written; the same call with its
 * confirm_token writes it. A write to a visible category is not held. Through a real MCP client
 * against the sandbox (direct mode, the default), on three seeds; which categories are hidden, and
 * what was written, are read from the sandbox's raw API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, type Raw } from '../insights/raw.js';

const today = new Date().toISOString().slice(0, 10);
const month = `${today.slice(0, 7)}-01`;
const u = Date.now().toString(36);

describe.each(['test', 'hidden-a', 'hidden-b'])('a write to a hidden category, seed %s', (seed) => {
  let h: McpHarness;
  let r: Raw;
  let hidden: any;
  let visible: any;
  const said = () => `${JSON.stringify(hidden.name)} is a hidden category (in ${hidden.group.name}): confirm only if the user means to file money there.`;

  beforeAll(async () => {
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
    const internal = (c: any) => c.group.name === 'Internal Master Category' || c.group.name === 'Credit Card Payments';
    hidden = r.categories.find((c) => c.hidden && !c.deleted && !internal(c));
    expect(hidden, 'the demo budget has a hidden category').toBeTruthy();
    expect(hidden.name).toBe('Gym Membership');
    visible = r.categories.find((c) => !c.hidden && !c.group.hidden && !c.deleted && !internal(c));
  });
  afterAll(() => h.close());

  const scheduledNow = async () => (await h.sb.get(`${r.b}/scheduled_transactions`)).body.data.scheduled_transactions.filter((s: any) => !s.deleted);

  it('create_scheduled_transaction under it is held, saying it is hidden; its confirm_token files it', async () => {
    const before = await scheduledNow();
    const args = {
      budget_id: r.budget.id,
      account_id: 'Everyday Checking',
      date: addDays(today, 5),
      amount: -19.99,
      payee_name: 'Gym',
      category_id: hidden.id,
      frequency: 'monthly',
    };
    const { preview, result } = await confirmed(h, 'create_scheduled_transaction', args);
    expect(preview.notices).toContain(said());
    expect(preview.message).toMatch(/filing money under a hidden category is confirmed first/);
    // The summary names it too: it is what the client's confirmation dialog asks.
    expect(preview.summary).toMatch(new RegExp(`\\(into hidden "${hidden.name}"\\)$`));
    const made = ok(result).scheduled_transaction;
    const after = await scheduledNow();
    expect(after).toHaveLength(before.length + 1);
    expect(after.find((s: any) => s.id === made.id).category_id).toBe(hidden.id);
  });

  it('update_scheduled_transaction into it is held the same way', async () => {
    const s = (await scheduledNow()).find((x: any) => x.category_id && x.category_id !== hidden.id && !x.subtransactions?.length);
    const held = ok(
      await h.call('update_scheduled_transaction', {
        budget_id: r.budget.id,
        scheduled_transaction_id: s.id,
        account_id: s.account_id,
        date: s.date_next,
        category_id: hidden.name,
      }),
    );
    expect(held).toMatchObject({ preview: true });
    expect(held.notices).toContain(said());
    expect((await scheduledNow()).find((x: any) => x.id === s.id).category_id).toBe(s.category_id);
  });

  it('a transaction, a split line, an assignment and a move into it are held; to a visible category nothing is', async () => {
    const tx = { account_id: 'Everyday Checking', date: today, amount: -7.5, payee_name: `Hidden ${u}` };
    const create = await confirmed(h, 'create_transactions', { budget_id: r.budget.id, transactions: [{ ...tx, category_id: hidden.id }] });
    expect(create.preview.notices).toContain(said());
    const id = ok(create.result).transaction_ids[0];
    expect((await h.sb.get(`${r.b}/transactions/${id}`)).body.data.transaction.category_id).toBe(hidden.id);

    const plain = ok(await h.call('create_transactions', { budget_id: r.budget.id, transactions: [{ ...tx, amount: -7.75, category_id: visible.id }] }));
    expect(plain.preview).toBeUndefined();
    expect(plain.transaction_ids).toHaveLength(1);

    const split = ok(
      await h.call('split_transaction', {
        budget_id: r.budget.id,
        transaction_id: plain.transaction_ids[0],
        subtransactions: [
          { amount: -5, category_id: visible.id },
          { amount: -2.75, category_id: hidden.id },
        ],
      }),
    );
    expect(split.notices).toContain(said());

    const assigned = (await r.month(month)).categories.find((c: any) => c.id === hidden.id).budgeted;
    const assign = ok(await h.call('update_month_category', { budget_id: r.budget.id, month: 'current', category_id: hidden.id, budgeted: 25 }));
    expect(assign).toMatchObject({ preview: true });
    expect(assign.notices).toContain(said());
    const fresh = (await h.sb.get(`${r.b}/months/${month}/categories/${hidden.id}`)).body.data.category;
    expect(fresh.budgeted).toBe(assigned);

    const move = ok(
      await h.call('move_money', { budget_id: r.budget.id, amount: 1, from_category_id: visible.id, to_category_id: hidden.id, allow_overspend: true }),
    );
    expect(move).toMatchObject({ preview: true });
    expect(move.notices).toContain(said());
    // Money out of it is no filing under it.
    const out = ok(
      await h.call('move_money', { budget_id: r.budget.id, amount: 0.01, from_category_id: hidden.id, to_category_id: visible.id, allow_overspend: true }),
    );
    expect(out.preview).toBeUndefined();
  });
});
