/**
 * import_statement gives new rows the payees the budget knows, through a real MCP client against
 * the sandbox over HTTP. The statement is the one `ynab-mcp sandbox statement` writes for a demo
 * account (bankView: its new rows carry bank texts such as "SHELL OIL 57442" and
 * "SQ *BLUE BOTTLE COFFEE"), plus one row no payee matches. Expectations come from the API's raw
 * payees and transactions:
 *  - a row whose text names a payee with history is created with that payee's id; the preview
 *    shows that payee beside the bank's text, and no payee of the raw text is created;
 *  - a row nothing matches gets a new payee of the cleaned name, never the raw text;
 *  - the bank's text is kept in the created transaction's memo;
 *  - approve_transactions sets a payee (by name) while approving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { bankView } from '../../src/commands/statement-bank.js';
import { cleanPayeeName } from '../../src/statements/index.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, rawTransactions, type Row } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
const ACCOUNT = 'Everyday Checking';
let h: McpHarness;
let budget: string;
let account: string;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'import-payees' } });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === ACCOUNT)!.id;
}, 60_000);
afterAll(() => h.close());

const payees = async (): Promise<any[]> => (await h.sb.get(`/budgets/${budget}/payees`)).body.data.payees.filter((p: any) => !p.deleted);

describe('import_statement and the payees the budget knows', () => {
  it('creates known bank texts with the existing payee, an unknown one with a cleaned name, the bank text in the memo', async () => {
    const rec = h.sb.state.budgets[0]!.rec;
    const view = bankView(rec, rec.accounts.get(account)!, { from: addDays(today, -20), to: today, seed: 'import-payees', discrepancies: 3 });
    const known = view.discrepancies.new_rows;
    expect(known.map((r) => r.payee)).toEqual(['SQ *BLUE BOTTLE COFFEE', 'AMZN MKTP US*2K4LM19', 'SHELL OIL 57442']);
    const before = await payees();
    const idOf = (name: string) => before.find((p) => p.name === name)?.id;
    const expected: Record<string, string> = {
      'SQ *BLUE BOTTLE COFFEE': idOf('Blue Bottle Coffee'),
      'AMZN MKTP US*2K4LM19': idOf('Amazon'),
      'SHELL OIL 57442': idOf('Shell'),
    };
    for (const id of Object.values(expected)) expect(id, 'the demo budget has these payees').toBeTruthy();
    const txns = await rawTransactions(h, budget, account);
    const unknown: Row = { date: addDays(today, -2), payee: 'TST* ZYXQ TAVERN 4471', amount: freeAmount(txns, addDays(today, -2), new Set(), -43_210) };
    const rows: Row[] = [...view.statement.rows.map((r) => ({ date: r.date, payee: r.payee, amount: r.amount })), unknown];

    const { preview, result } = await confirmed(h, 'import_statement', { account_id: ACCOUNT, content: csv(rows), columns: COLUMNS });
    for (const r of known) {
      const row = preview.rows.find((x: any) => x.status === 'new' && x.bank_text === r.payee);
      expect(row, r.payee).toMatchObject({ payee_id: expected[r.payee], payee: before.find((p) => p.id === expected[r.payee]).name, bank_text: r.payee });
    }
    expect(preview.rows.find((x: any) => x.bank_text === unknown.payee)).toMatchObject({ status: 'new', payee: 'Zyxq Tavern', payee_basis: 'new payee' });
    expect(ok(result).created).toBe(4);

    const after = await rawTransactions(h, budget, account);
    for (const r of [...known, unknown]) {
      const made = after.filter((t) => t.import_id === `YNAB:${r.amount}:${r.date}:1`);
      expect(made, r.payee).toHaveLength(1);
      expect(made[0].memo, r.payee).toContain(r.payee);
      if (expected[r.payee]) expect(made[0].payee_id, r.payee).toBe(expected[r.payee]);
    }
    const now = await payees();
    const names = now.map((p) => p.name);
    for (const r of [...known, unknown]) expect(names, r.payee).not.toContain(r.payee);
    // One payee was created, the unknown row's, with the cleaned name.
    expect(now.filter((p) => !before.some((b) => b.id === p.id)).map((p) => p.name)).toEqual(['Zyxq Tavern']);
    const tavern = after.find((t) => t.import_id === `YNAB:${unknown.amount}:${unknown.date}:1`);
    expect(tavern.payee_name).toBe('Zyxq Tavern');

    // Renamed by the user, the payee is still the one for that text: earlier imports of it say so.
    ok(await h.call('update_payee', { payee_id: tavern.payee_id, name: 'Quiet Corner' }));
    const later: Row = { date: addDays(today, -1), payee: 'TST* ZYXQ TAVERN 5521', amount: freeAmount(after, addDays(today, -1), new Set(), -52_340) };
    const next = ok(await h.call('import_statement', { account_id: ACCOUNT, content: csv([later]), columns: COLUMNS }));
    expect(next.rows[0]).toMatchObject({ status: 'new', payee: 'Quiet Corner', payee_id: tavern.payee_id, payee_basis: 'earlier imports: 1 of 1' });
  }, 60_000);

  it('approve_transactions sets payees (by name) while approving', async () => {
    const txns = await rawTransactions(h, budget, account);
    const t = txns.find((x) => !x.approved && !x.transfer_account_id && x.payee_name !== 'Shell');
    expect(t, 'an unapproved transaction').toBeTruthy();
    const shell = (await payees()).find((p) => p.name === 'Shell');
    const res = ok(await h.call('approve_transactions', { transaction_ids: [t.id], payees: { [t.id]: 'Shell' } }));
    expect(res.updated).toBe(1);
    const after = (await rawTransactions(h, budget, account)).find((x) => x.id === t.id);
    expect(after).toMatchObject({ approved: true, payee_id: shell.id });
  });
});

describe('cleanPayeeName', () => {
  it.each([
    ['SQ *BLUE BOTTLE COFFEE', 'Blue Bottle Coffee'],
    ['TST* PIZZA PLACE', 'Pizza Place'],
    ['PAYPAL *NETFLIX', 'Netflix'],
    ['AMZN MKTP US*2K4LM19', 'Amazon'],
    ['SHELL OIL 57442', 'Shell Oil'],
    ['TRADER JOE S #552', "Trader Joe's"],
    ['CVS/PHARMACY #08821', 'CVS/Pharmacy'],
    ['UBER *TRIP HELP.UBER', 'Uber'],
    ['POS PURCHASE SAFEWAY #1234', 'Safeway'],
    ['CHECKCARD 0412 STARBUCKS STORE 0031', 'Starbucks'],
    ['REWE SAGT DANKE 4471', 'Rewe Sagt Danke'],
    ['Forever 21', 'Forever 21'],
    ['Corner Cafe', 'Corner Cafe'],
    ['123456', '123456'],
  ])('%s -> %s', (text, name) => expect(cleanPayeeName(text)).toBe(name));
});
