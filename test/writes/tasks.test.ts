/**
 * The task-shaped writes through a real MCP client against the sandbox over HTTP, with names
 * for ids, checked against the API's raw answers:
 *  - create_transfer: both sides present exactly once, linked, with the category only on the
 *    budget side of a budget → tracking transfer (asked for when missing) and Ready to Assign on
 *    tracking → budget;
 *  - move_money: both assignments; when the second is refused, the first is put back (and when
 *    that fails too, the result says where the money is);
 *  - approve_transactions / recategorize_transactions: ids or the search filter (without
 *    expected_count, a preview); a count that does not hold previews and writes nothing; splits and
 *    transfers are skipped with the reason;
 *  - split_transaction: a plain transaction becomes a split keeping its id; a split is rewritten
 *    (delete + create) keeping date, cleared, approved, flag and import id, preview first; an
 *    import id that YNAB would match elsewhere is dropped and said so; a create refused after the
 *    delete puts the original back, journaled as a change of its own (not undoable: only the id
 *    changed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, currentMonth } from '../../src/api/dates.js';
import { cutProxy, type CutProxy } from '../helpers/cut-proxy.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
const month = currentMonth();
let h: McpHarness;
let budget: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'tasks' } });
  budget = h.sb.state.budgets[0]!.id;
});
afterAll(() => h.close());

const get = async (path: string) => (await h.sb.get(`/budgets/${budget}${path}`)).body.data;
const accountId = (name: string) => [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === name)!.id;
const categoryId = (name: string) => [...h.sb.state.budgets[0]!.rec.categories.values()].find((c) => c.name === name)!.id;
const sides = async (account: string, memo: string) =>
  (await get(`/accounts/${accountId(account)}/transactions?since_date=${addDays(today, -3)}`)).transactions.filter((t: any) => t.memo === memo);

describe('create_transfer', () => {
  it('makes both sides once between two budget accounts, by name, without a category', async () => {
    const res = ok(
      await h.call('create_transfer', { from_account_id: 'everyday checking', to_account_id: 'Rainy Day Savings', amount: 125.5, memo: 'to savings' }),
    );
    const [from] = await sides('Everyday Checking', 'to savings');
    const [to] = await sides('Rainy Day Savings', 'to savings');
    expect(await sides('Everyday Checking', 'to savings')).toHaveLength(1);
    expect(await sides('Rainy Day Savings', 'to savings')).toHaveLength(1);
    expect(from).toMatchObject({
      amount: -125_500,
      transfer_account_id: accountId('Rainy Day Savings'),
      transfer_transaction_id: to.id,
      category_id: null,
      approved: true,
    });
    expect(to).toMatchObject({ amount: 125_500, transfer_account_id: accountId('Everyday Checking'), transfer_transaction_id: from.id, category_id: null });
    expect(res.transfer.from).toMatchObject({ id: from.id, amount_formatted: from.amount_formatted, account_name: 'Everyday Checking' });
    expect(res.transfer.to).toMatchObject({ id: to.id, amount_formatted: to.amount_formatted, account_name: 'Rainy Day Savings' });
    expect(res.transaction_ids.sort()).toEqual([from.id, to.id].sort());
    expect(res.change_id).toMatch(/^ch-/);
  });

  it('asks for a category from a budget to a tracking account, and puts it on the budget side', async () => {
    const asked = await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Lake Cabin Mortgage', amount: 900, memo: 'cabin' });
    expect(asked.isError).toBe(true);
    expect(asked.content[0].text).toMatch(
      /category_id is needed: money moving from the budget account "Everyday Checking" to the tracking account "Lake Cabin Mortgage" leaves the budget/,
    );
    expect(await sides('Everyday Checking', 'cabin')).toHaveLength(0);
    ok(
      await h.call('create_transfer', {
        from_account_id: 'Everyday Checking',
        to_account_id: 'Lake Cabin Mortgage',
        amount: 900,
        memo: 'cabin',
        category_id: 'Cabin Mortgage',
      }),
    );
    const [from] = await sides('Everyday Checking', 'cabin');
    const [to] = await sides('Lake Cabin Mortgage', 'cabin');
    expect(from).toMatchObject({ amount: -900_000, category_id: categoryId('Cabin Mortgage') });
    expect(to).toMatchObject({ amount: 900_000, category_id: null, transfer_transaction_id: from.id });
  });

  it('from a tracking account into the budget lands in Ready to Assign; refuses a category between budget accounts', async () => {
    ok(await h.call('create_transfer', { from_account_id: 'Lake Cabin Mortgage', to_account_id: 'Everyday Checking', amount: 50, memo: 'back in' }));
    const [to] = await sides('Everyday Checking', 'back in');
    expect(to).toMatchObject({ amount: 50_000, category_id: categoryId('Inflow: Ready to Assign') });
    expect((await sides('Lake Cabin Mortgage', 'back in'))[0]).toMatchObject({ amount: -50_000, category_id: null });
    const refused = await h.call('create_transfer', { from_account_id: 'Wallet', to_account_id: 'Everyday Checking', amount: 5, category_id: 'Groceries' });
    expect(refused.content[0].text).toMatch(/category_id is only taken for a transfer between a budget account and a tracking account/);
  });
});

describe('move_money', () => {
  it('moves assigned money between two categories, by name', async () => {
    const before = (await get(`/months/${month}`)).month.categories;
    const was = (name: string) => before.find((c: any) => c.name === name);
    // What the demo leaves available in Fun Money depends on the day; a move that overspends it
    // is previewed first (test/writes/move-overspend.test.ts), which is not what this test is about.
    const res = ok(await h.call('move_money', { from_category_id: 'Fun Money', to_category_id: 'groceries', amount: 40, allow_overspend: true }));
    const after = (await get(`/months/${month}`)).month.categories;
    const now = (name: string) => after.find((c: any) => c.name === name);
    expect(now('Fun Money').budgeted).toBe(was('Fun Money').budgeted - 40_000);
    expect(now('Groceries').budgeted).toBe(was('Groceries').budgeted + 40_000);
    expect(res.from).toMatchObject({
      name: 'Fun Money',
      assigned: now('Fun Money').budgeted,
      available: now('Fun Money').balance,
      available_formatted: now('Fun Money').balance_formatted,
    });
    expect(res.to).toMatchObject({ name: 'Groceries', assigned: now('Groceries').budgeted, available: now('Groceries').balance });
    expect(res.moved_formatted).toBe('$40.00');
  });

  describe('when the second assignment is refused', () => {
    let proxied: McpHarness;
    let proxy: CutProxy;
    beforeAll(async () => {
      proxied = await mcpHarness({ sandbox: { seed: 'tasks-move' }, via: async (url) => (proxy = await cutProxy(url)).baseUrl });
    });
    afterAll(() => proxied.close());

    const assigned = async (name: string) => {
      const b = proxied.sb.state.budgets[0]!;
      return (await proxied.sb.get(`/budgets/${b.id}/months/${month}`)).body.data.month.categories.find((c: any) => c.name === name).budgeted;
    };
    const path = (name: string) =>
      new RegExp(`/months/${month}/categories/${[...proxied.sb.state.budgets[0]!.rec.categories.values()].find((c) => c.name === name)!.id}$`);

    it('puts the first back and says nothing was moved', async () => {
      const fun = await assigned('Fun Money');
      const dining = await assigned('Dining Out');
      void proxy.cut({ method: 'PATCH', path: path('Dining Out'), when: 'refuse', refuse: { status: 400, detail: 'budgeted is refused here' } });
      const res = await proxied.call('move_money', { from_category_id: 'Fun Money', to_category_id: 'Dining Out', amount: 10, allow_overspend: true });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/budgeted is refused here\. Nothing was moved: "Fun Money" was given back its \$/);
      expect(await assigned('Fun Money')).toBe(fun);
      expect(await assigned('Dining Out')).toBe(dining);
    });

    it('says exactly where the money is when putting it back fails too', async () => {
      const fun = await assigned('Fun Money');
      void proxy.cut({ method: 'PATCH', path: path('Dining Out'), when: 'refuse', refuse: { status: 400, detail: 'refused once' } });
      void proxy.cut({ method: 'PATCH', path: path('Fun Money'), nth: 2, when: 'refuse', refuse: { status: 400, detail: 'refused twice' } });
      const res = await proxied.call('move_money', { from_category_id: 'Fun Money', to_category_id: 'Dining Out', amount: 10, allow_overspend: true });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(
        /The money was taken from "Fun Money" \(assigned now .*\) but not given to "Dining Out" .* putting it back failed too \(.*refused twice\): that \$10\.00 is in Ready to Assign/,
      );
      expect(await assigned('Fun Money')).toBe(fun - 10_000);
      // What stayed done is journaled: the error names the change, and undo_change puts it back.
      const changeId = /recorded as change (\S+): undo_change puts it back/.exec(res.content[0].text)?.[1];
      expect(changeId, res.content[0].text).toBeDefined();
      const recent = ok(await proxied.call('list_recent_changes', {})).changes;
      expect(recent[0]).toMatchObject({ change_id: changeId, tool: 'move_money' });
      expect(recent[0].summary).toMatch(/Took \$10\.00 from "Fun Money".*moving it to "Dining Out" failed/);
      const { result } = await confirmed(proxied, 'undo_change', { change_id: changeId });
      ok(result);
      expect(await assigned('Fun Money')).toBe(fun);
    });
  });
});

describe('approve_transactions and recategorize_transactions', () => {
  async function unapproved(memo: string, n: number, amount = -3): Promise<string[]> {
    const items = Array.from({ length: n }, (_, i) => ({
      account_id: 'Wallet',
      date: today,
      amount: amount - i,
      payee_name: `Approve ${memo}`,
      memo,
      approved: false,
    }));
    return ok(await h.call('create_transactions', { transactions: items })).transaction_ids;
  }
  const raw = async (id: string) => (await get(`/transactions/${id}`)).transaction;

  it('by ids: a few are approved at once', async () => {
    const ids = await unapproved('few', 3);
    const res = ok(await h.call('approve_transactions', { transaction_ids: ids }));
    expect(res.updated).toBe(3);
    for (const id of ids) expect((await raw(id)).approved).toBe(true);
  });

  it('by filter: without the count a preview (issue 58 item 8); more than 5 preview first; the token applies', async () => {
    const ids = await unapproved('filtered', 7, -70);
    const filter = { query: 'Approve filtered', approved: false };
    const missing = ok(await h.call('approve_transactions', filter));
    expect(missing).toMatchObject({ preview: true, matched: 7, count: 7 });
    expect(missing.message).toMatch(/a write by filter without expected_count is confirmed first/);
    const count = ok(await h.call('search_transactions', filter)).count;
    expect(count).toBe(7);
    const { preview, result } = await confirmed(h, 'approve_transactions', { ...filter, expected_count: count });
    expect(preview).toMatchObject({ matched: 7, expected_count: 7, count: 7 });
    expect(ok(result).updated).toBe(7);
    for (const id of ids) expect((await raw(id)).approved).toBe(true);
  });

  it('a count that does not hold writes nothing and previews what matched', async () => {
    const ids = await unapproved('mismatch', 2, -90);
    const k = h.sb.state.budgets[0]!.knowledge;
    const res = ok(await h.call('approve_transactions', { query: 'Approve mismatch', expected_count: 3 }));
    expect(res).toMatchObject({ preview: true, matched: 2, expected_count: 3 });
    expect(res.notices.join(' ')).toMatch(/expected_count 3 does not hold: 2 transactions match/);
    expect(res.message).toMatch(/the expected count does not hold/);
    expect(h.sb.state.budgets[0]!.knowledge).toBe(k);
    for (const id of ids) expect((await raw(id)).approved).toBe(false);
  });

  it('expected_count is the count search_transactions gave, split lines included: it holds with that count, and with the number of transactions it previews saying both', async () => {
    const split = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [
          {
            account_id: 'Wallet',
            date: today,
            amount: -30,
            payee_name: 'Approve lines',
            memo: 'lines',
            approved: false,
            subtransactions: [
              { amount: -10, category_id: 'Coffee' },
              { amount: -20, category_id: 'Groceries' },
            ],
          },
        ],
      }),
    ).transaction_ids[0];
    const plain = await unapproved('lines', 1, -12);
    const filter = { query: 'Approve lines', approved: false };
    const found = ok(await h.call('search_transactions', filter));
    expect(found.count).toBe(3);
    const held = ok(await h.call('approve_transactions', { ...filter, expected_count: 2 }));
    expect(held).toMatchObject({ preview: true, matched: 2, matched_lines: 3, expected_count: 2 });
    expect(held.notices.join(' ')).toMatch(/expected_count 2 does not hold: 3 lines match \(as search_transactions counts them\), in 2 transactions/);
    expect((await raw(split)).approved).toBe(false);
    const res = ok(await h.call('approve_transactions', { ...filter, expected_count: found.count }));
    expect(res.preview).toBeUndefined();
    expect(res.updated).toBe(2);
    for (const id of [split, ...plain]) expect((await raw(id)).approved).toBe(true);
  });

  it('recategorizes by filter, skipping splits and transfers with the reason', async () => {
    const plain = await unapproved('recat', 2, -11);
    const split = ok(
      await h.call('create_transactions', {
        allow_duplicate: true,
        transactions: [
          {
            account_id: 'Wallet',
            date: today,
            amount: -20,
            payee_name: 'Approve recat',
            memo: 'recat',
            subtransactions: [
              { amount: -5, category_id: 'Coffee' },
              { amount: -15, category_id: 'Groceries' },
            ],
          },
        ],
      }),
    ).transaction_ids[0];
    // The split's two lines both match: search_transactions counts 4, in 3 transactions.
    const counted = ok(await h.call('search_transactions', { query: 'Approve recat' }));
    expect(counted.count).toBe(4);
    const res = ok(await h.call('recategorize_transactions', { query: 'Approve recat', new_category_id: 'Household Supplies', expected_count: counted.count }));
    expect(res.updated).toBe(2);
    expect(res.skipped).toEqual([{ id: split, reason: expect.stringMatching(/a split: its lines carry the categories/) }]);
    for (const id of plain) expect((await raw(id)).category_id).toBe(categoryId('Household Supplies'));
    expect((await raw(split)).subtransactions.map((x: any) => x.category_id).sort()).toEqual([categoryId('Coffee'), categoryId('Groceries')].sort());
  });
});

describe('split_transaction', () => {
  const raw = async (id: string) => (await h.sb.get(`/budgets/${budget}/transactions/${id}`)).body;

  it('makes a plain transaction a split, keeping its id, after a preview', async () => {
    const id = ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: 'Everyday Checking', date: today, amount: -80, payee_name: 'Split Mart', memo: 'to split', category_id: 'Groceries' }],
      }),
    ).transaction_ids[0];
    const { preview, result } = await confirmed(h, 'split_transaction', {
      transaction_id: id,
      subtransactions: [
        { amount: -50, category_id: 'Groceries' },
        { amount: -30, category_id: 'Household Supplies', memo: 'soap' },
      ],
    });
    expect(preview.changes[0]).toMatchObject({ action: 'update', id, current: { category_name: 'Groceries', amount_formatted: '-$80.00' } });
    expect(preview.kept).toContain('id');
    expect(ok(result).transaction.id).toBe(id);
    const t = (await raw(id)).data.transaction;
    expect(t.subtransactions.map((x: any) => [x.amount, x.category_id, x.memo])).toEqual(
      expect.arrayContaining([
        [-50_000, categoryId('Groceries'), null],
        [-30_000, categoryId('Household Supplies'), 'soap'],
      ]),
    );
  });

  it('rewrites a split: the old one goes, a new one keeps date, cleared, approved, flag and import id', async () => {
    const created = ok(
      await h.call('create_transactions', {
        transactions: [
          {
            account_id: 'Visa Rewards',
            date: addDays(today, -20),
            amount: -120,
            payee_name: 'Rewrite Store',
            memo: 'rewrite me',
            cleared: 'cleared',
            approved: true,
            flag_color: 'purple',
            import_id: 'split-rewrite-import-1',
            subtransactions: [
              { amount: -100, category_id: 'Groceries' },
              { amount: -20, category_id: 'Coffee' },
            ],
          },
        ],
      }),
    );
    const id = created.transaction_ids[0];
    const lines = [
      { amount: -60, category_id: 'Groceries' },
      { amount: -40, category_id: 'Household Supplies' },
      { amount: -30, category_id: 'Coffee', memo: 'beans' },
    ];
    const refused = await h.call('split_transaction', { transaction_id: id, subtransactions: lines });
    expect(refused.content[0].text).toMatch(
      /the lines add up to -\$130\.00 but the transaction's amount is -\$120\.00: make them add up, or give amount for a new total/,
    );
    const args = { transaction_id: id, amount: -130, subtransactions: lines };
    const preview = ok(await h.call('split_transaction', args));
    expect(preview.message).toMatch(/split rewrites are confirmed first/);
    expect(preview.changes.map((c: any) => c.action)).toEqual(['delete', 'create']);
    expect(preview.kept).toEqual(expect.arrayContaining(['date', 'cleared', 'approved', 'flag color', 'import id']));
    expect((await raw(id)).data.transaction.deleted).toBe(false);
    const done = ok(await h.call('split_transaction', { ...args, confirm_token: preview.confirm_token }));
    expect(done.replaced).toBe(id);
    expect(done.notices.join(' ')).toMatch(/created again with a new id/);
    expect((await h.sb.get(`/budgets/${budget}/transactions/${id}`)).status).toBe(404);
    const t = (await raw(done.transaction.id)).data.transaction;
    expect(t).toMatchObject({
      date: addDays(today, -20),
      amount: -130_000,
      cleared: 'cleared',
      approved: true,
      flag_color: 'purple',
      import_id: 'split-rewrite-import-1',
      memo: 'rewrite me',
      account_id: accountId('Visa Rewards'),
    });
    expect(t.subtransactions.map((x: any) => x.amount).sort((a: number, b: number) => a - b)).toEqual([-60_000, -40_000, -30_000]);
  });

  it('drops an import id that YNAB would match into another transaction, and says so', async () => {
    const hand = ok(
      await h.call('create_transactions', { transactions: [{ account_id: 'Wallet', date: addDays(today, -3), amount: -45, payee_name: 'Hand Entered' }] }),
    ).transaction_ids[0];
    const id = ok(
      await h.call('create_transactions', {
        transactions: [
          {
            account_id: 'Wallet',
            date: today,
            amount: -44,
            payee_name: 'Imported',
            import_id: 'split-match-1',
            subtransactions: [
              { amount: -40, category_id: 'Groceries' },
              { amount: -4, category_id: 'Coffee' },
            ],
          },
        ],
      }),
    ).transaction_ids[0];
    const { preview, result } = await confirmed(h, 'split_transaction', {
      transaction_id: id,
      amount: -45,
      subtransactions: [
        { amount: -41, category_id: 'Groceries' },
        { amount: -4, category_id: 'Coffee' },
      ],
    });
    expect(preview.not_kept.join(' ')).toMatch(/the import id "split-match-1": with it YNAB would match the new split into transaction/);
    const t = (await raw(ok(result).transaction.id)).data.transaction;
    expect(t.import_id).toBeNull();
    expect((await raw(hand)).data.transaction.import_id).toBeNull();
  });

  it('puts the original back when the create is refused after the delete, journaled as a change of its own that says why it cannot be undone', async () => {
    const proxied = await (async () => {
      let proxy!: CutProxy;
      const p = await mcpHarness({ sandbox: { seed: 'tasks-split' }, via: async (url) => (proxy = await cutProxy(url)).baseUrl });
      return { p, proxy };
    })();
    try {
      const { p, proxy } = proxied;
      const b = p.sb.state.budgets[0]!;
      const id = ok(
        await p.call('create_transactions', {
          transactions: [
            {
              account_id: 'Wallet',
              date: today,
              amount: -30,
              payee_name: 'Restore Me',
              memo: 'original',
              subtransactions: [
                { amount: -10, category_id: 'Coffee' },
                { amount: -20, category_id: 'Groceries' },
              ],
            },
          ],
        }),
      ).transaction_ids[0];
      const preview = ok(
        await p.call('split_transaction', {
          transaction_id: id,
          subtransactions: [
            { amount: -15, category_id: 'Coffee' },
            { amount: -15, category_id: 'Groceries' },
          ],
        }),
      );
      void proxy.cut({ method: 'POST', path: /\/transactions$/, when: 'refuse', refuse: { status: 400, detail: 'no new split today' } });
      const res = await p.call('split_transaction', {
        transaction_id: id,
        subtransactions: [
          { amount: -15, category_id: 'Coffee' },
          { amount: -15, category_id: 'Groceries' },
        ],
        confirm_token: preview.confirm_token,
      });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(
        /creating the new split failed \(.*no new split today.*\), so the original was created again as it was, with a new id ([0-9a-f-]{36})\. The budget holds the original split/,
      );
      const again = /new id ([0-9a-f-]{36})/.exec(res.content[0].text)![1]!;
      const t = (await p.sb.get(`/budgets/${b.id}/transactions/${again}`)).body.data.transaction;
      expect(t).toMatchObject({ amount: -30_000, memo: 'original' });
      expect(t.subtransactions.map((x: any) => x.amount).sort((a: number, b: number) => a - b)).toEqual([-20_000, -10_000]);
      expect((await p.sb.get(`/budgets/${b.id}/transactions/${id}`)).status).toBe(404);
      // The budget changed (the original has a new id): that is a change of its own, named in the
      // error. Undoing it would only delete the original and create it once more, so it says why not.
      const changeId = /recorded as change (\S+) \(list_recent_changes shows it; there is nothing for undo_change to put back\)/.exec(res.content[0].text)?.[1];
      expect(changeId, res.content[0].text).toBeDefined();
      const [listed] = ok(await p.call('list_recent_changes', { limit: 1 })).changes;
      expect(listed).toMatchObject({ change_id: changeId, tool: 'split_transaction', count: 2, undoable: false });
      expect(listed.summary).toMatch(new RegExp(`Created the split transaction ${id} .* again as it was, with a new id ${again} \\(rewriting it failed\\)`));
      expect(listed.why_not).toMatch(new RegExp(`put the original split back as it was, with a new id ${again}`));
      const k = b.knowledge;
      const undone = await p.call('undo_change', { change_id: changeId });
      expect(undone.isError).toBe(true);
      expect(undone.content[0].text).toMatch(/cannot be undone: it put the original split back as it was/);
      expect(b.knowledge).toBe(k);
    } finally {
      await proxied.p.close();
    }
  });

  it('when putting the original back is refused too, the delete is journaled and undo_change re-creates it', async () => {
    let proxy!: CutProxy;
    const p = await mcpHarness({ sandbox: { seed: 'tasks-split-2' }, via: async (url) => (proxy = await cutProxy(url)).baseUrl });
    try {
      const b = p.sb.state.budgets[0]!;
      const lines = [
        { amount: -10, category_id: 'Coffee' },
        { amount: -20, category_id: 'Groceries' },
      ];
      const id = ok(
        await p.call('create_transactions', {
          transactions: [{ account_id: 'Wallet', date: today, amount: -30, payee_name: 'Lost Split', memo: 'keep me', subtransactions: lines }],
        }),
      ).transaction_ids[0];
      const next = [
        { amount: -15, category_id: 'Coffee' },
        { amount: -15, category_id: 'Groceries' },
      ];
      const preview = ok(await p.call('split_transaction', { transaction_id: id, subtransactions: next }));
      void proxy.cut({ method: 'POST', path: /\/transactions$/, when: 'refuse', refuse: { status: 400, detail: 'no new split today' } });
      void proxy.cut({ method: 'POST', path: /\/transactions$/, when: 'refuse', refuse: { status: 400, detail: 'nor the old one' } });
      const res = await p.call('split_transaction', { transaction_id: id, subtransactions: next, confirm_token: preview.confirm_token });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/creating the original again failed too \(.*nor the old one.*\)\. The budget no longer holds/);
      expect((await p.sb.get(`/budgets/${b.id}/transactions/${id}`)).status).toBe(404);
      const changeId = /recorded as change (\S+): undo_change puts it back/.exec(res.content[0].text)?.[1];
      expect(changeId, res.content[0].text).toBeDefined();
      const { result } = await confirmed(p, 'undo_change', { change_id: changeId });
      const back = ok(result);
      expect(JSON.stringify(back)).toMatch(/new id/);
      const again = (await p.sb.get(`/budgets/${b.id}/transactions`)).body.data.transactions.filter((t: any) => t.memo === 'keep me' && !t.deleted);
      expect(again).toHaveLength(1);
      expect(again[0]).toMatchObject({ amount: -30_000 });
      expect(again[0].subtransactions.map((x: any) => x.amount).sort((a: number, c: number) => a - c)).toEqual([-20_000, -10_000]);
    } finally {
      await p.close();
    }
  });
});
