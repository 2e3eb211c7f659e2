/**
 * What recurrence.test.ts reads and does beside the server: a card's figures and its payment
 * category from the API, a charge on a given date, spending by week from the API's raw
 * transactions, the ISO week of a date, the alerts tool's digest settings, and a reconciliation
 * made in the app (the API cannot record one: the sandbox's store does, as YNAB's app would).
 */
import type { Client } from '@modelcontextprotocol/client';
import type { TestSandbox } from '../helpers/sandbox.js';

/** The budget's first open on-budget credit card, its payment category this month, and what that category is short of the balance owed. */
export async function cardFacts(sb: TestSandbox, budgetId: string) {
  const accounts = (await sb.get(`/budgets/${budgetId}/accounts`)).body.data.accounts as any[];
  const account = accounts.find((a) => a.type === 'creditCard' && a.on_budget && !a.closed && !a.deleted);
  if (!account) throw new Error('the demo budget has no open credit card');
  const groups = (await sb.get(`/budgets/${budgetId}/categories`)).body.data.category_groups as any[];
  const payments = groups.find((g) => g.name === 'Credit Card Payments')!.categories as any[];
  const id = payments.find((c) => c.name === account.name && !c.deleted)!.id;
  const payment = (await sb.get(`/budgets/${budgetId}/months/current/categories/${id}`)).body.data.category;
  return { account, payment, shortfall: -account.balance - payment.balance };
}

/** A cleared, approved charge on a date (a payee named for the test), as the API created it. */
export async function charge(sb: TestSandbox, budgetId: string, t: { account_id: string; category_id: string; date: string; amount: number }): Promise<any> {
  const res = await sb.call('POST', `/budgets/${budgetId}/transactions`, {
    transaction: { ...t, payee_name: 'Streamly Recurrence', cleared: 'cleared', approved: true },
  });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.transaction;
}

const addDays = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/**
 * Spending of `weeks` seven-day spans, the first from `since`, each one before the last, read from
 * the API's transactions the way YNAB's month counts activity: lines (a split's subtransactions) of
 * on-budget accounts, neither in Ready to Assign nor a transfer (a transfer to a tracking account
 * counts: it is spending to a category); outflows less refunds.
 */
export async function apiSpending(sb: TestSandbox, budgetId: string, since: string, weeks: number): Promise<number[]> {
  const txns = (await sb.get(`/budgets/${budgetId}/transactions`)).body.data.transactions as any[];
  const accounts = (await sb.get(`/budgets/${budgetId}/accounts`)).body.data.accounts as any[];
  const onBudget = new Set(accounts.filter((a) => a.on_budget).map((a) => a.id as string));
  const groups = (await sb.get(`/budgets/${budgetId}/categories`)).body.data.category_groups as any[];
  const internal = groups.find((g) => g.name === 'Internal Master Category')!.categories as any[];
  const readyToAssign = internal.find((c) => c.name === 'Inflow: Ready to Assign')!.id;
  const counts = (line: any, accountId: string) =>
    onBudget.has(accountId) && line.category_id !== readyToAssign && !(line.transfer_account_id && onBudget.has(line.transfer_account_id));
  const out: number[] = [];
  for (let w = 0; w < weeks; w++) {
    const from = addDays(since, -7 * w);
    const to = addDays(from, 6);
    let total = 0;
    for (const t of txns) {
      if (t.deleted || t.date < from || t.date > to) continue;
      const subs = (t.subtransactions as any[]).filter((s) => !s.deleted);
      for (const line of subs.length ? subs : [t]) if (counts(line, t.account_id)) total -= line.amount;
    }
    out.push(total);
  }
  return out;
}

/** Transactions waiting for review, from the API: unapproved, or on budget with no category (not a transfer, not a split). */
export async function apiQueue(sb: TestSandbox, budgetId: string): Promise<number> {
  const txns = (await sb.get(`/budgets/${budgetId}/transactions`)).body.data.transactions as any[];
  const accounts = (await sb.get(`/budgets/${budgetId}/accounts`)).body.data.accounts as any[];
  const onBudget = new Set(accounts.filter((a) => a.on_budget && !a.closed).map((a) => a.id as string));
  const uncategorized = (t: any) => onBudget.has(t.account_id) && !t.category_id && !t.transfer_account_id && !t.subtransactions.some((s: any) => !s.deleted);
  return txns.filter((t) => !t.deleted && (!t.approved || uncategorized(t))).length;
}

/** The ISO 8601 week of a date: the week's Thursday decides the year. */
export function isoWeekOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  const iso = d.getUTCDay() || 7;
  const thursday = new Date(d.getTime() + (4 - iso) * 86_400_000);
  const jan1 = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((thursday.getTime() - jan1) / 86_400_000 + 1) / 7);
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** The alerts tool's digest settings, as a user sets them. */
export async function setDigest(client: Client, settings: { digest_day: number; digest_hour: number; time_zone: string }): Promise<void> {
  const res: any = await client.callTool({ name: 'alerts', arguments: { settings } });
  if (res.isError) throw new Error(`alerts settings refused: ${JSON.stringify(res.content)}`);
}

/** An account reconciled at `at` in the app: the sandbox's store records it, a change the next delta brings. */
export function reconcileInApp(sb: TestSandbox, budgetId: string, accountId: string, at: Date): void {
  const store = sb.state.budgets.find((b) => b.id === budgetId);
  if (!store) throw new Error(`no sandbox budget ${budgetId}`);
  store.change(() => {
    const account = store.rec.accounts.get(accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    store.stamp(account).last_reconciled_at = at.toISOString();
  });
}
