/**
 * Counts count everything they name (issue 57, item 8): after reconciling, an uncategorized bank
 * fee and a Zelle inflow are still uncategorized, as YNAB's app shows them. needs_attention's and
 * review_transactions' "uncategorized" count them, and say in the reason what the kind leaves out
 * (transfers between budget accounts and starting balances, which take no category); the
 * unapproved count says what it leaves in tracking accounts, which review_transactions counts. Recomputed
 * from the sandbox's raw API, on three seeds, in the middle of a month and on the first of one.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, shiftMonth, usd, type Raw } from './raw.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

/** Transactions YNAB shows as uncategorized, reconciled or not: a budget line without a category that is not a transfer between budget accounts nor a starting balance. */
function uncategorized(r: Raw): any[] {
  const onBudget = (id: string | null) => !!id && r.account.get(id)?.on_budget;
  return r.transactions
    .filter((t) => onBudget(t.account_id) && t.payee_name !== 'Starting Balance')
    .filter((t) =>
      rawLines(t).some((l) => (!l.category_id || l.category_id === r.uncategorized) && !(l.transfer_account_id && onBudget(l.transfer_account_id))),
    );
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('uncategorized after reconciling, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let r: Raw;
  let planted: string[];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    r = await raw(h.sb);
    const checking = r.accounts.find((a) => a.on_budget && !a.closed && a.type === 'checking');
    const rows = [
      { payee_name: 'Monthly Service Fee', amount: -12_000 },
      { payee_name: 'Zelle from Sam Lee', amount: 250_000 },
    ];
    planted = [];
    for (const t of rows) {
      const res = await h.sb.call('POST', `${r.b}/transactions`, { transaction: { account_id: checking.id, date, cleared: 'cleared', approved: true, ...t } });
      expect(res.status).toBe(201);
      planted.push(res.body.data.transaction.id);
    }
    // Reconciled, as a reconcile in YNAB's app leaves them: still without a category.
    for (const id of planted) expect((await h.sb.call('PUT', `${r.b}/transactions/${id}`, { transaction: { cleared: 'reconciled' } })).status).toBe(200);
    // An unapproved row in a tracking account: needs_attention leaves it out unless asked, and says so.
    const tracking = r.accounts.find((a) => !a.on_budget && !a.closed);
    const t = { account_id: tracking.id, date, amount: -40_000, payee_name: 'Escrow Adjustment', cleared: 'cleared', approved: false };
    expect((await h.sb.call('POST', `${r.b}/transactions`, { transaction: t })).status).toBe(201);
    r = await raw(h.sb);
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('needs_attention counts the reconciled rows, and its total is every line without a category', async () => {
    const expected = uncategorized(r);
    expect(expected.filter((t) => t.cleared === 'reconciled').map((t) => t.id)).toEqual(expect.arrayContaining(planted));
    const res = ok(await h.call('needs_attention', { kind: 'uncategorized', detail: 'full' }));
    const k = res.attention[0];
    expect(k.count).toBe(expected.length);
    expect(k.examples.map((e: any) => e.id).sort()).toEqual(expected.map((t) => t.id).sort());
    const onBudget = (id: string | null) => !!id && r.account.get(id)?.on_budget;
    const total = expected
      .flatMap(rawLines)
      .filter((l) => (!l.category_id || l.category_id === r.uncategorized) && !(l.transfer_account_id && onBudget(l.transfer_account_id)))
      .reduce((s, l) => s + l.amount, 0);
    expect(k).toMatchObject({ total, total_formatted: usd(total) });
    expect(k.reason).toBe('Without a category.');
  });

  it('review_transactions lists the same rows, and the queue the alerts count is the same', async () => {
    const expected = uncategorized(r).map((t) => t.id);
    const res = ok(await h.call('review_transactions', { status: 'uncategorized', detail: 'full', limit: 500 }));
    expect(res.summary.count).toBe(expected.length);
    expect(res.transactions.map((t: any) => t.id).sort()).toEqual([...expected].sort());
  });

  it("needs_attention's unapproved count says what it left in tracking accounts; review_transactions counts every account", async () => {
    const unapproved = r.transactions.filter((t) => !t.approved);
    const onBudget = unapproved.filter((t) => r.account.get(t.account_id)?.on_budget);
    const tracking = unapproved.filter((t) => !r.account.get(t.account_id)?.on_budget);
    const names = [...new Set(tracking.map((t) => r.account.get(t.account_id).name))].sort();
    const k = ok(await h.call('needs_attention', { kind: 'unapproved' })).attention[0];
    expect(k.count).toBe(onBudget.length);
    expect(k.tracking_left_out).toBe(`${tracking.length} more in tracking accounts (${names.join(', ')}): include_off_budget: true counts them.`);
    const all = ok(await h.call('needs_attention', { kind: 'unapproved', include_off_budget: true })).attention[0];
    expect(all.count).toBe(unapproved.length);
    expect(all.tracking_left_out).toBeUndefined();
    expect(ok(await h.call('review_transactions', { status: 'unapproved', limit: 500 })).summary.count).toBe(unapproved.length);
  });
});
