/**
 * What writes are checked for before anything is sent, through a real MCP client against the
 * sandbox over HTTP (its two demo budgets give ids of another budget):
 *  - a task write of several requests refuses, before its preview or its first request, any
 *    account, category or payee id (split lines' too) that is not this budget's: of another
 *    budget, unknown, or deleted; an undo that would create again what names such an id is
 *    refused the same way;
 *  - a preview (delete, update, bulk, task) of an entity this budget does not hold, or has seen
 *    deleted, is refused with "not found" or "already deleted", and no confirm_token;
 *  - a create or transfer into a closed account is made, as YNAB makes it, with a notice that the
 *    account is closed.
 * Expectations come from the API's raw answers and the sandbox's own records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { afterOutsideChange, confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'checks' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const home = () => h.sb.state.budgets[0]!;
/** "Haushalt Berlin": its ids are of another budget. */
const other = () => h.sb.state.budgets[1]!;
const knowledge = () => home().knowledge;
const named = <T extends { name: string }>(m: Map<string, T>, name: string) => [...m.values()].find((x) => x.name === name)!;
const foreignCategory = () => [...other().rec.categories.values()].find((c) => !c.deleted && c.role === null)!.id;
const foreignPayee = () => [...other().rec.payees.values()].find((p) => !p.deleted && !p.transfer_account_id)!.id;
const foreignTransaction = () => [...other().rec.transactions.values()].find((t) => !t.deleted)!.id;
const raw = async (id: string) => h.sb.get(`/budgets/${budget}/transactions/${id}`);

async function split(memo: string): Promise<string> {
  const lines = [
    { amount: -10, category_id: 'Coffee' },
    { amount: -20, category_id: 'Groceries' },
  ];
  return ok(
    await h.call('create_transactions', {
      allow_duplicate: true,
      transactions: [{ account_id: 'Wallet', date: today, amount: -30, payee_name: 'Checked Split', memo, subtransactions: lines }],
    }),
  ).transaction_ids[0];
}

describe('a write of several requests checks every id it will send first', () => {
  it('split_transaction: a line category or payee of another budget, or unknown, is refused at the preview, with no token; nothing is sent', async () => {
    const id = await split('split ids');
    const k = knowledge();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ amount: -15, category_id: foreignCategory() }, /subtransactions\[1\]\.category_id "[0-9a-f-]{36}": no category of this budget has that id/],
      [
        { amount: -15, category_id: '00000000-0000-4000-8000-000000000001' },
        /subtransactions\[1\]\.category_id "00000000-0000-4000-8000-000000000001": no category of this budget has that id/,
      ],
      [
        { amount: -15, category_id: 'Groceries', payee_id: foreignPayee() },
        /subtransactions\[1\]\.payee_id "[0-9a-f-]{36}": no payee of this budget has that id/,
      ],
    ];
    for (const [line, message] of cases) {
      const res = await h.call('split_transaction', { transaction_id: id, subtransactions: [{ amount: -15, category_id: 'Coffee' }, line] });
      expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
      expect(res.content[0].text).toMatch(message);
      expect(res.content[0].text).not.toMatch(/confirm_token/);
    }
    expect(knowledge()).toBe(k);
    expect((await raw(id)).body.data.transaction.subtransactions).toHaveLength(2);
  });

  it('create_transfer and move_money: an account or category of another budget is refused before anything is sent', async () => {
    const k = knowledge();
    const transfer = await h.call('create_transfer', {
      from_account_id: 'Everyday Checking',
      to_account_id: 'Lake Cabin Mortgage',
      amount: 12.34,
      category_id: foreignCategory(),
    });
    expect(transfer.content[0].text).toMatch(/category_id "[0-9a-f-]{36}": no category of this budget has that id/);
    const foreignAccount = [...other().rec.accounts.values()][0]!.id;
    const across = await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: foreignAccount, amount: 12.34 });
    expect(across.content[0].text).toMatch(/to_account_id "[0-9a-f-]{36}": no account of this budget has that id/);
    const move = await h.call('move_money', { from_category_id: 'Fun Money', to_category_id: foreignCategory(), amount: 1 });
    expect(move.content[0].text).toMatch(/to_category_id "[0-9a-f-]{36}": no category of this budget has that id/);
    expect(knowledge()).toBe(k);
  });

  it('undo_change that would create again a transaction whose category was deleted since is refused before anything is sent', async () => {
    const group = [...home().rec.category_groups.values()].find((g) => g.role === null && !g.hidden && !g.deleted)!;
    const category = ok(await h.call('create_category', { category_group_id: group.id, name: `Short-lived ${Date.now()}` })).category;
    const id = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [{ account_id: 'Wallet', date: today, amount: -4.2, payee_name: 'Gone Category', category_id: category.id }],
      }),
    ).transaction_ids[0];
    const deleted = ok((await confirmed(h, 'delete_transaction', { transaction_id: id })).result);
    // The user deletes the category in YNAB's app.
    home().change(() => {
      home().stamp(home().rec.categories.get(category.id)!).deleted = true;
    });
    // The delete's answer read the budget back (its after-state): the undo's preview sees the app's change a second on.
    await afterOutsideChange();
    const k = knowledge();
    const res = await h.call('undo_change', { change_id: deleted.change_id });
    expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
    expect(res.content[0].text).toMatch(
      new RegExp(`cannot be undone: transaction .* would be created again, but its category ${category.id}: already deleted\\. Nothing was changed`),
    );
    expect(knowledge()).toBe(k);
  });
});

describe('a preview is of something', () => {
  it('delete_transaction of a transaction of another budget: not found, no token', async () => {
    const res = await h.call('delete_transaction', { transaction_id: foreignTransaction() });
    expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
    expect(res.content[0].text).toMatch(/transaction [0-9a-f-]{36}: not found in this budget\. Nothing was changed and there is nothing to confirm/);
    expect(res.structuredContent?.confirm_token).toBeUndefined();
  });

  it('delete_transaction of one already deleted: already deleted, no token; a task names it so too', async () => {
    const id = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [{ account_id: 'Wallet', date: today, amount: -2.5, payee_name: 'Twice Deleted' }],
      }),
    ).transaction_ids[0];
    ok((await confirmed(h, 'delete_transaction', { transaction_id: id })).result);
    const again = await h.call('delete_transaction', { transaction_id: id });
    expect(again.isError, JSON.stringify(again.structuredContent)).toBe(true);
    expect(again.content[0].text).toMatch(new RegExp(`transaction ${id}: already deleted\\. Nothing was changed`));
    const approve = await h.call('approve_transactions', { transaction_ids: [id] });
    expect(approve.content[0].text).toMatch(new RegExp(`transaction ${id}: already deleted`));
  });

  it('delete_scheduled_transaction, and a bulk update_transactions naming one unknown id: not found, no token, nothing changed', async () => {
    const gone = await h.call('delete_scheduled_transaction', { scheduled_transaction_id: '00000000-0000-4000-8000-0000000000aa' });
    expect(gone.content[0].text).toMatch(/scheduled transaction 00000000-0000-4000-8000-0000000000aa: not found in this budget/);
    const ids = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: Array.from({ length: 6 }, (_, i) => ({ account_id: 'Wallet', date: today, amount: -1 - i, payee_name: 'Bulk Checked' })),
      }),
    ).transaction_ids;
    const k = knowledge();
    const items = [...ids.map((id: string) => ({ id, memo: 'bulk checked' })), { id: foreignTransaction(), memo: 'bulk checked' }];
    const res = await h.call('update_transactions', { transactions: items });
    expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
    expect(res.content[0].text).toMatch(/transaction [0-9a-f-]{36}: not found in this budget\. Nothing was changed/);
    expect(knowledge()).toBe(k);
  });

  it("undo_change of a change this budget's journal does not hold, or already undone: refused, no token", async () => {
    const unknown = await h.call('undo_change', { change_id: 'ch-not-a-change' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toMatch(/change_id ch-not-a-change: no such change in this budget's undo journal/);
    const made = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [{ account_id: 'Wallet', date: today, amount: -0.5, payee_name: 'Undo Once' }],
      }),
    );
    ok((await confirmed(h, 'undo_change', { change_id: made.change_id })).result);
    const again = await h.call('undo_change', { change_id: made.change_id });
    expect(again.isError).toBe(true);
    expect(again.content[0].text).toMatch(/was already undone by ch-/);
  });

  it("with --writes confirm, an update of another budget's transaction: not found, no token", async () => {
    const c = await mcpHarness({ sandbox: { seed: 'checks-confirm' }, flags: { writes: 'confirm' } });
    try {
      const foreign = [...c.sb.state.budgets[1]!.rec.transactions.values()].find((t) => !t.deleted)!.id;
      const res = await c.call('update_transaction', { transaction_id: foreign, memo: 'not mine' });
      expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
      expect(res.content[0].text).toMatch(/transaction [0-9a-f-]{36}: not found in this budget/);
    } finally {
      await c.close();
    }
  });
});

describe('a closed account', () => {
  const closed = () => named(home().rec.accounts, 'Old Credit Union Checking');

  it('create_transactions into it: created as YNAB creates it, with a notice that the account is closed', async () => {
    expect(closed().closed).toBe(true);
    const res = ok(
      await h.call('create_transactions', { transactions: [{ account_id: 'Old Credit Union Checking', date: today, amount: -3.21, payee_name: 'Late Fee' }] }),
    );
    expect((await raw(res.transaction_ids[0])).body.data.transaction).toMatchObject({ account_id: closed().id, amount: -3_210 });
    expect(res.notices.join(' ')).toMatch(/The account "Old Credit Union Checking" is closed: YNAB takes the transaction into it all the same/);
  });

  it('create_transfer into it: both sides made, with the notice', async () => {
    const res = ok(
      await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Old Credit Union Checking', amount: 7.77, memo: 'into closed' }),
    );
    expect(res.transfer.to).toMatchObject({ account_name: 'Old Credit Union Checking', amount: 7_770 });
    const sides = (await h.sb.get(`/budgets/${budget}/transactions?since_date=${addDays(today, -1)}`)).body.data.transactions.filter(
      (t: any) => t.memo === 'into closed',
    );
    expect(sides.map((t: any) => t.account_id).sort()).toEqual([closed().id, named(home().rec.accounts, 'Everyday Checking').id].sort());
    expect(res.notices.join(' ')).toMatch(/The account "Old Credit Union Checking" is closed/);
  });

  it('create_scheduled_transaction into it: the notice too', async () => {
    const res = ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Old Credit Union Checking',
        date: addDays(today, 3),
        amount: -1,
        payee_name: 'Closed Schedule',
        frequency: 'monthly',
      }),
    );
    expect(res.notices.join(' ')).toMatch(/The account "Old Credit Union Checking" is closed: YNAB takes the scheduled transaction into it all the same/);
  });

  it('a create into an open account has no such notice', async () => {
    const res = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [{ account_id: 'Wallet', date: today, amount: -1.11, payee_name: 'Open Account' }],
      }),
    );
    expect(JSON.stringify(res.notices ?? [])).not.toMatch(/is closed/);
  });
});
