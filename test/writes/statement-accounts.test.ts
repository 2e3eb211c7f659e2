/**
 * A statement file of several accounts through import_statement and reconcile_account (a real MCP
 * client, the sandbox over HTTP): the account's own statement is read where the file says which
 * it is (its type, its QIF name), the call is refused listing the file's accounts where nothing
 * does, and statement_account picks one. And a file read by path reaches the reader as bytes, so
 * a Windows-1252 QFX keeps its "€" and "—".
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import type * as E from '../../src/api/schemas/entities.js';
import { parseStatements } from '../../src/statements/index.js';
import { pickStatement } from '../../src/writes/statement/statement-account.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { decimal, freeAmount, rawTransactions } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'statement-accounts' }, flags: { localFiles: true } });
  budget = h.sb.state.budgets[0]!.id;
  for (const a of h.sb.state.budgets[0]!.rec.accounts.values()) ids[a.name] = a.id;
}, 60_000);
afterAll(() => h.close());

const day = (d: string) => d.replace(/-/g, '');

/** An OFX 1 file of a checking account (number 111122223333) and a card (XXXX9876), rows as given, closing tags left out as banks do. */
function twoAccounts(checking: { date: string; amount: number }, card: { date: string; amount: number }[]): string {
  const trn = (r: { date: string; amount: number }, name: string, i: number) =>
    `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>${day(r.date)}<TRNAMT>${decimal(r.amount)}<FITID>${name}${i}<NAME>${name} ${i}\n`;
  return `OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nCHARSET:1252\n\n<OFX>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>9<ACCTID>111122223333<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>${day(addDays(today, -20))}<DTEND>${day(today)}
${trn(checking, 'CHECKING SHOP', 0)}</STMTRS></STMTTRNRS></BANKMSGSRSV1>
<CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>2<CCSTMTRS><CURDEF>USD<CCACCTFROM><ACCTID>XXXX9876</CCACCTFROM>
<BANKTRANLIST><DTSTART>${day(addDays(today, -20))}<DTEND>${day(today)}
${card.map((r, i) => trn(r, 'CARD SHOP', i)).join('')}</BANKTRANLIST></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1>
</OFX>
`;
}

async function rowsFor(account: string, n: number, start: number) {
  const txns = await rawTransactions(h, budget, ids[account]!);
  const used = new Set<number>();
  return Array.from({ length: n }, (_, i) => {
    const date = addDays(today, -2 - i);
    return { date, amount: freeAmount(txns, date, used, start - i * 1000) };
  });
}

describe('a statement file of several accounts', () => {
  it("imports into a credit card account the file's card statement alone, saying why; nothing reaches the checking account", async () => {
    const card = await rowsFor('Visa Rewards', 2, -71_230);
    const [checking] = await rowsFor('Everyday Checking', 1, -81_230);
    const content = twoAccounts(checking!, card);
    const checkingBefore = await rawTransactions(h, budget, ids['Everyday Checking']!);
    const { preview, result } = await confirmed(h, 'import_statement', { account_id: 'Visa Rewards', content });
    expect(preview.format).toBe('ofx');
    expect(preview.rows.map((r: any) => [r.status, r.bank_text, r.amount])).toEqual(card.map((r, i) => ['new', `CARD SHOP ${i}`, r.amount]));
    expect(preview.decisions[0]).toBe(
      'the file holds 2 accounts: read number XXXX9876 (creditCard, line 11, 2 rows), as it is the file\'s only creditCard statement, and "Visa Rewards" is a creditCard account',
    );
    expect(ok(result).created).toBe(2);
    const visa = await rawTransactions(h, budget, ids['Visa Rewards']!);
    for (const r of card) expect(visa.some((t) => t.date === r.date && t.amount === r.amount)).toBe(true);
    expect(await rawTransactions(h, budget, ids['Everyday Checking']!)).toEqual(checkingBefore);
  }, 60_000);

  it('refuses where nothing says which is the account, listing them and the argument; statement_account picks one', async () => {
    const [checking] = await rowsFor('Rainy Day Savings', 1, -61_230);
    const content = twoAccounts(checking!, [{ date: addDays(today, -3), amount: -1_000 }]);
    const before = await rawTransactions(h, budget, ids['Rainy Day Savings']!);
    const res = await h.call('import_statement', { account_id: 'Rainy Day Savings', content });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toContain(
      "the file holds 2 accounts' statements: number 111122223333 (checking, line 7, 1 row); number XXXX9876 (creditCard, line 11, 1 row); " +
        'nothing in it says which is "Rainy Day Savings" (no name, number or type of the file matches it). Give statement_account',
    );
    const picked = ok(await h.call('import_statement', { account_id: 'Rainy Day Savings', content, statement_account: '3333' }));
    expect(picked.rows.map((r: any) => [r.bank_text, r.amount])).toEqual([['CHECKING SHOP 0', checking!.amount]]);
    expect(picked.decisions[0]).toMatch(/^the file holds 2 accounts: read number 111122223333 \(checking, line 7, 1 row\), as statement_account says/);
    const wrong = await h.call('import_statement', { account_id: 'Rainy Day Savings', content, statement_account: '5555' });
    expect(wrong.content[0].text).toMatch(/statement_account "5555" names none of the file's accounts: number 111122223333/);
    // reconcile_account reads the file the same way.
    const rec = await h.call('reconcile_account', { account_id: 'Rainy Day Savings', statement_balance: 1, content });
    expect(rec.content[0].text).toMatch(/the file holds 2 accounts' statements.*Give statement_account/);
    expect(await rawTransactions(h, budget, ids['Rainy Day Savings']!)).toEqual(before);
  }, 60_000);

  it('reads the QIF account named as the YNAB account is', async () => {
    const [wallet] = await rowsFor('Wallet', 1, -51_230);
    const d = wallet!.date.split('-');
    const qif =
      `!Account\nNEveryday Checking\nTBank\n^\n!Type:Bank\nD${d[1]}/${d[2]}/${d[0]}\nT-3.00\nPOTHER\n^\n` +
      `!Account\nNWallet\nTCash\n^\n!Type:Cash\nD${d[1]}/${d[2]}/${d[0]}\nT${decimal(wallet!.amount)}\nPCASH SHOP\n^\n`;
    const preview = ok(await h.call('import_statement', { account_id: 'Wallet', content: qif, columns: { date_format: 'MM/DD/YYYY' } }));
    expect(preview.rows.map((r: any) => [r.bank_text, r.amount])).toEqual([['CASH SHOP', wallet!.amount]]);
    expect(preview.decisions[0]).toMatch(/^the file holds 2 accounts: read "Wallet" \(cash, line 14, 1 row\), as its name is the account's/);
  }, 60_000);
});

describe('a statement file read by path', () => {
  it('reaches the reader as bytes: a Windows-1252 QFX keeps its € and —', async () => {
    const [row] = await rowsFor('Everyday Checking', 1, -41_230);
    const head = `OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nENCODING:USASCII\nCHARSET:1252\n\n<OFX><SIGNONMSGSRSV1><SONRS><INTU.BID>3000</SONRS></SIGNONMSGSRSV1><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST><STMTTRN><DTPOSTED>${day(row!.date)}<TRNAMT>${decimal(row!.amount)}<NAME>`;
    const tail = '</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n';
    // "Café Métro — 5 €" in Windows-1252.
    const payee = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x4d, 0xe9, 0x74, 0x72, 0x6f, 0x20, 0x97, 0x20, 0x35, 0x20, 0x80]);
    const file = join(mkdtempSync(join(tmpdir(), 'ynab-qfx-')), 'statement.qfx');
    writeFileSync(file, Buffer.concat([Buffer.from(head, 'latin1'), payee, Buffer.from(tail, 'latin1')]));
    const preview = ok(await h.call('import_statement', { account_id: 'Everyday Checking', path: file }));
    expect(preview.format).toBe('qfx');
    expect(preview.rows[0]).toMatchObject({ payee: 'Café Métro — 5 €', amount: row!.amount });
  }, 60_000);
});

describe("which statement of a file is the account's", () => {
  const account = (name: string, type: string, note: string | null = null) => ({ name, type, note }) as E.AccountBase;
  const parts = () => parseStatements({ content: twoAccounts({ date: today, amount: -1000 }, [{ date: today, amount: -2000 }]) });

  it("the one whose number's last four digits the account's name or note has", () => {
    expect(pickStatement(parts(), account('Joint', 'checking', 'card ending 9876'), undefined).account?.number).toBe('XXXX9876');
    expect(pickStatement(parts(), account('Chase 3333', 'creditCard'), undefined).account?.number).toBe('111122223333');
  });

  it('not a checking statement for a savings account: the file says CHECKING', () => {
    expect(() => pickStatement(parts(), account('Savings', 'savings'), undefined)).toThrow(/nothing in it says which is "Savings"/);
  });
});
