/**
 * Names wherever ids go, through a real MCP client: every budget_id, account_id, category_id,
 * category group and payee argument of API and insight tools (nested split lines and resource
 * URIs included) takes an id or an exact name, any case; an unknown or shared name is an error
 * listing the closest candidates with their ids, never a guess; a name created elsewhere since
 * the copy was synced is found. Answers name the budget when it was not given by id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAnswerText } from '../helpers/answer-text.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budgets: any[];
const u = Date.now().toString(36);
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  h = await mcpHarness();
  budgets = (await h.sb.get('/budgets')).body.data.budgets;
});
afterAll(() => h.close());

const demo = () => budgets.find((b) => b.name === 'Demo Household');
const berlin = () => budgets.find((b) => b.name === 'Haushalt Berlin');
const rawAccounts = async (b: any) => (await h.sb.get(`/budgets/${b.id}/accounts`)).body.data.accounts;
const rawCategories = async (b: any) => (await h.sb.get(`/budgets/${b.id}/categories`)).body.data.category_groups.flatMap((g: any) => g.categories);

function refused(res: any, message: RegExp) {
  expect(res.isError, JSON.stringify(res.structuredContent ?? {})).toBe(true);
  expect(res.content[0].text).toMatch(message);
}

describe('budgets by name', () => {
  it("takes a budget's name in any case, and every answer then names the budget it used", async () => {
    // Left out, or an alias: named, for reads and writes, from the copy or the API. (First, while
    // "last-used" is still the demo household: using another budget makes it the last used.)
    for (const [tool, args] of <[string, Record<string, unknown>][]>[
      ['list_accounts', {}],
      ['get_month', { month: 'current', budget_id: 'last-used' }],
      ['list_money_movements', {}],
      ['spending_summary', { budget_id: 'Demo Household' }],
      ['create_transactions', { budget_id: 'demo household', transactions: [{ account_id: 'Wallet', date: today, amount: -1, payee_name: `Names ${u}` }] }],
    ]) {
      expect(ok(await h.call(tool, args)).budget, tool).toEqual({ id: demo().id, name: 'Demo Household' });
    }
    const accounts = ok(await h.call('list_accounts', { budget_id: 'haushalt BERLIN' }));
    expect(accounts.budget).toEqual({ id: berlin().id, name: 'Haushalt Berlin' });
    expect(accounts.accounts.map((a: any) => a.id).sort()).toEqual((await rawAccounts(berlin())).map((a: any) => a.id).sort());
    // By id: no need to say which.
    expect(ok(await h.call('list_accounts', { budget_id: berlin().id }))).not.toHaveProperty('budget');
  });

  it('refuses an unknown budget name with the closest budgets, and takes a configured default by name', async () => {
    refused(
      await h.call('list_accounts', { budget_id: 'Haushalt Berln' }),
      /budget_id "Haushalt Berln": no budget has that id or name\. Closest: "Haushalt Berlin" \(id [0-9a-f-]{36}\)/,
    );
    const other = await mcpHarness({ env: { YNAB_BUDGET_ID: 'haushalt berlin' } });
    try {
      expect(ok(await other.call('get_budget')).budget).toMatchObject({ id: berlin().id, name: 'Haushalt Berlin' });
    } finally {
      await other.close();
    }
  });
});

describe('accounts, categories, groups and payees by name', () => {
  it('resolves names in path arguments, bodies and split lines of API tools, and in insights', async () => {
    const accounts = await rawAccounts(demo());
    const categories = await rawCategories(demo());
    const checking = accounts.find((a: any) => a.name === 'Everyday Checking');
    const dining = categories.find((c: any) => c.name === 'Dining Out');
    expect(ok(await h.call('get_account', { budget_id: 'Demo Household', account_id: 'everyday checking' })).account.id).toBe(checking.id);
    expect(ok(await h.call('get_category', { budget_id: 'Demo Household', category_id: 'DINING OUT' })).category.id).toBe(dining.id);
    const created = ok(
      await h.call('create_transactions', {
        budget_id: 'Demo Household',
        transactions: [
          {
            account_id: 'Everyday Checking',
            date: today,
            amount: -30,
            payee_name: `Split ${u}`,
            subtransactions: [
              { amount: -20, category_id: 'groceries' },
              { amount: -10, category_id: 'Dining Out', payee_id: 'Costco' },
            ],
          },
        ],
      }),
    ).transactions[0];
    expect(created.account_id).toBe(checking.id);
    const raw = (await h.sb.get(`/budgets/${demo().id}/transactions/${created.id}`)).body.data.transaction;
    expect(raw.subtransactions.map((x: any) => x.category_name).sort()).toEqual(['Dining Out', 'Groceries']);
    expect(raw.subtransactions.find((x: any) => x.category_id === dining.id).payee_name).toBe('Costco');
    const costco = ok(await h.call('list_payee_transactions', { budget_id: 'Demo Household', payee_id: 'costco', since_date: today }));
    expect(costco.transactions.some((t: any) => t.id === raw.subtransactions.find((x: any) => x.category_id === dining.id).id)).toBe(true);
    const group = ok(await h.call('create_category', { budget_id: 'Demo Household', name: `Named ${u}`, category_group_id: 'bills' })).category;
    expect(group.category_group_name).toBe('Bills');
    const assigned = ok(await h.call('update_month_category', { budget_id: 'Demo Household', month: 'current', category_id: `named ${u}`, budgeted: 12.5 }));
    expect(assigned.category).toMatchObject({ id: group.id, assigned: 12_500 });
    // The split's first line has the transaction's payee, its second line Costco.
    const lines = ok(await h.call('search_transactions', { budget_id: 'Demo Household', account_id: 'EVERYDAY checking', payee_id: `Split ${u}` }));
    expect(lines.transactions.map((t: any) => [t.transaction_id, t.category_name])).toEqual([[created.id, 'Groceries']]);
  });

  it('never guesses: an unknown name lists the closest candidates with ids, a shared one lists all that share it', async () => {
    refused(
      await h.call('get_account', { budget_id: 'Demo Household', account_id: 'Everyday Chequing' }),
      /account_id "Everyday Chequing": no account has that id or name\. Closest: "Everyday Checking" \(id [0-9a-f-]{36}, checking\)/,
    );
    refused(
      await h.call('create_transactions', {
        budget_id: 'Demo Household',
        transactions: [{ account_id: 'Wallet', date: today, amount: -1, payee_name: `Refused ${u}`, category_id: 'Grocery' }],
      }),
      /transactions\[0\]\.category_id "Grocery": no category has that id or name\. Closest: "Groceries" \(id [0-9a-f-]{36}, in Everyday Expenses\)/,
    );
    refused(
      await h.call('create_category', { budget_id: 'Demo Household', name: 'X', category_group_id: 'Billz' }),
      /category_group_id "Billz": no category group has that id or name\. Closest: "Bills"/,
    );
    // Two categories with one name, in different groups.
    const a = ok(await h.call('create_category', { budget_id: 'Demo Household', name: `Twin ${u}`, category_group_id: 'Bills' })).category;
    const b = ok(await h.call('create_category', { budget_id: 'Demo Household', name: `TWIN ${u}`, category_group_id: 'Quality of Life' })).category;
    const res = await h.call('get_category', { budget_id: 'Demo Household', category_id: `twin ${u}` });
    refused(res, new RegExp(`category_id "twin ${u}": 2 categories have that name`));
    expect(res.content[0].text).toContain(a.id);
    expect(res.content[0].text).toContain(b.id);
    expect(res.content[0].text).toMatch(/Give the id of the one you mean/);
    // Nothing was written by the refused call.
    expect(ok(await h.call('search_transactions', { budget_id: 'Demo Household', query: `Refused ${u}` })).count).toBe(0);
  });

  it('finds a name created elsewhere since the copy was synced', async () => {
    ok(await h.call('list_payees', { budget_id: 'Demo Household' }));
    // A copy synced within the last second is not asked again for a name it does not know.
    await new Promise((r) => setTimeout(r, 1100));
    const made = await h.sb.call('POST', `/budgets/${demo().id}/payees`, { payee: { name: `Elsewhere ${u}` } });
    expect(made.status).toBe(201);
    const res = ok(
      await h.call('create_transactions', {
        budget_id: 'Demo Household',
        transactions: [{ account_id: 'Wallet', date: today, amount: -2, payee_id: `elsewhere ${u}` }],
      }),
    );
    expect(res.transactions[0].payee_id).toBe(made.body.data.payee.id);
  });

  it('resolves names in resource URIs', async () => {
    const res = await h.client.readResource({
      uri: `ynab://budgets/${encodeURIComponent('Demo Household')}/accounts/${encodeURIComponent('Everyday Checking')}`,
    });
    const account = readAnswerText((res.contents[0] as any).text).structured.account;
    expect(account.name).toBe('Everyday Checking');
  });
});
