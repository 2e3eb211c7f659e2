/**
 * A review queue as bank imports make it, planted through the API: 25 unapproved transactions of
 * the budget's own payees, each at the payee's latest amount and with the category YNAB would give
 * it (its latest), on the last nine days. Shared by the review test and the review bench.
 */
import { ok, type McpHarness } from './mcp.js';

export async function plantQueue(h: McpHarness, budgetName = 'Demo Household', n = 25): Promise<string[]> {
  const budget = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === budgetName);
  const transactions: any[] = (await h.sb.get(`/budgets/${budget.id}/transactions?since_date=1990-01-01`)).body.data.transactions;
  // Money filed under a hidden category is held for confirmation (issue 58 item 7): the queue is planted in visible ones.
  const groups: any[] = (await h.sb.get(`/budgets/${budget.id}/categories`)).body.data.category_groups;
  const hidden = new Set(groups.flatMap((g) => g.categories.filter((c: any) => c.hidden || g.hidden).map((c: any) => c.id)));
  const last = new Map<string, any>();
  for (const t of [...transactions].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)))
    if (!t.deleted && t.payee_id && !t.transfer_account_id && t.category_id && !hidden.has(t.category_id) && !(t.subtransactions ?? []).length)
      last.set(t.payee_id, t);
  const picks = [...last.values()].sort((a, b) => (a.payee_name < b.payee_name ? -1 : 1)).slice(0, n);
  const day = (i: number) => new Date(Date.now() - (i % 9) * 86_400_000).toISOString().slice(0, 10);
  const items = picks.map((t, i) => ({
    account_id: t.account_id,
    date: day(i),
    amount_milliunits: t.amount,
    payee_id: t.payee_id,
    category_id: t.category_id,
    approved: false,
  }));
  return ok(await h.call('create_transactions', { budget_id: budget.id, allow_duplicate: true, transactions: items })).transaction_ids;
}
