/**
 * QIF as Quicken and other programs write it, each kind with a file written here: `!Account`
 * blocks, several accounts in one file, `!Type:` headers of every bank and card kind, lists and
 * investment sections beside them, and the refusals, each naming its line.
 */
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/statement-refusal.js';
import { parseStatement, parseStatements } from '../../src/statements/index.js';

const refusal = (content: string, format?: 'qif') => refusalOf(() => parseStatements({ content, ...(format ? { format } : {}) }));

describe('QIF accounts', () => {
  it("reads a file starting with Quicken's !Account header: the account's name and type, its rows", () => {
    const s = parseStatement({
      content: '!Account\nNEveryday Checking\nTBank\n^\n!Type:Bank\nD03/14/2024\nT-12.50\nPSHOP\n^\nD03/15/2024\nT100.00\nPPAY\n^\n',
    });
    expect(s.account).toEqual({ name: 'Everyday Checking', type: 'bank', line: 5 });
    expect(s.rows).toEqual([
      { line: 6, date: '2024-03-14', amount: -12_500, payee: 'SHOP' },
      { line: 10, date: '2024-03-15', amount: 100_000, payee: 'PAY' },
    ]);
  });

  it('reads !Type: headers of every bank and card kind, in any case and spacing', () => {
    const kinds: [string, string][] = [
      ['!Type:Bank', 'bank'],
      ['!Type:Cash', 'cash'],
      ['!Type:CCard', 'creditCard'],
      ['!Type:Oth A', 'otherAsset'],
      ['!Type:Oth L', 'otherLiability'],
      ['!type:bank', 'bank'],
      ['!Type: CCard ', 'creditCard'],
      ['!Type:Credit Card', 'creditCard'],
      ['!TYPE:OTH L', 'otherLiability'],
    ];
    for (const [header, type] of kinds) {
      const s = parseStatement({ content: `${header}\nD2024-03-14\nT-1.00\nPX\n^\n` });
      expect([header, s.account?.type, s.rows[0]?.amount]).toEqual([header, type, -1000]);
    }
  });

  it('gives each account of a multi-account file its own rows, and dates one order decided from the whole file', () => {
    const file =
      '!Option:AutoSwitch\n!Account\nNChecking\nTBank\n^\nNVisa\nTCCard\n^\n!Clear:AutoSwitch\n' +
      '!Account\nNChecking\nTBank\n^\n!Type:Bank\nD03/04/2024\nT-1.00\nPA\n^\n' +
      '!Account\nNVisa\nTCCard\n^\n!Type:CCard\nD25/04/2024\nT-2.00\nPB\n^\nD05/04/2024\nT-3.00\nPC\n^\n';
    const [bank, card] = parseStatements({ content: file });
    expect(bank!.account).toEqual({ name: 'Checking', type: 'bank', line: 14 });
    // Line 24's 25/04 decides day-first for the whole file, the checking account's 03/04 too.
    expect(bank!.rows).toEqual([{ line: 15, date: '2024-04-03', amount: -1000, payee: 'A' }]);
    expect(card!.account).toEqual({ name: 'Visa', type: 'creditCard', line: 23 });
    expect(card!.rows.map((r) => [r.date, r.amount])).toEqual([
      ['2024-04-25', -2000],
      ['2024-04-05', -3000],
    ]);
    expect(() => parseStatement({ content: file })).toThrow(
      `the file: found 2 accounts' statements: "Checking" (bank, line 14, 1 row); "Visa" (creditCard, line 23, 2 rows); ` +
        `expected one account's statement; to fix it, give one account's file, or statement_account`,
    );
  });

  it('skips lists (categories, classes, memorized) and investment sections, saying so, and reads the cash account beside them', () => {
    const file =
      '!Type:Cat\nNfood\nE\n^\n!Account\nNMy Cash\nTCash\n^\n!Type:Cash\nD23/10/2013\nT-6.50\nLfood\n^\n' +
      '!Account\nNBroker\nTInvst\n^\n!Type:Invst\nD25/07/1993\nNShrsIn\nYibm4\nT1000.00\n^\n!Type:Memorized\nT-50.00\nPJoe\nKC\n^\n!Type:Class\nNc\n^\n';
    const s = parseStatement({ content: file });
    expect(s.account).toEqual({ name: 'My Cash', type: 'cash', line: 9 });
    expect(s.rows).toEqual([{ line: 10, date: '2013-10-23', amount: -6500, payee: '' }]);
    expect(s.decisions).toContain('line 18: !Type:Invst (account "Broker") is an investment account\'s transactions: not read');
  });

  it('ignores detail lines that carry nothing a row needs (U, F, X…) and reads a last record with no ^', () => {
    const s = parseStatement({ content: '!Type:Bank\nD2024-03-14\nU-1,234.50\nT-1,234.50\nF\nXAinvoice\nPSHOP\n^\nD2024-03-15\nT5.00\nPLAST\n' });
    expect(s.rows.map((r) => [r.line, r.amount, r.payee])).toEqual([
      [2, -1_234_500, 'SHOP'],
      [9, 5000, 'LAST'],
    ]);
  });
});

describe('QIF dates and amounts', () => {
  it('takes the date order an !Option:DMY or !Option:MDY line states, where no date decides it', () => {
    expect(parseStatement({ content: '!Option:DMY\n!Type:Bank\nD03/04/2024\nT-1.00\n^\n' }).rows[0]!.date).toBe('2024-04-03');
    expect(parseStatement({ content: '!Option:MDY\n!Type:Bank\nD03/04/2024\nT-1.00\n^\n' }).rows[0]!.date).toBe('2024-03-04');
  });

  it('reads comma-decimal amounts (Quicken in a German or French locale), decided from every amount of the file', () => {
    const s = parseStatement({ content: '!Type:Bank\nD2024-03-14\nT-1.234,56\nPA\n^\nD2024-03-15\nT12,00\nPB\n^\n' });
    expect(s.rows.map((r) => r.amount)).toEqual([-1_234_560, 12_000]);
    expect(refusal('!Type:Bank\nD2024-03-14\nT-1.234,56\n^\nD2024-03-15\nT12.50\n^\n')).toMatch(
      /^line 5: found amount "12.50" with '.' .* line 2: "-1.234,56" with ','; expected one decimal separator in every amount of the file; to fix it, give columns.decimal_separator$/,
    );
  });
});

describe('QIF refusals', () => {
  it('refuses a file of an investment account alone, naming the line and what is read', () => {
    expect(refusal('!Type:Invst\nD25/07/1993\nNShrsIn\nT1000.00\n^\n')).toBe(
      "line 1: found !Type:Invst, an investment account's transactions; expected a bank, cash or card account's transactions (!Type:Bank, !Type:Cash, !Type:CCard, !Type:Oth A, !Type:Oth L); to fix it, export the account's bank or cash transactions instead",
    );
  });

  it('refuses an unknown !Type:, and lines before any header, naming the line', () => {
    expect(refusal('!Type:Bank\nD2024-03-14\nT-1.00\n^\n!Type:Savings Bond\nD2024-03-14\n^\n')).toMatch(
      /^line 5: found the section "!Type:Savings Bond"; expected !Type:Bank, !Type:Cash, !Type:CCard/,
    );
    expect(refusal('hello\n!Type:Bank\n', 'qif')).toMatch(/^line 1: found "hello" before any header; expected a QIF file starting with !Type:Bank/);
  });

  it('refuses a record without an amount, naming its line and what is expected', () => {
    expect(refusal('!Type:Bank\nD2024-03-14\nPSHOP\n^\n')).toBe('line 2: found a record with no T (amount) line; expected a T line, e.g. T-12.34');
  });
});
