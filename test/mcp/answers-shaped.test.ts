/**
 * Answers shaped for reading, through a real MCP client and checked against the API's raw
 * answers: compact get_month and list_categories leave out hidden, internal and all-zero
 * categories and say how many (at most 12 KB on the demo budget, every figure formatted: 9 KB until
 * issue 58 item 5 kept a zero figure wherever another row's is not zero), include_all lists them all;
 * update_month_category answers with the month's new Ready to Assign; a deleted entity says
 * deleted: true; import_transactions answers with the imported transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPendingImport } from '../../src/sandbox/demo/scheduled.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let demo: any;
const today = new Date().toISOString().slice(0, 10);
const u = Date.now().toString(36);

beforeAll(async () => {
  h = await mcpHarness();
  demo = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === 'Demo Household');
});
afterAll(() => h.close());

/** What a compact list shows, by the rule written again here: not hidden, not all zero, not internal (Uncategorized with money excepted). */
const shown = (c: any) =>
  !c.hidden && !(c.budgeted === 0 && c.activity === 0 && c.balance === 0 && !c.goal_under_funded) && (!c.internal || c.name === 'Uncategorized');
const bytes = (res: any) => Buffer.byteLength(res.content[0].text, 'utf8');

describe('compact category lists', () => {
  it('get_month leaves out hidden, internal and all-zero categories, says how many, and stays within 12 KB', async () => {
    const month = (await h.sb.get(`/budgets/${demo.id}/months/current`)).body.data.month;
    const live = month.categories.filter((c: any) => !c.deleted);
    const res = await h.call('get_month', { month: 'current' });
    const s = ok(res);
    const expected = live.filter(shown);
    expect(s.month.categories.map((c: any) => c.id)).toEqual(expected.map((c: any) => c.id));
    expect(live.some((c: any) => c.hidden)).toBe(true);
    expect(s.categories_left_out).toBe(live.length - expected.length);
    expect(s.notices.join(' ')).toMatch(new RegExp(`${live.length - expected.length} categories are left out.*include_all: true lists them`));
    // Each figure as YNAB's app names it, formatted beside it; a figure that is zero is left out
    // only where it is zero on every row shown (issue 58 item 5: a payment category at $0.00 says so).
    const shownRows = s.month.categories.map((row: any) => live.find((x: any) => x.id === row.id));
    const somewhere = (api: string) => shownRows.some((c: any) => c[api] !== 0);
    expect(shownRows.some((c: any) => c.balance === 0)).toBe(true);
    for (const row of s.month.categories) {
      const c = live.find((x: any) => x.id === row.id);
      const figure = (name: string, api: string) => (c[api] === 0 && !somewhere(api) ? {} : { [name]: c[api], [`${name}_formatted`]: c[`${api}_formatted`] });
      expect(row).toEqual({
        id: c.id,
        name: c.name,
        ...figure('assigned', 'budgeted'),
        ...figure('activity', 'activity'),
        ...figure('available', 'balance'),
        ...(c.goal_under_funded != null ? figure('goal_under_funded', 'goal_under_funded') : {}),
      });
    }
    expect(s.month).toMatchObject({ ready_to_assign: month.to_be_budgeted, ready_to_assign_formatted: month.to_be_budgeted_formatted });
    // Formatted figures on every row (issue 43.2) took the lean list from 6 KB to about 7.5 KB.
    expect(bytes(res)).toBeLessThanOrEqual(12 * 1024);
    const all = ok(await h.call('get_month', { month: 'current', include_all: true, limit: 500 }));
    expect(all.month.categories.map((c: any) => c.id).sort()).toEqual(live.map((c: any) => c.id).sort());
    expect(all).not.toHaveProperty('categories_left_out');
    // fields pick from each category's whole compact form, formatted figures included.
    const picked = ok(await h.call('get_month', { month: 'current', fields: ['available_formatted'] }));
    expect(picked.month.categories[0]).toEqual({ id: expected[0].id, name: expected[0].name, available_formatted: expected[0].balance_formatted });
  });

  it('list_categories does the same per group, and stays within 12 KB', async () => {
    const groups = (await h.sb.get(`/budgets/${demo.id}/categories`)).body.data.category_groups.filter((g: any) => !g.deleted);
    const res = await h.call('list_categories');
    const s = ok(res);
    const expected = groups
      .map((g: any) => ({ id: g.id, ids: g.hidden ? [] : g.categories.filter((c: any) => !c.deleted && shown(c)).map((c: any) => c.id) }))
      .filter((g: any) => g.ids.length);
    expect(s.category_groups.map((g: any) => ({ id: g.id, ids: g.categories.map((c: any) => c.id) }))).toEqual(expected);
    const total = groups.reduce((n: number, g: any) => n + g.categories.filter((c: any) => !c.deleted).length, 0);
    expect(s.categories_left_out).toBe(total - expected.reduce((n: number, g: any) => n + g.ids.length, 0));
    // About 8.4 KB with every figure formatted (6 KB before issue 43.2).
    expect(bytes(res)).toBeLessThanOrEqual(12 * 1024);
    const all = ok(await h.call('list_categories', { include_all: true }));
    expect(all.category_groups.flatMap((g: any) => g.categories).length).toBe(total);
  });
});

describe('writes answer with what changed', () => {
  it("update_month_category answers with the month's new Ready to Assign", async () => {
    const res = ok(await h.call('update_month_category', { month: 'current', category_id: 'Fun Money', budgeted: 77.77 }));
    const month = (await h.sb.get(`/budgets/${demo.id}/months/current`)).body.data.month;
    expect(res.category).toMatchObject({ name: 'Fun Money', assigned: 77_770, assigned_formatted: '$77.77' });
    expect(res).toMatchObject({ month: month.month, ready_to_assign: month.to_be_budgeted, ready_to_assign_formatted: month.to_be_budgeted_formatted });
  });

  it('a deleted transaction or scheduled transaction says deleted: true', async () => {
    const t = ok(await h.call('create_transactions', { transactions: [{ account_id: 'Wallet', date: today, amount: -3, payee_name: `Gone ${u}` }] }))
      .transactions[0];
    const gone = ok((await confirmed(h, 'delete_transaction', { transaction_id: t.id })).result);
    expect(gone.transaction).toMatchObject({ id: t.id, deleted: true });
    expect((await h.sb.get(`/budgets/${demo.id}/transactions/${t.id}`)).status).toBe(404);
    const s = ok(
      await h.call('create_scheduled_transaction', {
        account_id: 'Wallet',
        date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
        amount: -3,
        payee_name: `Gone ${u}`,
      }),
    ).scheduled_transaction;
    expect(ok((await confirmed(h, 'delete_scheduled_transaction', { scheduled_transaction_id: s.id })).result).scheduled_transaction).toMatchObject({
      id: s.id,
      deleted: true,
    });
    // A live entity does not carry the flag.
    expect(ok(await h.call('get_account', { account_id: 'Wallet' })).account).not.toHaveProperty('deleted');
  });

  it('import_transactions answers with the imported transactions, compact', async () => {
    const store = h.sb.state.budgets.find((b) => b.id === demo.id)!;
    const checking = [...store.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!;
    addPendingImport(store, checking, today, -21_500, `Imported ${u}`, 'from the bank');
    addPendingImport(store, checking, today, 1_250, `Imported Refund ${u}`);
    const res = ok(await h.call('import_transactions'));
    expect(res.transaction_ids.length).toBeGreaterThanOrEqual(2);
    expect(res.transactions.map((t: any) => t.id)).toEqual(res.transaction_ids);
    expect(res.count).toBe(res.transaction_ids.length);
    for (const row of res.transactions) {
      const t = (await h.sb.get(`/budgets/${demo.id}/transactions/${row.id}`)).body.data.transaction;
      expect(row).toEqual(
        expect.objectContaining({
          date: t.date,
          amount: t.amount,
          amount_formatted: t.amount_formatted,
          payee_name: t.payee_name,
          account_name: t.account_name,
          import_id: t.import_id,
          approved: t.approved,
        }),
      );
      expect(row).not.toHaveProperty('amount_currency');
    }
    expect(res.transactions.map((t: any) => t.payee_name)).toEqual(expect.arrayContaining([`Imported ${u}`, `Imported Refund ${u}`]));
    expect(res.data_notice).toMatch(/data/);
    // Nothing left to import: an empty list.
    expect(ok(await h.call('import_transactions')).transactions).toEqual([]);
  });
});
