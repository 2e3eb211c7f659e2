/**
 * A search finds what it is asked about (issue 57, item 8): the transactions of a closed tracking
 * account, when the account is named, and of every date the budget holds (two years back here);
 * a search that leaves tracking accounts out says how many matching lines it left there, instead
 * of answering zero. The account is made through the API, given 15 transactions, and closed in
 * the app (the API cannot close one); figures recomputed from the raw API's transactions, on three
 * seeds, in the middle of a month and on the first of one.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { raw, shiftMonth, usd, type Raw } from './raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];
const NAME = 'Vintage Guitar Collection';

/** An account closed in YNAB's app: the sandbox's store records it, a change the next delta brings. */
function closeInApp(sb: TestSandbox, budgetId: string, accountId: string): void {
  const store = sb.state.budgets.find((b) => b.id === budgetId)!;
  store.change(() => {
    store.stamp(store.rec.accounts.get(accountId)!).closed = true;
  });
}

const daysBefore = (date: string, n: number) => new Date(Date.parse(`${date}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('search of a closed tracking account, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  let account: any;
  let rows: any[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
    const made = await h.sb.call('POST', `${r.b}/accounts`, { account: { name: NAME, type: 'otherAsset', balance: 2_400_000 } });
    expect(made.status).toBe(201);
    account = made.body.data.account;
    expect(account.on_budget).toBe(false);
    // 14 more: appraisals and sales every 50 days, back to two years ago (past the API's one-year default).
    for (let i = 1; i <= 14; i++) {
      const t = {
        account_id: account.id,
        date: daysBefore(date, 50 * i),
        amount: (i % 3 === 0 ? -1 : 1) * 25_000 * i,
        payee_name: i % 2 ? 'Guitar Appraisal' : 'Reverb Sale',
        cleared: 'cleared',
        approved: true,
      };
      expect((await h.sb.call('POST', `${r.b}/transactions`, { transaction: t })).status).toBe(201);
    }
    closeInApp(h.sb, r.budget.id, account.id);
    r = await raw(h.sb);
    rows = r.transactions.filter((t) => t.account_id === account.id);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('list_account_transactions lists the 15 (the raw API: the account closed, off budget)', async () => {
    expect(r.account.get(account.id)).toMatchObject({ closed: true, on_budget: false });
    expect(rows).toHaveLength(15);
    const listed = ok(await h.call('list_account_transactions', { account_id: NAME, since_date: '2000-01-01', limit: 100 }));
    expect(listed.transactions).toHaveLength(15);
  });

  it('search_transactions with the account named finds all 15, every date, with their total', async () => {
    const total = rows.reduce((s, t) => s + t.amount, 0);
    const res = ok(await h.call('search_transactions', { account_id: NAME, limit: 100 }));
    expect(res).toMatchObject({ count: 15, total, total_formatted: usd(total) });
    expect(res.transactions.map((t: any) => t.id).sort()).toEqual(rows.map((t) => t.id).sort());
    expect(res.notices ?? []).toEqual([]);
  });

  it('spending_only on the account says it is a tracking account, with what the search finds without it', async () => {
    const res = ok(await h.call('search_transactions', { account_id: NAME, spending_only: true, limit: 100 }));
    expect(res).toMatchObject({ count: 0, total: 0 });
    expect(res.notices).toEqual([
      `${NAME} is a tracking account, which holds no spending (spending_only counts budget accounts, as spending_summary does): without spending_only the search finds ${rows.length} matching transactions.`,
    ]);
  });

  it('a search that leaves tracking accounts out says how many matching lines it left there', async () => {
    const appraisals = rows.filter((t) => t.payee_name === 'Guitar Appraisal');
    const res = ok(await h.call('search_transactions', { query: 'Guitar Appraisal' }));
    const onBudget = r.transactions.filter((t) => r.account.get(t.account_id)?.on_budget && t.payee_name === 'Guitar Appraisal');
    expect(res.count).toBe(onBudget.length);
    expect(res.notices).toContain(
      `${appraisals.length} matching transactions in tracking accounts (${NAME}) are left out: include_off_budget: true, or the account named, counts them.`,
    );
    const all = ok(await h.call('search_transactions', { query: 'Guitar Appraisal', include_off_budget: true, limit: 100 }));
    expect(all.count).toBe(appraisals.length + onBudget.length);
  });
});
