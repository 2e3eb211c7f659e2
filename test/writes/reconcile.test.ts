/**
 * reconcile_account through a real MCP client against the sandbox over HTTP, expectations from
 * the API's raw transactions: a zero difference reconciles every cleared transaction up to the
 * date; a difference that uncleared transactions explain exactly clears and reconciles them; one
 * nothing explains is not reconciled without create_adjustment, and with it gets one adjustment
 * in Ready to Assign; a statement file names rows missing from YNAB; undo puts all of it back;
 * and every answer says the API cannot set last_reconciled_at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { csv, rawTransactions } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'reconcile' } });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
  // Two purchases the bank has not cleared yet, whatever the demo's last few days hold (on some
  // dates it has only one such in this account). Made before the server's first read of the budget.
  for (const [days, amount] of [
    [-1, -23_450],
    [0, -8_760],
  ] as const) {
    const made = await h.sb.call('POST', `/budgets/${budget}/transactions`, {
      transaction: { account_id: account, date: addDays(today, days), amount, payee_name: 'Corner Store', cleared: 'uncleared', approved: true },
    });
    expect(made.status).toBe(201);
  }
}, 60_000);
afterAll(() => h.close());

const clearedBalance = (txns: any[], date: string) => txns.filter((t) => t.date <= date && t.cleared !== 'uncleared').reduce((n, t) => n + t.amount, 0);
const byId = (txns: any[]) => new Map(txns.map((t) => [t.id, t]));

async function undo(changeId: string, before: any[]) {
  ok((await confirmed(h, 'undo_change', { change_id: changeId })).result);
  const now = byId(await rawTransactions(h, budget, account));
  expect(now.size).toBe(before.length);
  for (const t of before) expect(now.get(t.id)?.cleared, t.id).toBe(t.cleared);
}

describe('reconcile_account', () => {
  it('at a zero difference reconciles every cleared transaction up to the date; undo puts them back', async () => {
    const date = addDays(today, -5);
    const before = await rawTransactions(h, budget, account);
    const cleared = before.filter((t) => t.date <= date && t.cleared === 'cleared');
    expect(cleared.length).toBeGreaterThan(0);
    const args = { account_id: 'Everyday Checking', statement_balance_milliunits: clearedBalance(before, date), statement_date: date };
    const { preview, result } = await confirmed(h, 'reconcile_account', args);
    expect(preview.difference).toBe(0);
    expect(preview.to_reconcile).toMatchObject({ count: cleared.length, total: cleared.reduce((n, t) => n + t.amount, 0) });
    expect(preview.note).toMatch(/cannot set the account's last_reconciled_at/);
    const done = ok(result);
    expect(done.reconciled).toBe(cleared.length);
    expect(done.note).toMatch(/cannot set/);
    const after = byId(await rawTransactions(h, budget, account));
    for (const t of cleared) expect(after.get(t.id).cleared).toBe('reconciled');
    for (const t of before.filter((x) => x.date > date || x.cleared === 'uncleared')) expect(after.get(t.id).cleared).toBe(t.cleared);
    await undo(done.change_id, before);
  }, 60_000);

  it('a difference uncleared transactions explain exactly: they are cleared and reconciled; undo', async () => {
    const before = await rawTransactions(h, budget, account);
    const open = before.filter((t) => t.date <= today && t.cleared === 'uncleared');
    expect(open.length).toBeGreaterThan(1);
    const difference = open[0].amount + open[1].amount;
    const args = { account_id: 'Everyday Checking', statement_balance_milliunits: clearedBalance(before, today) + difference };
    const { preview, result } = await confirmed(h, 'reconcile_account', args);
    expect(preview.difference).toBe(difference);
    const first = preview.explanations[0];
    expect(first.kind).toBe('uncleared_sum');
    expect(first.count).toBeLessThanOrEqual(2);
    const ids = first.transactions.map((t: any) => t.id);
    const raw = byId(before);
    expect(ids.reduce((n: number, id: string) => n + raw.get(id).amount, 0)).toBe(difference);
    for (const id of ids) expect(raw.get(id)).toMatchObject({ cleared: 'uncleared' });
    const done = ok(result);
    expect(done.cleared).toBe(ids.length);
    const after = await rawTransactions(h, budget, account);
    expect(clearedBalance(after, today)).toBe(args.statement_balance_milliunits);
    for (const id of ids) expect(byId(after).get(id).cleared).toBe('reconciled');
    await undo(done.change_id, before);
  }, 60_000);

  it('a difference nothing explains: not reconciled without create_adjustment; with it, one adjustment in Ready to Assign; undo', async () => {
    const before = await rawTransactions(h, budget, account);
    const statement = clearedBalance(before, today) + 10;
    const refused = ok(await h.call('reconcile_account', { account_id: 'Everyday Checking', statement_balance_milliunits: statement }));
    expect(refused.confirm_token).toBeUndefined();
    expect(refused.message).toMatch(/Not reconciled.*create_adjustment/);
    expect(await rawTransactions(h, budget, account)).toEqual(before);
    const { result } = await confirmed(h, 'reconcile_account', {
      account_id: 'Everyday Checking',
      statement_balance_milliunits: statement,
      create_adjustment: true,
    });
    const done = ok(result);
    const after = await rawTransactions(h, budget, account);
    const made = after.filter((t) => !byId(before).has(t.id));
    expect(made).toHaveLength(1);
    const rta = [...h.sb.state.budgets[0]!.rec.categories.values()].find((c) => c.name === 'Inflow: Ready to Assign')!;
    expect(made[0]).toMatchObject({ amount: 10, payee_name: 'Reconciliation Balance Adjustment', category_id: rta.id, cleared: 'reconciled', date: today });
    expect(clearedBalance(after, today)).toBe(statement);
    expect(done.adjustment.id).toBe(made[0].id);
    await undo(done.change_id, before);
  }, 60_000);

  it('with a statement file, names its rows missing from YNAB', async () => {
    const before = await rawTransactions(h, budget, account);
    const rows = [{ date: addDays(today, -1), payee: 'Missing Merchant', amount: -7_770 }];
    const preview = ok(
      await h.call('reconcile_account', {
        account_id: 'Everyday Checking',
        statement_balance_milliunits: clearedBalance(before, today) - 7_770,
        content: csv(rows),
      }),
    );
    const missing = preview.explanations.find((e: any) => e.kind === 'missing_from_ynab');
    expect(missing).toMatchObject({ count: 1, effect: -7_770, rows: [{ payee: 'Missing Merchant', amount: -7_770 }] });
  }, 60_000);
});
