/** CSV bank exports read by parseStatement: presets, detection, the date question, bad and hostile files. */
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/statement-refusal.js';
import { CSV_PRESETS, parseStatement } from '../../src/statements/index.js';

const read = (content: string, columns?: Parameters<typeof parseStatement>[0]['columns']) => parseStatement({ content, columns });
const refusal = (content: string, columns?: Parameters<typeof parseStatement>[0]['columns']) => refusalOf(() => read(content, columns));

describe('CSV presets', () => {
  it('has at least five presets, each recognised from its own header', () => {
    expect(CSV_PRESETS.length).toBeGreaterThanOrEqual(5);
    for (const p of CSV_PRESETS) {
      const head = [...(p.preamble ?? []), p.header.join(p.delimiter)].join('\n');
      expect(read(`${head}\n`).preset).toBe(p.name);
    }
  });

  it("reads a US checking export: MM/DD/YYYY, signed amounts, grouped thousands, the latest running balance, each row's Type", () => {
    const s = read(
      'Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #\nDEBIT,03/14/2024,"STARBUCKS #123",-4.50,DEBIT_CARD,"1,000.00",,\nCREDIT,03/02/2024,PAYROLL,"1,500.00",ACH_CREDIT,1004.50,,\n',
    );
    expect(s.preset).toBe('us-checking');
    expect(s.rows).toEqual([
      { line: 2, date: '2024-03-14', amount: -4500, payee: 'STARBUCKS #123', kind: 'DEBIT_CARD' },
      { line: 3, date: '2024-03-02', amount: 1_500_000, payee: 'PAYROLL', kind: 'ACH_CREDIT' },
    ]);
    expect(s.balance).toEqual({ amount: 1_000_000, date: '2024-03-14' });
  });

  it('reads a card export whose charges are positive as money out', () => {
    const s = read(
      'Trans. Date,Post Date,Description,Amount,Category\n03/01/2024,03/02/2024,AMAZON,25.00,Shopping\n03/05/2024,03/05/2024,PAYMENT,-100.00,Payment\n',
    );
    expect(s.rows.map((r) => [r.date, r.amount])).toEqual([
      ['2024-03-02', -25_000],
      ['2024-03-05', 100_000],
    ]);
  });

  it('reads a German export: account lines above the header, ";", DD.MM.YYYY, decimal commas, pending rows marked', () => {
    const s = read(
      '\uFEFFUmsatzanzeige;\nKonto;DE00\n\nBuchungstag;Valutadatum;Status;Beguenstigter/Zahlungspflichtiger;Verwendungszweck;Betrag;Waehrung;Saldo\n01.03.2024;01.03.2024;Umsatz gebucht;REWE;Einkauf;-1.234,56;EUR;100,00\n02.03.2024;02.03.2024;Umsatz vorgemerkt;EDEKA;x;-3,00;EUR;\n',
    );
    expect(s.rows).toEqual([
      { line: 5, date: '2024-03-01', amount: -1_234_560, payee: 'REWE', memo: 'Einkauf' },
      { line: 6, date: '2024-03-02', amount: -3000, payee: 'EDEKA', memo: 'x', pending: true },
    ]);
    expect(s.currency).toBe('EUR');
    expect(s.balance).toEqual({ amount: 100_000, date: '2024-03-01' });
  });

  it('reads a UK export: Money Out / Money In, day-first dates decided by a day above 12', () => {
    const s = read('Date,Type,Description,Money Out,Money In,Balance\n14/03/2024,POS,TESCO,12.00,,50.00\n03/04/2024,BGC,SALARY,,100.00,150.00\n');
    expect(s.rows.map((r) => [r.date, r.amount])).toEqual([
      ['2024-03-14', -12_000],
      ['2024-04-03', 100_000],
    ]);
    expect(s.decisions.join(' ')).toMatch(/DD\/MM\/YYYY.*line 2/);
  });
});

describe('CSV detection', () => {
  it('detects columns from header names it has no preset for (tabs, debit/credit, a reference)', () => {
    const s = read('Booking Date\tMerchant\tNotes\tDebit\tCredit\tReference\n2024-05-01\tCAFE\tlunch\t7.25\t\tR1\n2024-05-02\tREFUND\t\t\t3.00\tR2\n');
    expect(s.preset).toBe('detected');
    expect(s.rows).toEqual([
      { line: 2, date: '2024-05-01', amount: -7250, payee: 'CAFE', memo: 'lunch', bank_id: 'R1' },
      { line: 3, date: '2024-05-02', amount: 3000, payee: 'REFUND', bank_id: 'R2' },
    ]);
  });

  it('refuses dates that leave day and month order open, with the question to ask', () => {
    const message = refusal('Date,Description,Amount\n03/04/2024,A,-1.00\n05/06/2024,B,2\n');
    expect(message).toMatch(/line 2: found "03\/04\/2024", day-first \(3 April\) or month-first \(March 4\).*columns\.date_format/);
    expect(message).toMatch(/columns\.date_format/);
  });

  it('reads them once date_format is given, other columns still found by their headers', () => {
    const s = read('Date,Description,Amount\n03/04/2024,A,-1.00\n', { date: 'Date', payee: 'Description', date_format: 'DD/MM/YYYY' });
    expect(s.preset).toBe('columns');
    expect(s.rows[0]).toMatchObject({ date: '2024-04-03', amount: -1000 });
    // The answer to the question alone: every column still found by its header.
    const alone = read('Date,Description,Amount\n03/04/2024,A,-1.00\n', { date_format: 'MM/DD/YYYY' });
    expect(alone.rows[0]).toMatchObject({ date: '2024-03-04', payee: 'A', amount: -1000 });
  });

  it('takes columns by number for a file without a header, and amount_sign', () => {
    const s = read('2024-01-02,SHOP,10.00\n', { date: '1', payee: '2', amount: '3', amount_sign: 'outflow-positive' });
    expect(s.rows).toEqual([{ line: 1, date: '2024-01-02', amount: -10_000, payee: 'SHOP' }]);
  });

  it('refuses a file whose amounts show both decimal separators', () => {
    expect(refusal('Date,Description,Amount\n2024-01-01,A,"1,50"\n2024-01-02,B,2.50\n')).toMatch(
      /^line 3: found amount "2.50" with .* but line 2: "1,50" with ','; expected one decimal separator .*; to fix it, give columns.decimal_separator$/,
    );
  });

  it('refuses dates in two shapes, naming the odd line', () => {
    expect(refusal('Date,Description,Amount\n2024-01-01,A,1\n01/02/2024,B,2\n')).toMatch(
      /^line 3: found date "01\/02\/2024", written unlike line 2's "2024-01-01"; expected every date .*; to fix it, give columns.date_format$/,
    );
  });
});

describe('bad and hostile CSV', () => {
  it('refuses a row with fewer cells than the header, naming the line', () => {
    expect(refusal('Date,Description,Amount\n2024-01-01,A,1\n2024-01-02,B\n')).toMatch(
      /^line 3: found 2 cells; expected at least 3: the header on line 1 has 3/,
    );
  });

  it('refuses an unclosed quote, naming the line', () => {
    expect(refusal('Date,Description,Amount\n2024-01-01,A,1\n2024-01-02,"B,2\n')).toMatch(/^line 3: found a malformed CSV .*expected .*quotes closed/);
  });

  it('refuses a file with no header it can read', () => {
    expect(refusal('hello,world\n1,2\n')).toMatch(/no header row/);
  });

  it('refuses an amount that is not a number, naming the line', () => {
    expect(refusal('Date,Description,Amount\n2024-01-01,A,1\n2024-01-02,B,12x\n')).toMatch(/^line 3: found amount "12x"; expected a number/);
  });

  it('keeps formula-like cells as text and removes U+2028, U+2029 and control characters', () => {
    const s = read(
      'Date,Description,Amount,Memo\n2024-01-01,"=HYPERLINK(""http://x"")",1,"a\u2028b\u2029c\u0007d\u202Ee"\n2024-01-02,+SUM(A1),2,@cmd\n2024-01-03,-2+3,3,\n',
    );
    expect(s.rows.map((r) => [r.payee, r.memo])).toEqual([
      ['=HYPERLINK("http://x")', 'a b c d e'],
      ['+SUM(A1)', '@cmd'],
      ['-2+3', undefined],
    ]);
  });

  it('refuses 10,000 columns, naming the line', () => {
    expect(refusal(`Date,Description,Amount\n2024-01-01,A,1${',x'.repeat(10_000)}\n`)).toMatch(
      /^line 2: found 10003 cells; expected at most 200 cells in a statement row/,
    );
  });

  it('refuses more than 10,000 rows and more than 2 MB before reading them', () => {
    const rows = Array.from({ length: 10_001 }, (_, i) => `2024-01-01,P${i},1`).join('\n');
    expect(refusal(`Date,Description,Amount\n${rows}\n`)).toMatch(/^line 10002: found more than 10000 rows; .*split it by date/);
    expect(refusal(`Date,Description,Amount\n${'2024-01-01,A,1\n'.repeat(200)}${'x'.repeat(2_100_000)}`)).toMatch(/2 MB/);
  });
});
