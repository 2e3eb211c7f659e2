/**
 * Issue 57's import case, built from the demo's own data on three seeds and two dates (the middle
 * of a month and the first of one): a Chase-format CSV (Details, Posting Date, Description, Amount,
 * Type, Balance, Check or Slip #, newest first) of 23 rows for Demo Household's "Everyday
 * Checking": 16 of the account's own transactions as the bank writes them, an ATM withdrawal the
 * same day as a hand-entered "Transfer : Wallet" of the same amount, "WHOLEFDS PDX 10234
 * PORTLAND OR" the same day as a hand-entered Whole Foods Market purchase $2.00 less, and 5 rows
 * the budget does not have. Both hand entries are made through the API first. Every expectation is
 * worked out here from the API's raw transactions:
 *  - the preview matches the ATM row to the transfer and names the Whole Foods pair as a conflict
 *    beside the row; new rows are the 5 truly new ones; the balance check compares the statement
 *    with the cleared balance, the conflict row's amount the whole difference;
 *  - confirming creates the 5 and no second pair of lines; the conflict goes in only by an
 *    explicit choice (`conflicts: {"<line>": "same"}` sets the hand entry to the bank's amount
 *    and clears it); the same file again adds nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { afterOutsideChange, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { shiftMonth } from '../insights/raw.js';
import { decimal, freeAmount, rawTransactions } from './statement-helpers.js';

const now = new Date();
const month0 = `${now.toISOString().slice(0, 7)}-01`;
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];
const SEEDS = ['test', 'import-chase-a', 'import-chase-b'];

interface BankRow {
  date: string;
  text: string;
  amount: number;
  type: string;
  /** The transaction of the account the row is, where the budget has it. */
  id?: string;
}

/** The bank's text for a transaction of the account, as a bank writes it. */
function bankText(t: any, accounts: Map<string, string>, i: number): string {
  if (t.import_payee_name_original) return t.import_payee_name_original;
  if (t.transfer_account_id) return `ONLINE TRANSFER ${t.amount < 0 ? 'TO' : 'FROM'} ${accounts.get(t.transfer_account_id)!.toUpperCase()}`.slice(0, 32);
  return `${(t.payee_name ?? 'POS PURCHASE').toUpperCase()}${t.amount < 0 ? ` #${1000 + i}` : ''}`;
}

/** A US date as Chase writes it: M/D/YYYY. */
const us = (d: string) => `${Number(d.slice(5, 7))}/${Number(d.slice(8, 10))}/${d.slice(0, 4)}`;

/** Chase's checking export: newest first, each row's running balance, a trailing comma. */
function chaseCsv(rows: readonly BankRow[], closing: number): { text: string; lines: Map<BankRow, number> } {
  const sorted = [...rows].sort((a, b) => b.date.localeCompare(a.date));
  let balance = closing;
  const lines = new Map<BankRow, number>();
  const out = ['Details,Posting Date,"Description",Amount,Type,Balance,Check or Slip #,'];
  for (const r of sorted) {
    lines.set(r, out.length + 1);
    out.push(`${r.amount < 0 ? 'DEBIT' : 'CREDIT'},${us(r.date)},"${r.text}",${decimal(r.amount)},${r.type},${decimal(balance)},,`);
    balance -= r.amount;
  }
  return { text: `${out.join('\n')}\n`, lines };
}

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('import_statement, the Chase case, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  let budget: string;
  let account: string;
  const today = date;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
    const rec = h.sb.state.budgets.find((b) => b.rec.name === 'Demo Household')!.rec;
    budget = rec.id;
    account = [...rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
  }, 60_000);
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it('matches the ATM row to the transfer, names the Whole Foods pair a conflict, creates only the new rows, and never a second pair', async () => {
    const accounts = new Map<string, string>(
      (await h.sb.get(`/budgets/${budget}/accounts`)).body.data.accounts.map((a: any) => [a.id, a.name] as [string, string]),
    );
    const wallet = (await h.sb.get(`/budgets/${budget}/accounts`)).body.data.accounts.find((a: any) => a.name === 'Wallet');
    const payees = (await h.sb.get(`/budgets/${budget}/payees`)).body.data.payees as any[];
    const wholeFoods = payees.find((p) => p.name === 'Whole Foods Market' && !p.deleted);
    let txns = await rawTransactions(h, budget, account, addDays(today, -60));
    const used = new Set<number>();
    // The two hand entries, of amounts nothing else of the account has within 10 days.
    const atmDay = addDays(today, -6);
    const wfDay = addDays(today, -4);
    const atm = freeAmount(txns, atmDay, used, -60_000);
    const wfHand = freeAmount(txns, wfDay, used, -61_720);
    const wfBank = freeAmount(txns, wfDay, used, wfHand - 2_000);
    const made = (
      await h.sb.call('POST', `/budgets/${budget}/transactions`, {
        transactions: [
          { account_id: account, date: atmDay, amount: atm, payee_id: wallet.transfer_payee_id, cleared: 'uncleared', approved: true },
          { account_id: account, date: wfDay, amount: wfHand, payee_id: wholeFoods.id, cleared: 'uncleared', approved: true, memo: 'Entered at the till' },
        ],
      })
    ).body.data.transactions as any[];
    expect(made).toHaveLength(2);
    const [transfer, handWf] = made;
    expect(transfer.transfer_account_id).toBe(wallet.id);
    await afterOutsideChange();
    txns = await rawTransactions(h, budget, account, addDays(today, -60));

    // 16 of the account's own transactions before the last two days, as the bank writes them.
    const own = txns
      .filter((t) => t.id !== transfer.id && t.id !== handWf.id && t.date <= addDays(today, -2) && t.date >= addDays(today, -30))
      .sort((a, b) => b.date.localeCompare(a.date) || a.id.localeCompare(b.id))
      .slice(0, 16);
    const first = [...own.map((t) => t.date), atmDay].sort()[0]!;
    const rows: BankRow[] = own.map((t, i) => ({
      date: t.date,
      text: bankText(t, accounts, i),
      amount: t.amount,
      type: t.transfer_account_id ? 'ACCT_XFER' : t.amount < 0 ? 'DEBIT_CARD' : 'ACH_CREDIT',
      id: t.id,
    }));
    const atmRow: BankRow = { date: atmDay, text: 'ATM WITHDRAWAL                       001234  03/8888 DELANC', amount: atm, type: 'ATM', id: transfer.id };
    const wfRow: BankRow = { date: wfDay, text: 'WHOLEFDS PDX 10234 PORTLAND OR', amount: wfBank, type: 'DEBIT_CARD' };
    const texts = ['SQ *BLUE BOTTLE COFFEE', 'AMZN Mktp US*2K4LM19', 'SHELL OIL 57442', 'CVS/PHARMACY #08821', 'TST* ZYXW NOODLE BAR 4471'];
    const fresh: BankRow[] = texts.map((text, i) => {
      const d = addDays(today, -3 - i);
      return { date: d, text, amount: freeAmount(txns, d, used, -12_340 - i * 1_110), type: 'DEBIT_CARD' };
    });
    const all = [...rows, atmRow, wfRow, ...fresh];
    expect(all).toHaveLength(23);
    // The bank's balance: what cleared in YNAB, the statement's rows YNAB has uncleared, and the rows it lacks.
    const last = [...all.map((r) => r.date)].sort().at(-1)!;
    const cleared = (await rawTransactions(h, budget, account)).filter((t) => t.cleared !== 'uncleared' && t.date <= last).reduce((s, t) => s + t.amount, 0);
    const unclearedOnStatement = all.filter((r) => r.id && txns.find((t) => t.id === r.id)!.cleared === 'uncleared').reduce((s, r) => s + r.amount, 0);
    const closing = cleared + unclearedOnStatement + wfBank + fresh.reduce((s, r) => s + r.amount, 0);
    const { text, lines } = chaseCsv(all, closing);

    const args = { account_id: 'Everyday Checking', budget_id: budget, content: text };
    const preview = ok(await h.call('import_statement', args));
    const row = (r: BankRow) => preview.rows.find((x: any) => x.line === lines.get(r));
    // The ATM withdrawal is the hand-entered transfer, whatever its text.
    expect(row(atmRow)).toMatchObject({ status: 'matched', id: transfer.id });
    for (const r of rows) expect(row(r), r.text).toMatchObject({ status: 'matched', id: r.id });
    // The Whole Foods pair: a conflict named beside the row, not a new payee.
    expect(row(wfRow)).toMatchObject({
      status: 'conflict',
      candidates: [handWf.id],
      conflict_with: [{ id: handWf.id, date: wfDay, payee: 'Whole Foods Market', amount: wfHand }],
    });
    for (const r of fresh) expect(row(r), r.text).toMatchObject({ status: 'new', amount: r.amount, date: r.date });
    expect(preview.totals).toMatchObject({ rows: 23, new: 5, matched: 17, conflict: 1, skipped: 0 });
    expect(row(fresh[1]!)).toMatchObject({ payee: 'Amazon' });
    // The balance check: the statement against the cleared balance; the conflict row is the difference.
    expect(preview.balance).toMatchObject({ date: last, statement: closing, difference: wfBank, compared_with: 'cleared balance' });
    expect(preview.balance.ynab_cleared_after_import).toBe(closing - wfBank);
    expect(first <= atmDay).toBe(true);

    const before = await rawTransactions(h, budget, account);
    const done = ok(await h.call('import_statement', { ...args, confirm_token: preview.confirm_token }));
    expect(done.created).toBe(5);
    const after = await rawTransactions(h, budget, account);
    expect(after).toHaveLength(before.length + 5);
    // No second pair of lines: one transaction of each hand-entered amount on its day, none of the bank's Whole Foods amount.
    expect(after.filter((t) => t.date === atmDay && t.amount === atm)).toHaveLength(1);
    expect(after.filter((t) => t.amount === wfBank)).toHaveLength(0);
    expect(after.find((t) => t.id === transfer.id).cleared).toBe('cleared');

    // The conflict goes in only by an explicit choice: "same" makes the hand entry the bank's row.
    await afterOutsideChange();
    const chosen = { ...args, conflicts: { [String(lines.get(wfRow)!)]: 'same' } };
    const second = ok(await h.call('import_statement', chosen));
    expect(second.totals).toMatchObject({ new: 0, conflict: 0 });
    expect(second.rows.find((x: any) => x.line === lines.get(wfRow))).toMatchObject({
      status: 'matched',
      id: handWf.id,
      chosen: 'same',
    });
    ok(await h.call('import_statement', { ...chosen, confirm_token: second.confirm_token }));
    const final = await rawTransactions(h, budget, account);
    expect(final).toHaveLength(after.length);
    expect(final.find((t) => t.id === handWf.id)).toMatchObject({ amount: wfBank, cleared: 'cleared' });

    // The same file again adds nothing.
    await afterOutsideChange();
    const again = ok(await h.call('import_statement', args));
    expect(again.preview).toBeUndefined();
    expect(again).toMatchObject({ created: 0, totals: { new: 0, conflict: 0, matched: 23 } });
    expect(await rawTransactions(h, budget, account)).toHaveLength(final.length);
  }, 60_000);

  it("reads WHOLEFDS as the budget's Whole Foods Market with its category, never Electric; weak evidence abstains and says so", async () => {
    await afterOutsideChange();
    const txns = await rawTransactions(h, budget, account, addDays(today, -60));
    const used = new Set<number>();
    const d = addDays(today, -1);
    const wf = freeAmount(txns, d, used, -47_310);
    const odd = freeAmount(txns, d, used, -23_450);
    const { text } = chaseCsv(
      [
        { date: d, text: 'WHOLEFDS PDX 10234 PORTLAND OR', amount: wf, type: 'DEBIT_CARD' },
        { date: d, text: 'PORTLAND QXZ ROASTERS 0412', amount: odd, type: 'DEBIT_CARD' },
      ],
      0,
    );
    // Whole Foods Market's category, as its categorized, approved purchases in the raw API have it most.
    const all = (await h.sb.get(`/budgets/${budget}/transactions`)).body.data.transactions as any[];
    const votes = new Map<string, number>();
    for (const t of all)
      if (!t.deleted && t.payee_name === 'Whole Foods Market' && t.approved && t.category_name && t.subtransactions.length === 0)
        votes.set(t.category_name, (votes.get(t.category_name) ?? 0) + 1);
    const groceries = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const preview = ok(await h.call('import_statement', { account_id: 'Everyday Checking', budget_id: budget, content: text }));
    const wfRow = preview.rows.find((x: any) => x.amount === wf);
    expect(wfRow).toMatchObject({ status: 'new', payee: 'Whole Foods Market' });
    expect(wfRow.category ?? wfRow.suggestion?.category).toBe(groceries);
    const oddRow = preview.rows.find((x: any) => x.amount === odd);
    expect(oddRow).toMatchObject({ status: 'new', suggestion: { category: null, why: expect.stringMatching(/^no category suggested/) } });
    expect(oddRow.category).toBeUndefined();
    for (const r of preview.rows) expect([r.category, r.suggestion?.category]).not.toContain('Electric');
  }, 60_000);

  it('a conflict goes in as another transaction only when chosen "new"; a choice naming no line or no candidate is refused, nothing written', async () => {
    await afterOutsideChange();
    const txns = await rawTransactions(h, budget, account, addDays(today, -60));
    const payees = (await h.sb.get(`/budgets/${budget}/payees`)).body.data.payees as any[];
    const wholeFoods = payees.find((p) => p.name === 'Whole Foods Market' && !p.deleted);
    const used = new Set<number>();
    const d = addDays(today, -3);
    const handAmount = freeAmount(txns, d, used, -38_410);
    const bankAmount = freeAmount(txns, d, used, handAmount - 1_500);
    const hand = (
      await h.sb.call('POST', `/budgets/${budget}/transactions`, {
        transaction: { account_id: account, date: d, amount: handAmount, payee_id: wholeFoods.id, cleared: 'uncleared', approved: true },
      })
    ).body.data.transaction;
    // The clock stands still here (faked): a minute on, so that the server's copy is stale and reads YNAB again.
    vi.setSystemTime(Date.now() + 61_000);
    const row: BankRow = { date: d, text: 'WHOLEFDS PDX 10234 PORTLAND OR', amount: bankAmount, type: 'DEBIT_CARD' };
    const { text, lines } = chaseCsv([row], 0);
    const line = String(lines.get(row)!);
    const args = { account_id: 'Everyday Checking', budget_id: budget, content: text };
    expect(ok(await h.call('import_statement', args)).rows[0]).toMatchObject({ status: 'conflict', candidates: [hand.id] });
    const before = await rawTransactions(h, budget, account);
    for (const [conflicts, message] of [
      [{ x: 'same' }, /"x" is not a line number/],
      [{ '999': 'same' }, /no row at line 999/],
      [{ [line]: 'not-a-candidate' }, /not-a-candidate is not a candidate of line/],
    ] as const) {
      const res = await h.call('import_statement', { ...args, conflicts });
      expect(res.isError, JSON.stringify(conflicts)).toBe(true);
      expect(res.content[0].text).toMatch(message);
    }
    const chosen = ok(await h.call('import_statement', { ...args, conflicts: { [line]: 'new' } }));
    expect(chosen.rows[0]).toMatchObject({ status: 'new', chosen: 'new' });
    expect(await rawTransactions(h, budget, account)).toEqual(before);
    const done = ok(await h.call('import_statement', { ...args, conflicts: { [line]: 'new' }, confirm_token: chosen.confirm_token }));
    expect(done.created).toBe(1);
    const after = await rawTransactions(h, budget, account);
    expect(after.filter((t) => t.date === d && t.amount === bankAmount)).toHaveLength(1);
    expect(after.find((t) => t.id === hand.id)).toEqual(before.find((t) => t.id === hand.id));
  }, 60_000);
});
