/**
 * An id that belongs to another budget (issue 57, item 10): an account, category, payee,
 * transaction or scheduled transaction id of "Haushalt Berlin" passed with the budget_id of "Demo
 * Household" is refused before any request, naming the budget that owns it by name and id, from
 * the copies the server already holds. An id in no copy the server holds is passed on as before
 * (YNAB answers). The sandbox counts the requests it serves; the ids come from its raw API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const today = new Date().toISOString().slice(0, 10);

/** A harness whose sandbox reports its requests, and the two demo budgets' ids and raw entities. */
async function setUp() {
  const lines: string[] = [];
  h = await mcpHarness({ sandbox: { verbose: true, log: (l: string) => lines.push(l) } });
  const requests = () => lines.filter((l) => / \/v1\//.test(l)).length;
  const budgets = (await h.sb.get('/budgets')).body.data.budgets as { id: string; name: string }[];
  const demo = budgets.find((b) => b.name === 'Demo Household')!;
  const berlin = budgets.find((b) => b.name === 'Haushalt Berlin')!;
  expect(demo && berlin).toBeTruthy();
  const raw = async (path: string) => (await h!.sb.get(`/budgets/${berlin.id}${path}`)).body.data;
  const account = (await raw('/accounts')).accounts.find((a: any) => !a.closed && !a.deleted);
  const category = (await raw('/categories')).category_groups
    .filter((g: any) => !g.hidden && !['Internal Master Category', 'Credit Card Payments'].includes(g.name))
    .flatMap((g: any) => g.categories)
    .find((c: any) => !c.hidden && !c.deleted);
  const payee = (await raw('/payees')).payees.find((p: any) => !p.deleted && !p.transfer_account_id);
  const transaction = (await raw('/transactions')).transactions.find((t: any) => !t.deleted);
  const scheduled = (await raw('/scheduled_transactions')).scheduled_transactions.find((t: any) => !t.deleted);
  expect(account && category && payee && transaction && scheduled).toBeTruthy();
  return {
    h,
    lines,
    requests,
    demo,
    berlin,
    ids: { account: account.id, category: category.id, payee: payee.id, transaction: transaction.id, scheduled: scheduled.id },
  };
}

describe('an id of another budget', () => {
  it('is refused before any request, naming the budget that owns it (both copies held)', async () => {
    const { h, lines, requests, demo, berlin, ids } = await setUp();
    // Both budgets' copies are held, as after a session that looked at both.
    ok(await h.call('list_accounts', { budget_id: demo.id }));
    ok(await h.call('list_accounts', { budget_id: berlin.id }));
    // The budget list, asked for beside a first answer, has come back (a name resolves through it).
    ok(await h.call('list_budgets'));
    await new Promise((r) => setTimeout(r, 300));
    const calls: [string, Record<string, unknown>, RegExp][] = [
      ['get_account', { account_id: ids.account }, /account_id .* is the account "/],
      ['get_category', { category_id: ids.category }, /category_id .* is the category "/],
      ['get_payee', { payee_id: ids.payee }, /payee_id .* is the payee "/],
      ['get_transaction', { transaction_id: ids.transaction }, /transaction_id .* is the transaction of /],
      ['get_scheduled_transaction', { scheduled_transaction_id: ids.scheduled }, /scheduled_transaction_id .* is the scheduled transaction of /],
      ['update_transactions', { transactions: [{ id: ids.transaction, memo: 'x' }] }, /transactions\[0\]\.id .* is the transaction of /],
      ['create_transactions', { transactions: [{ account_id: ids.account, date: today, amount: -1, payee_name: 'X' }] }, /transactions\[0\]\.account_id/],
      ['list_payee_transactions', { payee_id: ids.payee }, /payee_id/],
      ['spending_summary', { category_id: ids.category }, /category_id/],
      ['search_transactions', { account_id: ids.account }, /account_id/],
    ];
    for (const budgetId of [demo.id, 'Demo Household']) {
      for (const [tool, args, what] of calls) {
        const before = requests();
        const res = await h.call(tool, { budget_id: budgetId, ...args });
        const text = res.content?.[0]?.text as string;
        expect(res.isError, `${tool}: ${text}`).toBe(true);
        expect(text, tool).toMatch(what);
        expect(text, tool).toContain(`of the budget "Haushalt Berlin" (id ${berlin.id}), not of "Demo Household" (id ${demo.id})`);
        expect(text, tool).toContain(`Pass budget_id "${berlin.id}"`);
        expect(requests(), `${tool} sent a request: ${lines.slice(-3).join(' | ')}`).toBe(before);
      }
    }
    // The id with its own budget is answered.
    expect(ok(await h.call('get_account', { budget_id: berlin.id, account_id: ids.account })).account.id).toBe(ids.account);
  });

  it('is passed on as before when no copy the server holds has it (YNAB answers)', async () => {
    const { h, requests, demo, ids } = await setUp();
    ok(await h.call('list_accounts', { budget_id: demo.id }));
    await new Promise((r) => setTimeout(r, 300));
    const before = requests();
    const res = await h.call('update_transactions', { budget_id: demo.id, transactions: [{ id: ids.transaction, memo: 'x' }] });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).not.toMatch(/Haushalt Berlin/);
    expect(requests()).toBeGreaterThan(before);
  });
});
