/**
 * The formats beyond CSV, OFX, QIF and camt.053 (camt.052, camt.054, MT940, MT942), the files no
 * reader takes (refused by what they are, never with a CSV parser's message), and the one shape
 * every refusal of these readers has: where, what was found, what was expected, the fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/statement-refusal.js';
import { parseStatement } from '../../src/statements/index.js';
import { readStatement } from '../../src/writes/statement/statement-rows.js';

/** The shape of refusalMessage (src/statements/refusal.ts). */
const SHAPE = /^(?:line \d+(?:, <[^>]+>)?|<[^>]+>|the file): found .+; expected .+/;

const refusal = (content: string, format?: Parameters<typeof parseStatement>[0]['format']) => {
  const message = refusalOf(() => parseStatement({ content, ...(format ? { format } : {}) }));
  expect(message).toMatch(SHAPE);
  expect(message).not.toMatch(/Invalid Opening Quote|no header row|Invalid Record Length|Quote Not Closed|delimiter/);
  return message;
};

const entry = (amt: string, ind: string, day: string, extra = '') =>
  `<Ntry><Amt Ccy="EUR">${amt}</Amt><CdtDbtInd>${ind}</CdtDbtInd>${extra}<BookgDt><Dt>${day}</Dt></BookgDt>` +
  `<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Shop ${amt}</Nm></Cdtr><Dbtr><Nm>Payer ${amt}</Nm></Dbtr></RltdPties></TxDtls></NtryDtls></Ntry>`;

/** Whether the SWIFT parser (CommonJS, required on demand) has been loaded into this process. */
const swiftLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('swift-parser'));

it('loads the SWIFT parser with the first SWIFT file, not with the other readers', () => {
  parseStatement({ content: 'Date,Payee,Amount\n2024-01-02,Shop,-1.00\n' });
  expect(swiftLoaded()).toBe(false);
  parseStatement({ content: ':20:X\n:25:1\n:28C:1\n:60F:C240101EUR0,\n:62F:C240101EUR0,\n' });
  expect(swiftLoaded()).toBe(true);
});

describe('camt.052 and camt.054', () => {
  it('reads a camt.052 account report: entries, INFO and PDNG entries pending (dated by the report where they have no date), NONREF not taken as an id, the interim booked balance, the period', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08">
<BkToCstmrAcctRpt><GrpHdr><MsgId>R1</MsgId></GrpHdr>
<Rpt><Id>1</Id><Acct><Id><IBAN>DE02100100109307118603</IBAN></Id><Ccy>EUR</Ccy></Acct><FrToDt><FrDtTm>2024-05-01T00:00:00</FrDtTm><ToDtTm>2024-05-02T10:00:00</ToDtTm></FrToDt>
<Bal><Tp><CdOrPrtry><Cd>ITBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">70.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><DtTm>2024-05-02T10:00:00</DtTm></Dt></Bal>
${entry('30.00', 'DBIT', '2024-05-02', '<Sts><Cd>BOOK</Cd></Sts><AcctSvcrRef>NONREF</AcctSvcrRef>')}
${entry('12.50', 'CRDT', '2024-05-01', '<Sts><Cd>BOOK</Cd></Sts><AcctSvcrRef>X7</AcctSvcrRef>')}
${entry('4.00', 'DBIT', '2024-05-02', '<Sts><Cd>PDNG</Cd></Sts>')}
<Ntry><Amt Ccy="EUR">9.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>INFO</Cd></Sts><AddtlNtryInf>Card hold</AddtlNtryInf></Ntry>
</Rpt></BkToCstmrAcctRpt></Document>`;
    const s = parseStatement({ content: xml });
    expect(s.format).toBe('camt052');
    expect(s.rows.map((r) => [r.line, r.date, r.amount, r.payee, r.pending ?? false, r.bank_id])).toEqual([
      [6, '2024-05-02', -30_000, 'Shop 30.00', false, undefined],
      [7, '2024-05-01', 12_500, 'Payer 12.50', false, 'X7'],
      [8, '2024-05-02', -4_000, 'Shop 4.00', true, undefined],
      // A pending entry with no date of its own is shown at its report's end.
      [9, '2024-05-02', -9_000, 'Card hold', true, undefined],
    ]);
    expect(s.balance).toEqual({ amount: 70_000, date: '2024-05-02' });
    expect(s.period).toEqual({ from: '2024-05-01', to: '2024-05-02' });
    expect(s.currency).toBe('EUR');
    expect(s.decisions[0]).toMatch(/camt\.052/);
    // The camt formats share one reader: named camt053, the file is still read as what it is.
    expect(parseStatement({ content: xml, format: 'camt053' }).format).toBe('camt052');
  });

  it('reads a camt.054 notification, and several notifications of one account together', () => {
    const note = (id: string, body: string) => `<Ntfctn><Id>${id}</Id><Acct><Id><Othr><Id>4711</Id></Othr></Id></Acct>${body}</Ntfctn>`;
    const xml = `<?xml version="1.0"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>N</MsgId></GrpHdr>
${note('a', entry('100.00', 'CRDT', '2024-06-03'))}
${note('b', entry('0.99', 'DBIT', '2024-06-04'))}
</BkToCstmrDbtCdtNtfctn></Document>`;
    const s = parseStatement({ content: xml });
    expect(s.format).toBe('camt054');
    expect(s.rows.map((r) => [r.line, r.date, r.amount])).toEqual([
      [3, '2024-06-03', 100_000],
      [4, '2024-06-04', -990],
    ]);
    expect(s.balance).toBeUndefined();
    expect(s.decisions[0]).toMatch(/camt\.054 notification: 2 entries from 2 Ntfctn elements of one account/);
  });

  it('refuses statements of two accounts in one file, naming the second and how to fix it', () => {
    const stmt = (iban: string) => `<Stmt><Id>1</Id><Acct><Id><IBAN>${iban}</IBAN></Id></Acct>${entry('1.00', 'DBIT', '2024-01-02')}</Stmt>`;
    const xml = `<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>\n${stmt('DE1')}\n${stmt('DE2')}\n</BkToCstmrStmt></Document>`;
    expect(refusal(xml)).toMatch(
      /^line 4, <Stmt>: found 2 Stmt elements of 2 accounts \("DE1", "DE2"\); expected .*one account; to fix it, export one account at a time$/,
    );
  });

  it('refuses a camt entry whose direction is neither CRDT nor DBIT, naming the element', () => {
    const xml = `<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn><Ntfctn><Acct><Id><IBAN>X</IBAN></Id></Acct>\n${entry('1.00', 'DEBIT', '2024-01-02')}\n</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;
    expect(refusal(xml)).toBe('line 3, <Ntry/CdtDbtInd>: found "DEBIT"; expected CRDT or DBIT');
  });
});

// A German bank's MT940: ?-structured :86: (?00 posting text, ?20.. purpose, ?32 name), a reversal
// (RC: a credit taken back, money out), a December value date booked on 2 January.
const MT940 = `{1:F01BANKDEFFXXXX0000000000}{2:O940BANKDEFFXXXXN}{4:
:20:STARTUMSE
:25:10020030/1234567890
:28C:00001/001
:60F:C231229EUR1000,00
:61:2312290102D25,50NDDTNONREF//B1
:86:105?00LASTSCHRIFT?20Strom Dezember?21Kunde 42?32Stadtwerke?33 Musterstadt
:61:2401030103C1200,00NTRFSALARY//B2
:86:166?00GUTSCHRIFT?20Gehalt Januar?32Arbeitgeber GmbH
:61:2401040104RC10,00NMSCNONREF
:86:Storno einer Gutschrift
:62F:C240104EUR2164,50
-}`;

describe('MT940 and MT942', () => {
  it('reads MT940: signs (D, C, RC), booking dates across the new year, ?-structured :86:, the closing balance', () => {
    const s = parseStatement({ content: MT940 });
    expect(s.format).toBe('mt940');
    expect(s.rows).toEqual([
      { line: 6, date: '2024-01-02', amount: -25_500, payee: 'Stadtwerke Musterstadt', memo: 'Strom DezemberKunde 42', bank_id: 'B1' },
      { line: 8, date: '2024-01-03', amount: 1_200_000, payee: 'Arbeitgeber GmbH', memo: 'Gehalt Januar', bank_id: 'B2' },
      { line: 10, date: '2024-01-04', amount: -10_000, payee: 'Storno einer Gutschrift' },
    ]);
    expect(s.balance).toEqual({ amount: 2_164_500, date: '2024-01-04' });
    expect(s.currency).toBe('EUR');
  });

  it('reads MT942 (an interim report: no closing balance) with /TAG/-structured :86:', () => {
    const mt942 = `:20:INTERIM1
:25:NL91ABNA0417164300
:28C:1/1
:34F:EURD0,
:13D:2405211017+0200
:61:240521D15,25NTRFNONREF//R9
:86:/CNTP/NL20INGB0001234567/INGBNL2A/Bakker BV/Utrecht/REMI/USTD//Factuur 12/
:61:240521C99,NTRFNONREF
:86:/NAME/Jan Jansen/REMI/Terugbetaling/
-`;
    const s = parseStatement({ content: mt942 });
    expect(s.format).toBe('mt942');
    expect(s.rows.map((r) => [r.line, r.date, r.amount, r.payee, r.bank_id])).toEqual([
      [6, '2024-05-21', -15_250, 'Bakker BV', 'R9'],
      [8, '2024-05-21', 99_000, 'Jan Jansen', undefined],
    ]);
    expect(s.balance).toBeUndefined();
  });

  it('reads an MT940 with header lines above its first :20: (ABN AMRO), CR LF line ends, /TRTP/ structured :86:', () => {
    const abn = [
      'ABNANL2A',
      '940',
      'ABNANL2A',
      ':20:ABN AMRO BANK NV',
      ':25:517852257',
      ':28:19001/1',
      ':60F:C240105EUR100,00',
      ':61:240108D3,50N426NONREF',
      ':86:/TRTP/SEPA OVERBOEKING/IBAN/NL46ABNA0499998748/BIC/ABNANL2A/NAME/Koffie BV/REMI/Bon 88/EREF/NOTPROVIDED',
      ':62F:C240108EUR96,50',
      '-',
      '',
    ].join('\r\n');
    const s = parseStatement({ content: abn });
    expect(s.format).toBe('mt940');
    expect(s.rows).toEqual([{ line: 8, date: '2024-01-08', amount: -3_500, payee: 'Koffie BV', memo: 'Bon 88' }]);
    expect(s.balance).toEqual({ amount: 96_500, date: '2024-01-08' });
  });

  it('refuses a :61: it cannot read, naming the line and the shape expected', () => {
    const bad = MT940.replace(':61:2401030103C1200,00NTRFSALARY//B2', ':61:24010C1200,00');
    expect(refusal(bad)).toMatch(/^line 8, <:61:>: found "24010C1200,00"; expected YYMMDD\[MMDD\], C or D/);
  });

  it('refuses a statement whose entries do not add up to its balances, and statements of two accounts', () => {
    expect(refusal(MT940.replace(':62F:C240104EUR2164,50', ':62F:C240104EUR2164,60'))).toMatch(
      /^line 2: found entries \(:61:\) adding up to 1164\.5 in statement 1, while its balances \(:60F: to :62F:\) move by 1164\.6; expected entries that add/,
    );
    const second = `\n{1:F01BANKDEFFXXXX0000000000}{2:O940BANKDEFFXXXXN}{4:\n:20:NEXT\n:25:99999999/1\n:28C:2/1\n:60F:C240104EUR0,\n:62F:C240104EUR0,\n-`;
    expect(refusal(MT940 + second)).toMatch(/^line 16, <:25:>: found statements of 2 accounts .*; to fix it, export one account at a time$/);
  });
});

describe('files no reader takes', () => {
  it.each([
    ['a PDF', '%PDF-1.7\n%âãÏÓ\n1 0 obj <</Type /Catalog>>', /found a PDF of kind PDF 1\.7, which is not supported/],
    [
      'an .xlsx',
      'PK\u0003\u0004\u0014\u0000\u0006\u0000[Content_Types].xml xl/workbook.xml',
      /found a spreadsheet of kind Excel workbook \(\.xlsx\), which is not supported/,
    ],
    ['an .ods', 'PK\u0003\u0004mimetypeapplication/vnd.oasis.opendocument.spreadsheet', /OpenDocument spreadsheet/],
    ['an HTML "Excel" export', '<html><body><table><tr><td>Datum</td></tr></table></body></html>', /found an HTML page/],
    [
      'an Excel 2003 XML',
      '<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>',
      /Excel 2003 XML/,
    ],
    [
      'a pain.001',
      '<?xml version="1.0"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>',
      /found an XML file of kind ISO 20022 pain\.001\.001\.03 \(customer credit transfer initiation\), which/,
    ],
    ['another XML', '<?xml version="1.0"?>\n<!-- export -->\n<Umsaetze><Umsatz/></Umsaetze>', /found an XML file of kind <Umsaetze>, which/],
    [
      'an MT103',
      '{1:F01BANKBEBBAXXX0000000000}{2:I103BANKDEFFXXXXN}{4:\n:20:REF\n:23B:CRED\n:32A:240102EUR100,\n-}',
      /found a SWIFT file of kind MT103, which/,
    ],
    ['a JSON export', '[{"date":"2024-01-02","amount":-5}]', /found a JSON file/],
    ['a BAI2 file', '01,BANK,CUST,240102,0800,1,,,2/\n02,CUST,BANK,1,240101,,USD,2/\n16,475,1000,Z,123/', /found a BAI2 file/],
  ])('refuses %s by what it is, listing what is supported', (_what, content, found) => {
    const message = refusal(content);
    expect(message).toMatch(found);
    expect(message).toMatch(
      /^line 1: .*, which is not supported; expected a statement file; supported: CSV, OFX, QFX, QIF, camt\.052, camt\.053, camt\.054 .*MT940 and MT942/,
    );
    // Called a CSV, it is still what it is.
    expect(refusal(content, 'csv')).toBe(message);
  });

  it('refuses a file read from disk by its bytes (an .xls, decoded as windows-1252), not as CSV', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'formats-'));
    try {
      const path = join(dir, 'export.xls');
      writeFileSync(path, Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600, 0)]));
      await expect(readStatement({ path }, true)).rejects.toThrow(
        /^line 1: found a spreadsheet of kind Excel 97-2003 workbook \(\.xls\), which is not supported; .*to fix it, open it and save/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a UTF-16 file from disk (Excel\'s "Unicode text"), little- and big-endian, by its byte order mark', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'formats-'));
    try {
      const text = '\uFEFFDatum\tEmpfänger\tBetrag\r\n2024-01-02\tCafé Müller\t-4,50\r\n';
      const le = Buffer.from(text, 'utf16le');
      for (const [name, bytes] of [
        ['le.txt', le],
        ['be.txt', Buffer.from(le).swap16()],
      ] as const) {
        writeFileSync(join(dir, name), bytes);
        const read = await readStatement({ path: join(dir, name), columns: { date: 'Datum', payee: 'Empfänger', amount: 'Betrag' } }, true);
        expect(read!.parsed.rows.map((r) => [r.date, r.payee, r.amount])).toEqual([['2024-01-02', 'Café Müller', -4_500]]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a format that names something the file plainly is not, naming the format that reads it', () => {
    expect(refusal(MT940, 'csv')).toBe('line 1: found an MT940 file; expected CSV, as format says; to fix it, give format "auto" (or "mt940")');
    expect(refusal('Date,Payee,Amount\n2024-01-02,Shop,-1.00\n', 'mt940')).toMatch(/^line 1: found no :20: field; expected the fields of an MT940/);
  });

  it('refuses columns for a format that names its own fields, saying to leave them out', () => {
    expect(() => parseStatement({ content: MT940, columns: { date: 'Date' } })).toThrow(
      /^the file: found columns given for a mt940 file; expected columns only for a CSV file .*; to fix it, leave columns out/,
    );
  });
});

afterAll(() => undefined);
