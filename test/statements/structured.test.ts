/** OFX, QFX, QIF and camt.053 read by parseStatement: rows, balances, pending, malformed and hostile files. */
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/statement-refusal.js';
import { parseStatement } from '../../src/statements/index.js';

const refusal = (content: string) => refusalOf(() => parseStatement({ content }));

const SGML = `OFXHEADER:100
DATA:OFXSGML
VERSION:102

<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20240315<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>
<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>1<ACCTID>2<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20240301<DTEND>20240315
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240314120000[-5:EST]<TRNAMT>-1234.50<FITID>A1<NAME>STARBUCKS &amp; CO<MEMO>card 1234</STMTTRN>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20240302<TRNAMT>100.00<FITID>A2<NAME>PAYROLL</STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>500.25<DTASOF>20240315</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`;

const CAMT = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr>
<Stmt><Id>1</Id><Acct><Id><IBAN>DE00</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-03-01</Dt></Dt></Bal>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">50.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2024-03-15</Dt></Dt></Bal>
<Ntry><Amt Ccy="EUR">150.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2024-03-14</Dt></BookgDt><AcctSvcrRef>R1</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>M&amp;S Ltd</Nm></Cdtr></RltdPties><RmtInf><Ustrd>Invoice 7</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts><BookgDt><Dt>2024-03-15</Dt></BookgDt>
<NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Anna</Nm></Pty></Dbtr></RltdPties></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;

describe('OFX and QFX', () => {
  it('reads OFX 1.x SGML: rows with FITID and TRNTYPE, the line each starts on, LEDGERBAL, the period (DTSTART, DTEND)', () => {
    const s = parseStatement({ content: SGML });
    expect(s.format).toBe('ofx');
    expect(s.rows).toEqual([
      { line: 10, date: '2024-03-14', amount: -1_234_500, payee: 'STARBUCKS & CO', memo: 'card 1234', bank_id: 'A1', kind: 'DEBIT' },
      { line: 11, date: '2024-03-02', amount: 100_000, payee: 'PAYROLL', bank_id: 'A2', kind: 'CREDIT' },
    ]);
    expect(s.balance).toEqual({ amount: 500_250, date: '2024-03-15' });
    expect(s.period).toEqual({ from: '2024-03-01', to: '2024-03-15' });
    expect(s.currency).toBe('USD');
  });

  it("reads XML's other entities in OFX 2 text (ofx-js decodes only &amp; &lt; &gt;): apostrophes, quotes, character references", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1</TRNUID><STMTRS><CURDEF>USD</CURDEF>
<BANKTRANLIST><DTSTART>20240301</DTSTART><DTEND>20240315</DTEND>
<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20240314</DTPOSTED><TRNAMT>-12.50</TRNAMT><FITID>B1</FITID><NAME>TRADER JOE&apos;S &amp; &quot;CO&quot;</NAME><MEMO>CAF&#201; &#x2014; 1</MEMO></STMTTRN>
</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`;
    const s = parseStatement({ content: xml });
    expect(s.rows.map((r) => [r.payee, r.memo])).toEqual([[`TRADER JOE'S & "CO"`, 'CAFÉ — 1']]);
  });

  it('sniffs QFX from Intuit tags', () => {
    expect(parseStatement({ content: SGML.replace('<LANGUAGE>ENG', '<LANGUAGE>ENG<INTU.BID>3000') }).format).toBe('qfx');
  });

  it('refuses a transaction with no date, naming its line and what is missing', () => {
    expect(refusal(SGML.replace('<NAME>PAYROLL</STMTTRN>', '<NAME>PAYROLL</STMTTRN><STMTTRN><TRNAMT>1.00</STMTTRN>'))).toMatch(
      /^line 11: found no DTPOSTED \(or DTUSER\), or an empty one; expected a date/,
    );
  });

  it('reads a tag of any length as an element (no parser regex backtracks on it)', () => {
    expect(refusal(`OFXHEADER:100\n<OFX>\n<${'A'.repeat(40)}>x</OFX>`)).toMatch(/^<OFX>: found no bank or card statement; expected <STMTRS>/);
  });
});

describe('QIF', () => {
  it('reads amounts by their digits (qif-ts alone would read 1,234.50 as 1) and apostrophe years', () => {
    const s = parseStatement({ content: "!Type:Bank\nD03/14/2024\nT-1,234.50\nPSTARBUCKS\nMcoffee\n^\nD3/2'24\nT100.00\nPPAYROLL\n^\n" });
    expect(s.rows).toEqual([
      { line: 2, date: '2024-03-14', amount: -1_234_500, payee: 'STARBUCKS', memo: 'coffee' },
      { line: 7, date: '2024-03-02', amount: 100_000, payee: 'PAYROLL' },
    ]);
  });

  it('refuses an unknown detail line, naming it', () => {
    expect(refusal('!Type:Bank\nD03/14/2024\nT-1.00\nZoops\n^\n')).toMatch(/^line 4: found the detail line "Zoops"; expected D \(date\), T \(amount\)/);
  });

  it('asks the date question when no date decides it', () => {
    expect(refusal('!Type:Bank\nD03/04/2024\nT-1.00\nPA\n^\n')).toMatch(/day-first .* or month-first/);
    // Answered with date_format alone, as the question asks.
    const s = parseStatement({ content: '!Type:Bank\nD03/04/2024\nT-1.00\nPA\n^\n', columns: { date_format: 'DD/MM/YYYY' } });
    expect(s.rows[0]).toMatchObject({ date: '2024-04-03', amount: -1000 });
  });
});

describe('camt.053', () => {
  it('reads entries (DBIT negative, PDNG pending, counterparty names of both versions) and the CLBD balance', () => {
    const s = parseStatement({ content: CAMT });
    expect(s.format).toBe('camt053');
    expect(s.rows).toEqual([
      { line: 7, date: '2024-03-14', amount: -150_000, payee: 'M&S Ltd', memo: 'Invoice 7', bank_id: 'R1' },
      { line: 9, date: '2024-03-15', amount: 5000, payee: 'Anna', pending: true },
    ]);
    expect(s.balance).toEqual({ amount: -50_000, date: '2024-03-15' });
    expect(s.currency).toBe('EUR');
  });

  it('refuses malformed XML naming the line, and any DOCTYPE', () => {
    expect(refusal(CAMT.replace('</Cdtr>', ''))).toMatch(/^line 8: found malformed XML \(.*\); expected well-formed XML/);
    expect(refusal(`<?xml version="1.0"?>\n<!DOCTYPE d [<!ENTITY a "aaaa">]>\n<Document xmlns="camt.053"/>`)).toMatch(/^line 2: .*DOCTYPE/);
  });
});
