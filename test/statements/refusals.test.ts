/**
 * Every reader's refusals, held to the one shape (issue 33 item 7): the message names the line
 * (or the element), quotes what was found, says what was expected, and names the argument that
 * would fix it where one exists (`columns`, `date_format`, `decimal_separator`, `format`). The
 * wording is each reader's; the four parts are checked loosely, so that any reader's phrasing that
 * says them passes. src/statements/refusal.ts writes them in one order for the readers that use it.
 */
import { describe, expect, it } from 'vitest';
import { type CsvColumns, parseStatement, type ReadFormat, StatementError } from '../../src/statements/index.js';

interface Case {
  name: string;
  content: string;
  format?: ReadFormat;
  columns?: CsvColumns;
  line: number;
  /** Text the message must quote: what was found. */
  found: string;
  /** The argument that fixes it, where one does. */
  fix?: RegExp;
  /** A question (which order are the dates?) says what it needs by its fix, not with "expected". */
  question?: boolean;
}

const OFX = (body: string) =>
  `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>\n<BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>\n${body}\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`;

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
    question: true,
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
];

describe('every refusal names the line, what was found, what was expected, and the fix', () => {
  it.each(CASES)('$name', (c) => {
    let message = '';
    try {
      parseStatement({ content: c.content, ...(c.format ? { format: c.format } : {}), ...(c.columns ? { columns: c.columns } : {}) });
    } catch (e) {
      expect(e).toBeInstanceOf(StatementError);
      message = (e as Error).message;
    }
    expect(message, 'refused').not.toBe('');
    expect(message).toMatch(new RegExp(`^line ${c.line}\\b`));
    expect(message).toContain(c.found);
    if (!c.question) expect(message).toMatch(/expected/i);
    if (c.fix) expect(message).toMatch(c.fix);
  });
});
