/**
 * list_payee_transactions shows a split as its lines, as its description says (issue 43 item 5):
 * a purchase with cash back, made through the sandbox's API, comes back as one row per line (the
 * groceries line and the cash moved to the Cash account), never one row of category "Split"; its
 * total says how much of it moved to another account and gives the total without it. The
 * expectations are the amounts posted here and the API's own lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budgetId: string;
let parentId: string;
const PAYEE = 'Corner Market Claims';

beforeAll(async () => {
  h = await mcpHarness();
  budgetId = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === 'Demo Household').id;
  const accounts = (await h.sb.get(`/budgets/${budgetId}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted && !a.closed);
  const checking = accounts.find((a: any) => a.type === 'checking');
  const cash = accounts.find((a: any) => a.type === 'cash' && a.on_budget);
  const groups = (await h.sb.get(`/budgets/${budgetId}/categories`)).body.data.category_groups;
  const groceries = groups.flatMap((g: any) => g.categories).find((c: any) => c.name === 'Groceries');
  const date = new Date().toISOString().slice(0, 10);
  const made = await h.sb.call('POST', `/budgets/${budgetId}/transactions`, {
    transactions: [
      {
        account_id: checking.id,
        date,
        amount: -140_000,
        payee_name: PAYEE,
        approved: true,
        subtransactions: [
          { amount: -100_000, category_id: groceries.id },
          { amount: -40_000, payee_id: cash.transfer_payee_id, memo: 'cash back' },
        ],
      },
      { account_id: checking.id, date, amount: -25_000, payee_name: PAYEE, category_id: groceries.id, approved: true },
    ],
  });
  expect(made.status).toBe(201);
  parentId = made.body.data.transactions.find((t: any) => t.subtransactions.length).id;
});
afterAll(() => h.close());

describe('list_payee_transactions', () => {
  it('gives a split purchase with cash back as its lines, and its total with the transfer apart', async () => {
    const lines = (await h.sb.get(`/budgets/${budgetId}/transactions/${parentId}`)).body.data.transaction.subtransactions;
    expect(lines).toHaveLength(2);
    const res = ok(await h.call('list_payee_transactions', { budget_id: budgetId, payee_id: PAYEE, detail: 'full' }));
    // Each line once, by its own id, and the plain purchase: no whole split.
    expect(res.transactions.map((t: any) => t.category_name)).not.toContain('Split');
    expect(res.transactions.map((t: any) => t.id).sort()).toEqual(expect.arrayContaining(lines.map((x: any) => x.id).sort()));
    expect(res.transactions.every((t: any) => t.id !== parentId)).toBe(true);
    expect(res.count).toBe(3);
    const cashBack = res.transactions.find((t: any) => t.id === lines.find((x: any) => x.transfer_account_id).id);
    expect(cashBack).toMatchObject({ amount: -40_000, type: 'subtransaction', parent_transaction_id: parentId });
    expect(cashBack.transfer_account_id).toBeTruthy();
    // The total of the rows shown: -100 - 40 - 25; of which -40 went to the Cash account.
    expect(res.total).toBe(-165_000);
    expect(res.transfers_total).toBe(-40_000);
    expect(res.transfers_total_formatted).toBe('-$40.00');
    expect(res.excluding_transfers_total).toBe(-125_000);
    expect(res.excluding_transfers_total_formatted).toBe('-$125.00');
    expect(res.notices.join(' ')).toContain('includes -$40.00 moved to other accounts');
  });

  it('a payee without transfers among its rows has no transfer figures', async () => {
    const res = ok(await h.call('list_payee_transactions', { budget_id: budgetId, payee_id: 'Netflix' }));
    expect(res.count).toBeGreaterThan(0);
    expect(res.transactions.map((t: any) => t.category_name)).not.toContain('Split');
    expect(res).not.toHaveProperty('transfers_total');
  });
});
