/**
 * A count says what it counts, and a total that holds transfers says so (issue 43 item 3): the
 * review queue's summary (review_transactions) and the queue approve_transactions leaves say how
 * many of their rows are the two sides of one transfer, and the summary gives the transfers in its
 * total apart. The transfers are made through the sandbox's API itself (a move to savings; a
 * purchase with cash back to the wallet, a split's line), and every figure is computed here from
 * the API's raw transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { raw, rawLines, todayUtc, usd, type Raw } from './raw.js';

const today = todayUtc();
let h: McpHarness;
let r: Raw;
let cashBack: string;

const post = async (path: string, body: unknown) => {
  const res = await h.sb.call('POST', `${r.b}${path}`, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body.data;
};
const named = (name: string) => r.accounts.find((a) => a.name === name);

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'queue-counts' } });
  r = await raw(h.sb);
  const checking = named('Everyday Checking');
  cashBack = (
    await post('/transactions', {
      transaction: {
        account_id: checking.id,
        date: today,
        amount: -90_000,
        payee_name: 'Queue Warehouse',
        approved: false,
        subtransactions: [
          { amount: -60_000, category_id: r.categories.find((c) => c.name === 'Groceries').id },
          { amount: -30_000, payee_id: named('Wallet').transfer_payee_id, memo: 'cash back' },
        ],
      },
    })
  ).transaction.id;
  await post('/transactions', {
    transaction: { account_id: checking.id, date: today, amount: -45_000, payee_id: named('Rainy Day Savings').transfer_payee_id, approved: false },
  });
  r = await raw(h.sb);
});
afterAll(() => h.close());

/** The unapproved queue (every account, as review_transactions has it): its rows, their transfer sides, total and transfers. */
function queue(x: Raw) {
  const rows = x.transactions.filter((t) => !t.approved);
  const ids = new Set(rows.map((t) => t.id));
  const owner = new Map<string, string>(x.transactions.flatMap((t) => [[t.id, t.id], ...(t.subtransactions ?? []).map((s: any) => [s.id, t.id])]));
  const otherSides = (t: any) => [
    t.transfer_transaction_id,
    ...(t.subtransactions ?? []).filter((s: any) => !s.deleted).map((s: any) => s.transfer_transaction_id),
  ];
  const sides = rows.filter((t) => otherSides(t).some((o) => o && owner.get(o) !== t.id && ids.has(owner.get(o)!)));
  const onBudget = (id: string | null) => !!id && x.account.get(id)?.on_budget;
  // A transfer out of the budget (to a tracking account) is spending to YNAB: its budget side is not a transfer here.
  const transfers = rows.flatMap(rawLines).filter((l) => l.transfer_account_id && !(onBudget(l.account_id) && !onBudget(l.transfer_account_id)));
  return { rows, sides: sides.length, total: rows.reduce((s, t) => s + t.amount, 0), transfers: transfers.reduce((s, l) => s + l.amount, 0) };
}

describe('queue counts', () => {
  it("review_transactions' summary: how many rows are two sides of one transfer, and the transfers apart from the total", async () => {
    const q = queue(r);
    // Both sides of each transfer wait: the move to savings, and the cash back (the wallet's side of the split's line).
    expect(q.sides).toBeGreaterThanOrEqual(4);
    for (const detail of ['compact', 'full']) {
      const summary = ok(await h.call('review_transactions', { detail })).summary;
      expect(summary, detail).toMatchObject({ count: q.rows.length, transfer_sides: q.sides, total: q.total, total_formatted: usd(q.total) });
      expect(summary.note).toMatch(new RegExp(`^${q.rows.length}, of which ${q.sides} are the two sides of ${q.sides / 2} transfers`));
    }
  });

  it('a total holding one side of a transfer gives the transfers apart; approve_transactions says what is left and how much of it is transfer sides', async () => {
    // Approve the wallet's side of the cash back: the split's transfer line stays in the queue alone.
    const walletSide = r.transactions.find((t) => t.account_id === named('Wallet').id && t.transfer_account_id && t.amount === 30_000 && t.date === today);
    const res = ok(await h.call('approve_transactions', { transaction_ids: [walletSide.id] }));
    const after = await raw(h.sb);
    const q = queue(after);
    expect(q.transfers).toBe(-30_000);
    const noCategory = q.rows.filter((t) => {
      const onBudget = (id: string | null) => !!id && after.account.get(id)?.on_budget;
      return (
        onBudget(t.account_id) &&
        rawLines(t).some((l) => (!l.category_id || l.category_id === after.uncategorized) && !(l.transfer_account_id && onBudget(l.transfer_account_id)))
      );
    });
    expect(res).toMatchObject({
      updated: 1,
      unapproved_left: q.rows.length,
      unapproved_uncategorized: noCategory.length,
      unapproved_transfer_sides: q.sides,
    });
    expect(res.unapproved_note).toBe(
      `${q.rows.length} left unapproved, of which ${q.sides} are the two sides of ${q.sides === 2 ? 'one transfer' : `${q.sides / 2} transfers`}; ${noCategory.length} without a category.`,
    );
    const summary = ok(await h.call('review_transactions')).summary;
    expect(summary).toMatchObject({
      count: q.rows.length,
      transfer_sides: q.sides,
      total: q.total,
      transfers_total: q.transfers,
      transfers_total_formatted: usd(q.transfers),
      excluding_transfers_total: q.total - q.transfers,
      excluding_transfers_total_formatted: usd(q.total - q.transfers),
    });
    expect(summary.note).toContain(`the total includes ${usd(q.transfers)} of transfers`);
    expect(r.transactions.some((t) => t.id === cashBack)).toBe(true);
  });

  it('spending_summary and cash_flow count no transfer between budget accounts: the cash back and the move to savings are not spending', async () => {
    const x = await raw(h.sb);
    const month = today.slice(0, 7);
    const onBudget = (id: string | null) => !!id && x.account.get(id)?.on_budget;
    // Budget activity as YNAB's month counts it: on-budget lines, not a transfer between budget accounts, not income.
    const lines = x.transactions.flatMap(rawLines).filter((l) => onBudget(l.account_id) && l.date.startsWith(month) && l.category_id !== x.rta);
    const spending = lines.filter((l) => !(l.transfer_account_id && onBudget(l.transfer_account_id)));
    const transfers = lines.filter((l) => l.transfer_account_id && onBudget(l.transfer_account_id) && l.t.account_id === named('Everyday Checking').id);
    expect(transfers.map((l) => l.amount).sort()).toEqual(expect.arrayContaining([-45_000, -30_000]));
    const net = (o: any) => o.net ?? o.net_milliunits;
    const summary = ok(await h.call('spending_summary', { group_by: 'account' }));
    expect(net(summary.totals)).toBe(spending.reduce((s, l) => s + l.amount, 0));
    const checking = summary.rows.find((row: any) => row.name === 'Everyday Checking');
    expect(net(checking)).toBe(spending.filter((l) => l.account_id === named('Everyday Checking').id).reduce((s, l) => s + l.amount, 0));
    const flow = ok(await h.call('cash_flow', { months: 1, complete_months_only: false }));
    const current = flow.months.at(-1);
    expect(current.month).toBe(`${month}-01`);
    const spent = -spending.filter((l) => l.date <= today).reduce((s, l) => s + l.amount, 0);
    expect(current.spending ?? current.spending_milliunits).toBe(spent);
  });
});
