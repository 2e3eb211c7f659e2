/**
 * Issue 57, item 3: after an import, an ATM withdrawal the bank booked once is in Everyday
 * Checking twice: the "Transfer : Wallet" entered by hand, and the imported copy (import_id, no
 * category; YNAB's import matching never takes a transfer). reconcile_account to the bank's
 * balance names both, says which was imported and which entered by hand, and recommends deleting
 * the imported copy: deleting it closes the reconcile to the cent and leaves Wallet as it was,
 * where deleting the transfer would take Wallet's side with it and leave an uncategorized row.
 * With a statement balance alone and with the bank's statement file; and where the transfer is
 * still uncleared (the balances agree), a notice names the pair and the fix that keeps them so.
 * Three seeds, each today on the middle of a month and on the first of one; every figure from
 * the API's raw answers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays, addMonths } from '../../src/api/dates.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { csv, rawTransactions } from './statement-helpers.js';

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;
/** Today, in turn: the middle of this month and the first of the next. */
const DATES = [`${month0.slice(0, 8)}15`, addMonths(month0, 1)];
const CASES = ['reconcile', 'candidates-b', 'candidates-c'].flatMap((seed) => DATES.map((date) => [seed, date] as const));
const NAME = 'Everyday Checking';
const ATM = -60_000;
const sum = (xs: readonly { amount: number }[]) => xs.reduce((n, x) => n + x.amount, 0);
const clearedBalance = (txns: any[], date: string) => sum(txns.filter((t) => t.date <= date && t.cleared !== 'uncleared'));
const uncategorized = (txns: any[]) => txns.filter((t) => !t.category_id && !t.transfer_account_id && t.payee_name !== 'Starting Balance').length;

describe.each(CASES)('reconcile_account on an imported copy of a hand-entered transfer (seed %s on %s)', (seed, date) => {
  let h: McpHarness;
  let budget: string;
  let account: string;
  let wallet: any;
  const today = date;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed }, maxStalenessMs: 0 });
    budget = h.sb.state.budgets[0]!.id;
    const accounts = (await h.sb.get(`/budgets/${budget}/accounts`)).body.data.accounts;
    account = accounts.find((a: any) => a.name === NAME).id;
    wallet = accounts.find((a: any) => a.name === 'Wallet');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    vi.useRealTimers();
  });

  const walletBalance = async () => (await h.sb.get(`/budgets/${budget}/accounts/${wallet.id}`)).body.data.account.balance;

  /** The pair, made through the API as the app and an import would: the transfer by hand, then the bank's copy. */
  async function pair(day: string, n: number, handCleared = 'cleared') {
    const post = async (transaction: Record<string, unknown>) => {
      const res = await h.sb.call('POST', `/budgets/${budget}/transactions`, { transaction: { account_id: account, date: day, amount: ATM, ...transaction } });
      expect(res.status).toBe(201);
      return res.body.data.transaction;
    };
    const transfer = await post({ payee_id: wallet.transfer_payee_id, cleared: handCleared, approved: true });
    const imported = await post({ payee_name: 'ATM WITHDRAWAL 0423 PORTLAND OR', import_id: `YNAB:${ATM}:${day}:${n}`, cleared: 'cleared', approved: false });
    // YNAB's matching never merges an import into a transfer: two rows.
    expect(imported.id).not.toBe(transfer.id);
    expect(imported.category_id).toBeNull();
    return { transfer, imported };
  }

  /** Checks the answer names both, says how each came in, and recommends the imported copy; deletes it, then the reconcile closes to the cent. */
  async function recommendsTheCopy(args: (raw: any[]) => Record<string, unknown>, n: number) {
    const day = addDays(today, -1);
    const before = await rawTransactions(h, budget, account);
    const walletBefore = await walletBalance();
    // The bank booked the withdrawal once: its balance is YNAB's cleared balance with it once.
    const statement = clearedBalance(before, today) + ATM;
    const { transfer, imported } = await pair(day, n);
    const withPair = await rawTransactions(h, budget, account);
    const difference = statement - clearedBalance(withPair, today);
    expect(difference).toBe(-ATM);
    // The bank's statement is what it is: written once, from the days with the pair.
    const file = args(withPair);
    const preview = ok(await h.call('reconcile_account', { account_id: NAME, statement_balance_milliunits: statement, statement_date: today, ...file }));
    expect(preview.difference).toBe(difference);
    const dup = preview.explanations.find((e: any) => e.kind === 'possible_duplicate');
    expect(dup, JSON.stringify(preview.explanations)).toBeDefined();
    expect(dup.effect).toBe(difference);
    expect(preview.unexplained).toBe(0);
    // Both named, each with how it came in.
    const byId = new Map(dup.transactions.map((t: any) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual([transfer.id, imported.id].sort());
    expect(byId.get(imported.id)).toMatchObject({ entered: 'imported', import_id: imported.import_id, amount: ATM });
    expect(byId.get(transfer.id)).toMatchObject({ entered: 'by hand', transfer_account: 'Wallet', amount: ATM });
    expect((byId.get(transfer.id) as any).import_id).toBeUndefined();
    // The recommendation: the imported copy, and why, plainly.
    expect(dup.recommended.id).toBe(imported.id);
    expect(dup.recommended.why).toMatch(/imported/);
    expect(dup.recommended.why).toMatch(/Wallet/);
    expect(preview.message).toContain('delete the imported');
    // No other explanation names the transfer as missing from the statement.
    expect(
      preview.explanations.filter((e: any) => e.kind === 'missing_from_statement').flatMap((e: any) => e.transactions.map((t: any) => t.id)),
    ).not.toContain(transfer.id);
    expect(await rawTransactions(h, budget, account)).toEqual(withPair);

    // Deleting the row it recommends: the cleared balance is the statement's, to the cent, and Wallet is as it was.
    expect((await h.sb.call('DELETE', `/budgets/${budget}/transactions/${dup.recommended.id}`)).status).toBe(200);
    const after = await rawTransactions(h, budget, account);
    expect(statement - clearedBalance(after, today)).toBe(0);
    expect(await walletBalance()).toBe(walletBefore - ATM);
    expect(uncategorized(after)).toBe(uncategorized(before));
    const { preview: again, result } = await confirmed(h, 'reconcile_account', {
      account_id: NAME,
      statement_balance_milliunits: statement,
      statement_date: today,
      ...file,
    });
    expect(again.difference).toBe(0);
    expect(again.explanations).toBeUndefined();
    const done = ok(result);
    expect(done.difference).toBe(0);
    const api = (await h.sb.get(`/budgets/${budget}/accounts/${account}`)).body.data.account;
    expect(api.cleared_balance).toBe(sum((await rawTransactions(h, budget, account)).filter((t) => t.cleared !== 'uncleared')));
    // Put back as it was: the reconcile undone, the transfer deleted.
    ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
    expect((await h.sb.call('DELETE', `/budgets/${budget}/transactions/${transfer.id}`)).status).toBe(200);
  }

  it('the transfer still uncleared: the balances agree, and the answer says the pair is one, and how to fix it without moving them', async () => {
    const day = addDays(today, -1);
    const before = await rawTransactions(h, budget, account);
    const walletBefore = await walletBalance();
    const statement = clearedBalance(before, today) + ATM;
    const { transfer, imported } = await pair(day, 3, 'uncleared');
    const args = { account_id: NAME, statement_balance_milliunits: statement, statement_date: today };
    const preview = ok(await h.call('reconcile_account', args));
    expect(preview.difference).toBe(statement - clearedBalance(await rawTransactions(h, budget, account), today));
    expect(preview.difference).toBe(0);
    const notice = preview.notices.find((n: string) => n.includes('look like one'));
    expect(notice, JSON.stringify(preview.notices)).toContain(`"Transfer : Wallet" -$60.00 on ${day}, entered by hand and uncleared`);
    expect(notice).toContain(`the imported "ATM WITHDRAWAL 0423 PORTLAND OR" -$60.00 on ${day}`);
    expect(notice).toContain('delete the imported one and mark the other cleared');
    // Done as it says, through the API: the cleared balance is still the statement's, Wallet as it was, and nothing is said.
    expect((await h.sb.call('DELETE', `/budgets/${budget}/transactions/${imported.id}`)).status).toBe(200);
    expect((await h.sb.call('PUT', `/budgets/${budget}/transactions/${transfer.id}`, { transaction: { cleared: 'cleared' } })).status).toBe(200);
    expect(statement - clearedBalance(await rawTransactions(h, budget, account), today)).toBe(0);
    expect(await walletBalance()).toBe(walletBefore - ATM);
    const again = ok(await h.call('reconcile_account', args));
    expect(again.difference).toBe(0);
    expect((again.notices ?? []).filter((n: string) => n.includes('look like one'))).toEqual([]);
    expect((await h.sb.call('DELETE', `/budgets/${budget}/transactions/${transfer.id}`)).status).toBe(200);
  }, 60_000);

  it('with a statement balance: names both, recommends the imported copy; deleting it closes to the cent', async () => {
    await recommendsTheCopy(() => ({}), 1);
  }, 60_000);

  it("with the bank's statement file: the same, and the transfer is not called missing from the statement", async () => {
    // The bank's rows of the last days: what YNAB has cleared there, less the hand-entered transfer (the bank booked the ATM once).
    const first = addDays(today, -3);
    await recommendsTheCopy(
      (raw) => ({
        content: csv(
          raw
            .filter((t) => t.date >= first && t.date <= today && t.cleared !== 'uncleared' && !(t.transfer_account_id === wallet.id && t.amount === ATM))
            .sort((a, b) => a.date.localeCompare(b.date))
            .map((t) => ({ date: t.date, amount: t.amount, payee: t.import_id ? 'ATM WITHDRAWAL 0423 PORTLAND OR' : (t.payee_name ?? 'Bank') })),
        ),
      }),
      2,
    );
  }, 60_000);
});
