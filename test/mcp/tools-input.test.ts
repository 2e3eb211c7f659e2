/**
 * Tool inputs and modes, through a real MCP client: money as exactly one of a decimal amount or
 * milliunits; specific errors for bad arguments; writes that land and are visible at once;
 * read-only mode (configured, or discovered when YNAB answers 403.3) and toolsets; the default
 * budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function checking(x: McpHarness) {
  return ok(await x.call('list_accounts')).accounts.find((a: any) => a.type === 'checking' && !a.closed);
}

describe('money in', () => {
  it('takes a decimal amount or milliunits, exactly one of them', async () => {
    h = await mcpHarness();
    const account = await checking(h);
    const base = { account_id: account.id, date: today, payee_name: 'Money Rules' };
    const decimal = ok(await h.call('create_transactions', { transactions: [{ ...base, amount: -12.34 }] }));
    expect(decimal.transactions[0]).toMatchObject({ amount: -12_340, amount_formatted: '-$12.34' });
    const milli = ok(await h.call('create_transactions', { transactions: [{ ...base, amount_milliunits: -5_005 }] }));
    expect(milli.transactions[0]).toMatchObject({ amount: -5_005, amount_formatted: '-$5.01' });

    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, amount: -1, amount_milliunits: -1000 }, /give transactions\[0\]\.amount .* or transactions\[0\]\.amount_milliunits .*, not both/],
      [{ ...base }, /transactions\[0\]\.amount is required/],
      [{ ...base, amount: -1.2345 }, /has 4 decimal places; at most 2 are allowed \(the budget's currency has 2; give transactions\[0\]\.amount_milliunits/],
      [{ ...base, amount: -1.234 }, /has 3 decimal places; at most 2/],
      [{ ...base, amount: 0.1 + 0.2 }, /decimal places/],
      [{ ...base, amount_milliunits: 1.5 }, /amount_milliunits: must be an integer/],
      [{ ...base, amount: '12' }, /amount: give -12 or 12 as a number, not the text "12": a purchase is -12; an income or refund is 12$/],
    ];
    for (const [item, message] of cases) {
      const res = await h.call('create_transactions', { transactions: [item] });
      expect(res.isError, JSON.stringify(item)).toBe(true);
      expect(res.content[0].text).toMatch(message);
    }
    // Nothing was written by the refused calls.
    const list = ok(await h.call('list_payee_transactions', { payee_id: decimal.transactions[0].payee_id }));
    expect(list.count).toBe(2);
  });

  it('refuses any fraction of a currency without decimals (JPY), and takes whole amounts', async () => {
    h = await mcpHarness();
    // The second demo budget becomes a yen budget before the server has seen it.
    const budget = h.sb.state.budgets[1]!;
    budget.rec.currency_format = {
      iso_code: 'JPY',
      example_format: '123,456',
      decimal_digits: 0,
      decimal_separator: '.',
      symbol_first: true,
      group_separator: ',',
      currency_symbol: '¥',
      display_symbol: true,
    };
    const account = ok(await h.call('list_accounts', { budget_id: budget.id })).accounts.find((a: any) => a.on_budget && !a.closed);
    const base = { account_id: account.id, date: today, payee_name: 'Yen Rules' };
    for (const amount of [-1200.5, -0.1, -1200.05]) {
      const res = await h.call('create_transactions', { budget_id: budget.id, transactions: [{ ...base, amount }] });
      expect(res.isError, String(amount)).toBe(true);
      expect(res.content[0].text).toMatch(/decimal place.*at most 0 are allowed \(the budget's currency has 0; give transactions\[0\]\.amount_milliunits/);
    }
    const made = ok(await h.call('create_transactions', { budget_id: budget.id, transactions: [{ ...base, amount: -1200 }] }));
    expect(made.transactions[0]).toMatchObject({ amount: -1_200_000, amount_formatted: '-¥1,200' });
    const list = ok(await h.call('list_payee_transactions', { budget_id: budget.id, payee_id: made.transactions[0].payee_id }));
    expect(list.count).toBe(1);
  });

  it('splits money the same way in split lines and assigns with budgeted', async () => {
    h = await mcpHarness();
    const account = await checking(h);
    const cats = ok(await h.call('list_categories'))
      .category_groups.filter((g: any) => !g.internal)
      .flatMap((g: any) => g.categories);
    const res = ok(
      await h.call('create_transactions', {
        transactions: [
          {
            account_id: account.id,
            date: today,
            amount: -30,
            payee_name: 'Split Shop',
            subtransactions: [
              { amount: -20, category_id: cats[0].id },
              { amount_milliunits: -10_000, category_id: cats[1].id },
            ],
          },
        ],
      }),
    );
    expect(res.transactions[0].category_name).toBe('Split');
    expect(res.transactions[0].subtransactions.map((x: any) => x.amount)).toEqual([-20_000, -10_000]);
    const before = ok(await h.call('get_month', { month: 'current', fields: ['assigned'] }));
    const assigned = ok(await h.call('update_month_category', { month: 'current', category_id: cats[2].id, budgeted: 123.45 }));
    expect(assigned.category).toMatchObject({ id: cats[2].id, assigned: 123_450, assigned_formatted: '$123.45' });
    const after = ok(await h.call('get_month', { month: 'current', fields: ['assigned'] }));
    // A compact row leaves out a figure that is zero.
    expect(after.month.assigned - before.month.assigned).toBe(123_450 - (cats[2].assigned ?? 0));
  });
});

describe('bad input', () => {
  it('gets specific errors and never a crash', async () => {
    h = await mcpHarness();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['get_account', { account_id: 'nope' }, /account_id "nope": no account has that id or name\. Searched/],
      ['get_account', { account_id: 'x'.repeat(501) }, /account_id: must be at most 500 characters/],
      ['get_scheduled_transaction', { scheduled_transaction_id: 'nope' }, /scheduled_transaction_id: must be an id as the list tools give it/],
      ['list_transactions', { since_date: '2026-02-01', until_date: '2026-01-31' }, /until_date 2026-01-31 is before since_date 2026-02-01/],
      ['get_account', { account_id: '00000000-0000-4000-8000-000000000000' }, /Not found \(404\.2 resource_not_found\)/],
      ['list_accounts', { colour: 'red' }, /unknown field "colour"/],
      ['get_month', { month: '2024-02-15' }, /must be "current" or the first day of a month/],
      ['list_transactions', { since_date: 'last week' }, /since_date: "last week" is not a date: write it YYYY-MM-DD/],
      ['list_transactions', { limit: 0 }, /limit: must be at least 1/],
      ['create_transactions', { transactions: [] }, /transactions: must hold at least 1 item/],
      ['get_budget', { budget_id: '11111111-1111-4111-8111-111111111111' }, /Not found/],
    ];
    for (const [tool, args, message] of cases) {
      const res = await h.call(tool, args);
      expect(res.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(res.content[0].text).toMatch(message);
    }
    expect(ok(await h.call('get_user')).user.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('writes', () => {
  it('are visible to the next read, with their effects', async () => {
    h = await mcpHarness();
    const account = await checking(h);
    const created = ok(
      await h.call('create_transactions', { transactions: [{ account_id: account.id, date: today, amount: -40, payee_name: 'Visible Now' }] }),
    );
    const id = created.transaction_ids[0];
    expect(ok(await h.call('get_transaction', { transaction_id: id })).transaction.payee_name).toBe('Visible Now');
    const after = ok(await h.call('get_account', { account_id: account.id }));
    expect(after.account.balance).toBe(account.balance - 40_000);
    ok(await h.call('update_transaction', { transaction_id: id, memo: 'changed', approved: true }));
    expect(ok(await h.call('get_transaction', { transaction_id: id })).transaction).toMatchObject({ memo: 'changed', approved: true });
    ok((await confirmed(h, 'delete_transaction', { transaction_id: id })).result);
    const gone = await h.call('get_transaction', { transaction_id: id });
    expect(gone.isError).toBe(true);
  });

  it('report duplicates of an import_id instead of creating them twice', async () => {
    h = await mcpHarness();
    const account = await checking(h);
    const item = { account_id: account.id, date: today, amount: -9.99, payee_name: 'Once Only', import_id: 'mcp-test-import-1' };
    ok(await h.call('create_transactions', { transactions: [item] }));
    const again = ok(await h.call('create_transactions', { transactions: [item] }));
    expect(again.transactions).toEqual([]);
    expect(again.duplicate_import_ids).toEqual(['mcp-test-import-1']);
    expect(again.notices.join(' ')).toMatch(/already existed .* not created again/);
  });
});

describe('modes', () => {
  it('--read-only registers no write tools, and says so', async () => {
    h = await mcpHarness({ flags: { readOnly: true } });
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(42);
    expect(names.some((n) => /^(create|update|delete|import|set)_/.test(n))).toBe(false);
    const res = ok(await h.call('list_accounts'));
    expect(res.read_only).toMatch(/--read-only/);
  });

  it('YNAB_READ_ONLY=1 does the same', async () => {
    h = await mcpHarness({ env: { YNAB_READ_ONLY: '1' } });
    expect((await h.client.listTools()).tools).toHaveLength(42);
  });

  it('a read-only token turns the server read-only when YNAB refuses a change (403.3)', async () => {
    h = await mcpHarness({ token: 'read-only' });
    const account = await checking(h);
    let changed = 0;
    h.client.setNotificationHandler?.('notifications/tools/list_changed' as any, () => {
      changed += 1;
    });
    const refused = await h.call('create_transactions', { transactions: [{ account_id: account.id, date: today, amount: -1, payee_name: 'Nope' }] });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/read-only access \(403\.3 unauthorized_scope\)/);
    expect(h.state.readOnly).toBe(true);
    const after = ok(await h.call('list_accounts'));
    expect(after.read_only).toMatch(/403\.3/);
    // The write tools are gone from the list.
    await new Promise((r) => setTimeout(r, 50));
    expect((await h.client.listTools()).tools).toHaveLength(42);
    expect(changed).toBeGreaterThan(0);
  });

  it('--toolsets limits the tools', async () => {
    h = await mcpHarness({ flags: { toolsets: 'accounts,months' } });
    const names = (await h.client.listTools()).tools.map((t) => t.name).sort();
    // list_budgets comes with every selection, so budgets can always be found.
    expect(names).toEqual(['create_account', 'get_account', 'get_month', 'list_accounts', 'list_budgets', 'list_months', 'reconcile_account']);
  });

  it('uses the configured default budget, and budget_id overrides it', async () => {
    const probe = await mcpHarness();
    const eur = ok(await probe.call('list_budgets')).budgets.find((b: any) => b.currency === 'EUR');
    await probe.close();
    h = await mcpHarness({ env: { YNAB_BUDGET_ID: eur.id } });
    expect(ok(await h.call('get_budget')).budget.name).toBe(eur.name);
    const other = ok(await h.call('list_budgets')).budgets.find((b: any) => b.id !== eur.id);
    expect(ok(await h.call('get_budget', { budget_id: other.id })).budget.name).toBe(other.name);
  });
});
