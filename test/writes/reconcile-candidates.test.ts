/**
 * reconcile_account names what the difference most likely is, across three seeds, each today on
 * the middle of a month and on the first of one (this process's clock, which the server and the
 * sandbox share), and two statement dates, every expectation from the API's raw transactions: a transaction entered twice
 * (the same amount, payee and day, both cleared) explains exactly the difference it makes; where
 * nothing is exact, an uncleared transaction a few units off or with two digits swapped is named
 * before any adjustment, and "nothing explains it" is not said; no adjustment is dated before the
 * account's starting balance; and a confirmed reconcile answers with the account's cleared and
 * working balances after it, as the API then gives them.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, addMonths } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { rawTransactions } from './statement-helpers.js';

/** Today, in turn: the middle of this month and the first of the next (this process's clock, which the server and the sandbox share). */
const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
let today = '';
const CASES = ['reconcile', 'candidates-b', 'candidates-c'].flatMap((seed) => DATES.map((date) => [seed, date] as const));
const sum = (xs: readonly { amount: number }[]) => xs.reduce((n, x) => n + x.amount, 0);
const clearedBalance = (txns: any[], date: string) => sum(txns.filter((t) => t.date <= date && t.cleared !== 'uncleared'));

/** Whether some non-empty set of `amounts` adds up to `target` (brute force over at most 22). */
function someSubset(amounts: number[], target: number): boolean {
  const xs = amounts.slice(0, 22);
  const seen = new Set<number>([0]);
  for (const a of xs) for (const s of [...seen]) seen.add(s + a);
  seen.delete(0);
  return xs.length === amounts.length ? seen.has(target) : true;
}

describe.each(CASES)('reconcile_account names the candidate (seed %s on %s)', (seed, date) => {
  let h: McpHarness;
  let budget: string;
  let account: string;
  const name = 'Everyday Checking';

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    today = date;
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
    budget = h.sb.state.budgets[0]!.id;
    account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === name)!.id;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  it.each([0, 12])(
    'a cleared transaction entered twice explains the difference (statement %i days ago); then undone',
    async (back) => {
      const date = addDays(today, -back);
      const before = await rawTransactions(h, budget, account);
      const original = before.find((t) => t.date <= date && t.cleared === 'cleared' && t.amount < 0 && !t.transfer_account_id && t.payee_name);
      expect(original).toBeDefined();
      const statement = clearedBalance(before, date);
      const made = await h.sb.call('POST', `/budgets/${budget}/transactions`, {
        transaction: { account_id: account, date: original.date, amount: original.amount, payee_id: original.payee_id, cleared: 'cleared', approved: true },
      });
      expect(made.status).toBe(201);
      const twin = made.body.data.transaction.id;
      const preview = ok(await h.call('reconcile_account', { account_id: name, statement_balance_milliunits: statement, statement_date: date }));
      expect(preview.difference.milliunits).toBe(-original.amount);
      expect(preview.explanations).toHaveLength(1);
      expect(preview.explanations[0]).toMatchObject({ kind: 'possible_duplicate', count: 1, effect_milliunits: -original.amount });
      expect(preview.explanations[0].transactions.map((t: any) => t.id).sort()).toEqual([original.id, twin].sort());
      expect(preview.unexplained.milliunits).toBe(0);
      expect(preview.message).toMatch(/^Not reconciled: the difference is explained: a transaction entered twice/);
      expect(preview.message).not.toMatch(/nothing explains/);
      expect((await h.sb.call('DELETE', `/budgets/${budget}/transactions/${twin}`)).status).toBe(200);
    },
    60_000,
  );

  it.each([0, 12])(
    'nothing exact: the nearest uncleared transactions come before the adjustment (statement %i days ago)',
    async (back) => {
      const date = addDays(today, -back);
      const before = await rawTransactions(h, budget, account);
      const open = before.filter((t) => t.date <= date && t.cleared === 'uncleared');
      // An uncleared purchase of 71.86 on the statement's day; the bank says 71.68 (two digits swapped).
      const made = await h.sb.call('POST', `/budgets/${budget}/transactions`, {
        transaction: { account_id: account, date, amount: -71_860, payee_name: 'Corner Deli', cleared: 'uncleared', approved: true },
      });
      const id = made.body.data.transaction.id;
      const amounts = [...open.map((t) => t.amount), -71_860];
      const difference = -71_680;
      expect(someSubset(amounts, difference)).toBe(false);
      const statement = clearedBalance(before, date) + difference;
      const preview = ok(await h.call('reconcile_account', { account_id: name, statement_balance_milliunits: statement, statement_date: date }));
      expect(preview.difference.milliunits).toBe(difference);
      const near = preview.explanations.find((e: any) => e.kind === 'nearest');
      expect(near.effect_milliunits).toBe(0);
      expect(near.transactions[0]).toMatchObject({ id, amount_milliunits: -71_860, off_by_milliunits: 180, why: 'digits_swapped' });
      // Every other one named is an uncleared transaction of the account within 5.00 of the difference.
      for (const t of near.transactions.slice(1)) {
        const raw = before.find((x) => x.id === t.id);
        expect(raw.cleared).toBe('uncleared');
        expect(Math.abs(raw.amount - difference)).toBeLessThanOrEqual(5_000);
      }
      expect(preview.unexplained.milliunits).toBe(difference);
      expect(preview.message).toMatch(/nothing explains it exactly.*Check first the .*two digits swapped.*create_adjustment: true/);
      expect(preview.message).not.toMatch(/nothing explains it \(/);
      expect((await h.sb.call('DELETE', `/budgets/${budget}/transactions/${id}`)).status).toBe(200);
    },
    60_000,
  );

  it('no adjustment is dated before the account starts (its starting balance)', async () => {
    const before = await rawTransactions(h, budget, account);
    const start = before.find((t) => t.payee_name === 'Starting Balance')!.date;
    const date = addDays(start, -1);
    for (const create_adjustment of [false, true]) {
      const answer = ok(await h.call('reconcile_account', { account_id: name, statement_balance_milliunits: 10_000, statement_date: date, create_adjustment }));
      expect(answer.confirm_token).toBeUndefined();
      expect(answer.adjustment).toBeUndefined();
      expect(answer.message).toContain(`${date} is before the account's start (its starting balance, ${start})`);
      expect(answer.message).not.toMatch(/call again with create_adjustment: true/);
    }
    expect(await rawTransactions(h, budget, account)).toEqual(before);
  }, 60_000);

  it.each([0, 12])(
    'the confirm gives the balances after it, as the API has them (statement %i days ago); undo',
    async (back) => {
      const date = addDays(today, -back);
      const before = await rawTransactions(h, budget, account);
      const statement = clearedBalance(before, date) + 4_210;
      const { result } = await confirmed(h, 'reconcile_account', {
        account_id: name,
        statement_balance_milliunits: statement,
        statement_date: date,
        create_adjustment: true,
      });
      const done = ok(result);
      const api = (await h.sb.get(`/budgets/${budget}/accounts/${account}`)).body.data.account;
      const after = await rawTransactions(h, budget, account);
      expect(done.cleared_balance.milliunits).toBe(api.cleared_balance);
      expect(done.working_balance.milliunits).toBe(api.balance);
      expect(api.cleared_balance).toBe(sum(after.filter((t) => t.cleared !== 'uncleared')));
      expect(done.difference.milliunits).toBe(statement - clearedBalance(after, date));
      expect(done.difference.milliunits).toBe(0);
      expect(done.difference_before.milliunits).toBe(4_210);
      ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
    },
    60_000,
  );
});
