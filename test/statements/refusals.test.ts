/**
 * Every reader's refusals, held to the one shape (issue 33 item 7): the message names the line
 * (or the element), quotes what was found, says what was expected, and names the argument that
 * would fix it where one exists (`columns`, `date_format`, `decimal_separator`, `format`). The
 * parts are checked where they stand: every refusal is made by src/statements/refusal.ts, which
 * writes them in one order ("line N, <element>: found …; expected …; to fix it, …").
 */
import { describe, expect, it } from 'vitest';
import { type CsvColumns, parseStatement, type ReadFormat, StatementError } from '../../src/statements/index.js';

interface Case {
  name: string;
  content: string;
  format?: ReadFormat;
  columns?: CsvColumns;
  /** The line the message starts with; or, for a `columns` argument with no line, its element. */
  line?: number;
  element?: string;
  /** Text the message must quote: what was found. */
  found: string;
  /** The argument that fixes it, where one does. */
  fix?: RegExp;
}

const OFX = (body: string) =>
  `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>\n<BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>\n${body}\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`;

const DEEP = Array.from({ length: 40 }, (_, i) => `A${i}`);
const CSV = 'Date,Payee,Amount\n';
const QIF = '!Type:Bank\n';
const MANY = (n: number) => Array.from({ length: n }, (_, i) => `2024-01-01,P${i},-1.00`).join('\n');

// Every other kind of refusal, one case each, so that none slips back to free wording.
const MORE: Case[] = [
  { name: 'CSV: a row wider than any statement', content: `${CSV}2024-01-02,A,-1${',x'.repeat(300)}\n`, line: 2, found: '303 cells' },
  { name: 'CSV: a quote left open', content: `${CSV}2024-01-02,A,-1\n2024-01-03,"B,-2\n`, line: 3, found: 'malformed CSV', fix: /format/ },
  { name: 'CSV: no header row', content: 'hello,world\n1,2\n', line: 1, found: 'hello | world', fix: /columns/ },
  {
    name: 'CSV: a header lacking a column',
    content: 'Date,Foo,Bar\n2024-01-02,x,-1\n',
    columns: { date: 'Date', payee: 'Foo' },
    line: 1,
    found: '"bar"',
    fix: /columns\.amount/,
  },
  { name: 'CSV: a blank amount', content: `${CSV}2024-01-02,A,\n`, line: 2, found: 'blank amount', fix: /columns\.amount/ },
  {
    name: 'CSV: inflow and outflow both blank',
    content: 'Date,Payee,Inflow,Outflow\n2024-01-02,A,,\n',
    line: 2,
    found: 'blank',
    fix: /columns\.inflow/,
  },
  { name: 'CSV: a blank date', content: `${CSV}2024-01-02,A,-1\n,B,-2\n`, line: 3, found: 'blank date', fix: /columns\.date/ },
  { name: 'CSV: no date at all', content: 'Date,Payee,Amount\nsoon,A,-1\n', line: 2, found: '"soon"', fix: /columns\.date/ },
  { name: 'CSV: a row short of a column read', content: `${CSV}2024-01-02,A\n`, line: 2, found: '2 cells', fix: /columns/ },
  { name: 'CSV: a row wider than its header', content: `${CSV}2024-01-02,A,-1,x\n`, line: 2, found: '4 cells', fix: /columns/ },
  { name: 'CSV: more rows than a statement holds', content: `${CSV}${MANY(10_001)}\n`, line: 10_002, found: 'more than 10000 rows', fix: /split it by date/ },
  {
    name: 'CSV: a direction mark it does not know',
    content: 'Date,Payee,Amount,Af Bij\n2024-01-02,A,1.00,Af\n2024-01-03,B,2.00,Uit\n',
    line: 3,
    found: '"Uit"',
    fix: /columns\.direction/,
  },
  {
    name: 'CSV: a value not among columns.direction’s',
    content: 'Date,Payee,Amount,Kind\n2024-01-02,A,1.00,X\n',
    columns: { direction: 'Kind:D/C' },
    line: 2,
    found: '"X"',
    fix: /columns\.direction/,
  },
  {
    name: 'CSV: a card export whose amounts are all positive',
    content: 'Date,Payee,Amount,Card No.\n2024-01-02,A,1.00,1234\n',
    line: 2,
    found: 'every amount positive',
    fix: /columns\.amount_sign/,
  },
  {
    name: 'CSV: positive amounts under a falling balance',
    content: 'Date,Payee,Amount,Balance\n2024-01-02,A,1.00,10.00\n2024-01-03,B,2.00,8.00\n',
    line: 3,
    found: 'balance falls',
    fix: /columns\.direction/,
  },
  {
    name: 'columns: a malformed direction',
    content: 'Date,Payee,Amount,Kind\n2024-01-02,A,1,D\n',
    columns: { direction: 'Kind:D' },
    element: 'columns.direction',
    found: '"Kind:D"',
    fix: /columns\.direction/,
  },
  {
    name: 'columns: a malformed status',
    content: `${CSV}2024-01-02,A,-1\n`,
    columns: { status: 'Payee:' },
    element: 'columns.status',
    found: '"Payee:"',
    fix: /columns\.status/,
  },
  {
    name: 'columns: column 0',
    content: `${CSV}2024-01-02,A,-1\n`,
    columns: { amount: '0' },
    element: 'columns.amount',
    found: 'column 0',
    fix: /columns\.amount/,
  },
  {
    name: 'columns: a name too long',
    content: `${CSV}2024-01-02,A,-1\n`,
    columns: { amount: 'x'.repeat(500) },
    element: 'columns.amount',
    found: '500 characters',
    fix: /columns\.amount/,
  },
  { name: 'QIF: a line before any header', content: 'D01/02/2024\nT-1.00\n^\n', format: 'qif', line: 1, found: '"D01/02/2024"', fix: /format/ },
  { name: 'QIF: a section it does not read', content: '!Type:Savings Bond\nD01/02/2024\nT-1.00\n^\n', line: 1, found: '"!Type:Savings Bond"' },
  { name: 'QIF: an investment account alone', content: '!Type:Invst\nD01/02/2024\nT-1.00\n^\n', line: 1, found: '!Type:Invst', fix: /export/ },
  { name: 'QIF: a record with no amount', content: `${QIF}D14/02/2024\nPShop\n^\n`, line: 2, found: 'no T (amount) line' },
  { name: 'QIF: a record with no date', content: `${QIF}T-1.00\nPShop\n^\n`, line: 2, found: 'no D (date) line' },
  {
    name: 'QIF: more records than a statement holds',
    content: `${QIF}${'D01/02/2024\nT-1.00\n^\n'.repeat(10_001)}`,
    line: 30_004,
    found: 'more than 10000 records',
    fix: /split it by date/,
  },
  { name: 'OFX: an amount left empty', content: OFX('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240102<TRNAMT><FITID>1</STMTTRN>'), line: 6, found: 'no TRNAMT' },
  { name: 'OFX: no <OFX> element', content: 'OFXHEADER:100\nDATA:OFXSGML\n\n<FOO>\n', format: 'ofx', line: 1, found: 'no <OFX> element', fix: /format/ },
  {
    name: 'OFX: elements nested deeper than a statement',
    content: `OFXHEADER:100\n<OFX>\n${DEEP.map((n) => `<${n}>`).join('\n')}\n<X>1${DEEP.map((n) => `</${n}>`)
      .reverse()
      .join('')}</OFX>\n`,
    line: 34,
    found: 'nesting 32 elements deep',
  },
  {
    name: 'OFX: the bank’s error instead of a statement',
    content:
      'OFXHEADER:100\n<OFX>\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>15500\n<SEVERITY>ERROR\n<MESSAGE>Invalid user\n</STATUS></SONRS></SIGNONMSGSRSV1>\n</OFX>\n',
    line: 3,
    found: 'Invalid user',
    fix: /download/,
  },
  {
    name: 'OFX: an investment statement',
    content: 'OFXHEADER:100\n<OFX>\n<INVSTMTMSGSRSV1><INVSTMTTRNRS>\n<INVSTMTRS><CURDEF>USD\n</INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1>\n</OFX>\n',
    line: 4,
    found: 'investment',
    fix: /export/,
  },
];

const CASES: Case[] = [
  {
    name: 'CSV: a date not in the file’s date format',
    content: 'Date,Payee,Amount\n2024-01-02,A,-1.00\n2024-13-45,B,-2.00\n',
    line: 3,
    found: '2024-13-45',
    fix: /date_format/,
  },
  { name: 'CSV: an amount that is not a number', content: 'Date,Payee,Amount\n2024-01-02,A,-1.00\n2024-01-03,B,12x\n', line: 3, found: '12x' },
  { name: 'CSV: a header naming no date, payee or amount', content: 'Foo,Bar,Baz\nx,y,z\n', line: 1, found: 'Foo', fix: /columns/ },
  {
    name: 'CSV: a column named in columns that the header lacks',
    content: 'Date,Payee,Amount\n2024-01-02,A,-1.00\n',
    columns: { date: 'Buchungstag' },
    line: 1,
    found: 'Buchungstag',
    fix: /columns/,
  },
  {
    name: 'CSV: dates that could be either order',
    content: 'Date,Payee,Amount\n01/02/2024,A,-1.00\n03/04/2024,B,-2.00\n',
    line: 2,
    found: '01/02/2024',
    fix: /date_format/,
  },
  {
    name: 'CSV: amounts with both decimal separators',
    content: 'Date;Payee;Amount\n2024-01-02;A;-1.234,50\n2024-01-03;B;-2,345.10\n',
    line: 3,
    found: '-2,345.10',
    fix: /decimal_separator/,
  },
  // An element left open inside a statement is read (SGML OFX closes it where its aggregate ends);
  // a file that ends inside one is cut short, and refused.
  {
    name: 'OFX: a file that ends inside an element left open',
    content: OFX('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240102<TRNAMT>-1.00<FITID>1').replace(/\n<\/BANKTRANLIST>.*\n$/, '\n'),
    line: 6,
    found: 'STMTTRN',
  },
  {
    name: 'OFX: a day that does not exist',
    content: OFX('<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20120231<TRNAMT>-1.00<FITID>1</STMTTRN>'),
    line: 6,
    found: '20120231',
  },
  { name: 'QIF: a detail line QIF does not define', content: '!Type:Bank\nD01/02/2024\nT-1.00\nZfoo\n^\n', line: 4, found: 'Zfoo' },
  { name: 'QIF: a date that is no date', content: '!Type:Bank\nD31/31/2024\nT-1.00\nPShop\n^\n', line: 2, found: '31/31/2024', fix: /date_format/ },
  {
    name: 'camt: an entry that is neither credit nor debit',
    content:
      '<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt>\n<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>X</CdtDbtInd><BookgDt><Dt>2024-01-02</Dt></BookgDt></Ntry>\n</Stmt></BkToCstmrStmt></Document>',
    line: 3,
    found: 'X',
  },
  {
    name: 'MT940: a statement line it cannot read',
    content: ':20:A\n:25:1\n:28C:1\n:60F:C240101EUR0,\n:61:2401XX\n:62F:C240101EUR0,\n',
    line: 5,
    found: '2401XX',
  },
  {
    name: 'a format the file plainly is not',
    content: ':20:A\n:25:1\n:28C:1\n:60F:C240101EUR0,\n:62F:C240101EUR0,\n',
    format: 'csv',
    line: 1,
    found: 'an MT940 file',
    fix: /format/,
  },
  { name: 'a PDF', content: '%PDF-1.4\n1 0 obj\n', line: 1, found: 'PDF' },
  ...MORE,
];

describe('every refusal names the line, what was found, what was expected, and the fix', () => {
  it.each(CASES)('$name', (c) => {
    let message = '';
    let parts: unknown;
    try {
      parseStatement({ content: c.content, ...(c.format ? { format: c.format } : {}), ...(c.columns ? { columns: c.columns } : {}) });
    } catch (e) {
      expect(e).toBeInstanceOf(StatementError);
      message = (e as Error).message;
      parts = (e as StatementError).parts;
    }
    expect(message, 'refused').not.toBe('');
    const where = c.line !== undefined ? `line ${c.line}\\b` : `<${c.element!.replace('.', '\\.')}>`;
    expect(message).toMatch(new RegExp(`^${where}`));
    expect(parts, 'made by refuse()').toBeDefined();
    expect(message).toMatch(/^(?:line \d+(?:, <[^>]+>)?|<[^>]+>): found .+; expected /);
    expect(message).toContain(c.found);
    if (c.fix) expect(message.split('; to fix it, ')[1] ?? '').toMatch(c.fix);
  });
});
