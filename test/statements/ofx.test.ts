/**
 * OFX as banks write it, each kind with a file written here: elements left unclosed at any level,
 * CDATA, empty elements, several accounts in one file, charsets from the header, entities decoded
 * once; and the refusals (cut short, investment statements), each naming its line.
 */
import { describe, expect, it } from 'vitest';
import { refusalOf } from '../helpers/statement-refusal.js';
import { parseStatement, parseStatements } from '../../src/statements/index.js';

const refusal = (content: string | Uint8Array) => refusalOf(() => parseStatements({ content }));

const HEADER = 'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\nCHARSET:1252\nCOMPRESSION:NONE\n\n';

/** A card statement as Nubank writes it: leaves unclosed, and no </BANKTRANLIST>. */
const NO_LIST_CLOSE = `${HEADER}<OFX>
<CREDITCARDMSGSRSV1>
<CCSTMTTRNRS>
<TRNUID>1
<CCSTMTRS>
<CURDEF>BRL
<CCACCTFROM>
<ACCTID>5555
</CCACCTFROM>
<BANKTRANLIST>
<DTSTART>20240224000000[-3:GMT]
<DTEND>20240326000000[-3:GMT]
<STMTTRN>
<TRNTYPE>DEBIT
<DTPOSTED>20240323000000[-3:GMT]
<TRNAMT>-13.00
<FITID>F1
<MEMO>Padaria
</STMTTRN>
<STMTTRN>
<TRNTYPE>DEBIT
<DTPOSTED>20240322000000[-3:GMT]
<TRNAMT>-9.02
<FITID>F2
<MEMO>Mercado
</STMTTRN>
<LEDGERBAL>
<BALAMT>-22.02
<DTASOF>20240325000000[-3:GMT]
</LEDGERBAL>
</CCSTMTRS>
</CCSTMTTRNRS>
</CREDITCARDMSGSRSV1>
</OFX>
`;

describe('OFX elements left unclosed', () => {
  it('reads a card statement with no </BANKTRANLIST>: every row, and LEDGERBAL as the statement balance', () => {
    const s = parseStatement({ content: NO_LIST_CLOSE });
    expect(s.rows.map((r) => [r.line, r.date, r.amount, r.payee, r.bank_id])).toEqual([
      [21, '2024-03-23', -13_000, 'Padaria', 'F1'],
      [28, '2024-03-22', -9020, 'Mercado', 'F2'],
    ]);
    expect(s.balance).toEqual({ amount: -22_020, date: '2024-03-25' });
    expect(s.period).toEqual({ from: '2024-02-24', to: '2024-03-26' });
    expect(s.account).toEqual({ number: '5555', type: 'creditCard', line: 13 });
  });

  it('reads a file with no aggregate closed at all below <OFX> (STMTTRN, BANKTRANLIST, STMTRS, STMTTRNRS, BANKMSGSRSV1)', () => {
    const open = `${HEADER}<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>1<ACCTID>77<ACCTTYPE>SAVINGS
<BANKTRANLIST><DTSTART>20240301<DTEND>20240331
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240302<TRNAMT>-5.00<NAME>ONE
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20240303<TRNAMT>7.25<NAME>TWO
<LEDGERBAL><BALAMT>102.25<DTASOF>20240331
</OFX>
`;
    const s = parseStatement({ content: open });
    expect(s.rows.map((r) => [r.line, r.amount, r.payee])).toEqual([
      [11, -5000, 'ONE'],
      [12, 7250, 'TWO'],
    ]);
    expect(s.balance).toEqual({ amount: 102_250, date: '2024-03-31' });
    expect(s.account).toMatchObject({ number: '77', type: 'savings' });
  });

  it('closes an aggregate left open at the first element that is not one of its members (<MEMO> after <CURRENCY>), and reads <X/> as empty', () => {
    const sgml = NO_LIST_CLOSE.replace('<MEMO>Padaria', '<CURRENCY><CURRATE>1.0<CURSYM>BRL\n<NAME>Padaria<MEMO/>');
    expect(parseStatement({ content: sgml }).rows[0]).toEqual({
      line: 21,
      date: '2024-03-23',
      amount: -13_000,
      payee: 'Padaria',
      bank_id: 'F1',
      kind: 'DEBIT',
    });
  });

  it('reads pending rows (STMTTRNP, dated by DTTRAN) as pending', () => {
    const sgml = NO_LIST_CLOSE.replace(
      '<LEDGERBAL>',
      '<BANKTRANLISTP><STMTTRNP><DTTRAN>20240326<TRNAMT>-4.00<NAME>Hold</STMTTRNP></BANKTRANLISTP>\n<LEDGERBAL>',
    );
    expect(parseStatement({ content: sgml }).rows[2]).toEqual({ line: 35, date: '2024-03-26', amount: -4000, payee: 'Hold', pending: true });
  });

  it('reads two statements of one account (a download split in two) as one', () => {
    const second = NO_LIST_CLOSE.slice(NO_LIST_CLOSE.indexOf('<CCSTMTTRNRS>'), NO_LIST_CLOSE.indexOf('</CREDITCARDMSGSRSV1>'))
      .replace('F1', 'G1')
      .replace('F2', 'G2');
    const both = NO_LIST_CLOSE.replace('</CREDITCARDMSGSRSV1>', `${second}</CREDITCARDMSGSRSV1>`);
    const all = parseStatements({ content: both });
    expect(all).toHaveLength(1);
    expect(all[0]!.rows.map((r) => r.bank_id)).toEqual(['F1', 'F2', 'G1', 'G2']);
  });

  it('refuses a file cut short (no </OFX>), naming the element it ends in', () => {
    const cut = NO_LIST_CLOSE.slice(0, NO_LIST_CLOSE.indexOf('<TRNAMT>-9.02'));
    expect(refusal(cut)).toMatch(
      /^line 28, <STMTTRN>: found the end of the file inside it, with no <\/OFX>: it looks cut short; expected the rest of the statement; to fix it, download it again$/,
    );
  });
});

describe('OFX values', () => {
  const xml = (trn: string, ledger = '<LEDGERBAL><BALAMT>10.00</BALAMT><DTASOF>20240315</DTASOF></LEDGERBAL>') =>
    `<?xml version="1.0" encoding="UTF-8"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1</TRNUID><STMTRS><CURDEF>AUD</CURDEF>
<BANKACCTFROM><BANKID>S</BANKID><ACCTID>1</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
<BANKTRANLIST><DTSTART>20240301</DTSTART><DTEND>20240315</DTEND>
${trn}
</BANKTRANLIST>${ledger}</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`;

  it('reads a CDATA payee in a valid OFX 2 file, its text as written (no entity decoded in it)', () => {
    const s = parseStatement({
      content: xml(
        '<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20131215</DTPOSTED><TRNAMT>-16.85</TRNAMT><FITID>1</FITID><NAME><![CDATA[EFTPOS ALDI & CO &amp; <1>  ]]></NAME><MEMO><![CDATA[GEELONG WEST]]></MEMO></STMTTRN>',
      ),
    });
    expect(s.rows).toEqual([
      { line: 6, date: '2013-12-15', amount: -16_850, payee: 'EFTPOS ALDI & CO &amp; <1>', memo: 'GEELONG WEST', bank_id: '1', kind: 'DEBIT' },
    ]);
  });

  it('decodes each entity once: "&amp;apos;" is the text "&apos;", not an apostrophe; a bare & in SGML is an ampersand', () => {
    const s = parseStatement({
      content: xml('<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20240301</DTPOSTED><TRNAMT>-1.00</TRNAMT><NAME>A&amp;apos;B &apos;C&apos;</NAME></STMTTRN>'),
    });
    expect(s.rows[0]!.payee).toBe("A&apos;B 'C'");
    const sgml = NO_LIST_CLOSE.replace('<MEMO>Padaria', '<MEMO>AT&T WIRELESS');
    expect(parseStatement({ content: sgml }).rows[0]!.payee).toBe('AT&T WIRELESS');
  });

  it('reads empty elements as absent: an empty BALAMT is no balance, an empty NAME gives way to MEMO, an empty FITID is no id', () => {
    const s = parseStatement({
      content: xml(
        '<STMTTRN><TRNTYPE>CREDIT</TRNTYPE><DTPOSTED>20180507</DTPOSTED><TRNAMT>12.34</TRNAMT><FITID></FITID><NAME></NAME><MEMO>CBA:Transfer</MEMO></STMTTRN>',
        '<LEDGERBAL><BALAMT></BALAMT><DTASOF></DTASOF></LEDGERBAL>',
      ),
    });
    expect(s.rows).toEqual([{ line: 6, date: '2018-05-07', amount: 12_340, payee: 'CBA:Transfer', memo: 'CBA:Transfer', kind: 'CREDIT' }]);
    expect(s.balance).toBeUndefined();
    expect(s.decisions).toContain('line 7: LEDGERBAL has no BALAMT: the file states no balance');
  });

  it('reads an SGML leaf written empty and unclosed as empty, not as holding what follows', () => {
    const sgml = NO_LIST_CLOSE.replace('<MEMO>Padaria', '<NAME>\n<MEMO>Padaria');
    expect(parseStatement({ content: sgml }).rows[0]).toMatchObject({ payee: 'Padaria', memo: 'Padaria' });
  });
});

describe('OFX files of several accounts', () => {
  const BOTH = `${HEADER}<OFX>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>9<ACCTID>111122223333<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20240301<DTEND>20240331
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240302<TRNAMT>-5.00<NAME>RENT</STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>95.00<DTASOF>20240331</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1>
<CREDITCARDMSGSRSV1><CCSTMTTRNRS><TRNUID>2<CCSTMTRS><CURDEF>USD<CCACCTFROM><ACCTID>XXXX9876</CCACCTFROM>
<BANKTRANLIST><DTSTART>20240301<DTEND>20240331
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240304<TRNAMT>-20.00<NAME>GROCER</STMTTRN>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20240305<TRNAMT>20.00<NAME>PAYMENT</STMTTRN>
</BANKTRANLIST><LEDGERBAL><BALAMT>0.00<DTASOF>20240331</LEDGERBAL></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1>
</OFX>
`;

  it("gives each account's rows, balance and account apart", () => {
    const [bank, card] = parseStatements({ content: BOTH });
    expect(bank!.account).toEqual({ number: '111122223333', type: 'checking', line: 10 });
    expect(bank!.rows.map((r) => r.payee)).toEqual(['RENT']);
    expect(bank!.balance).toEqual({ amount: 95_000, date: '2024-03-31' });
    expect(card!.account).toEqual({ number: 'XXXX9876', type: 'creditCard', line: 14 });
    expect(card!.rows.map((r) => r.payee)).toEqual(['GROCER', 'PAYMENT']);
  });

  it('refuses to take one of them as the file (parseStatement), listing both', () => {
    expect(() => parseStatement({ content: BOTH })).toThrow(
      "the file: found 2 accounts' statements: number 111122223333 (checking, line 10, 1 row); number XXXX9876 (creditCard, line 14, 2 rows); " +
        "expected one account's statement; to fix it, give one account's file, or statement_account",
    );
  });

  it('reads a bank statement beside an investment one, saying the investment one is not read', () => {
    const inv = '<INVSTMTMSGSRSV1><INVSTMTTRNRS><TRNUID>3<INVSTMTRS><DTASOF>20240301<CURDEF>USD</INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1>\n</OFX>';
    const all = parseStatements({ content: BOTH.replace('</OFX>', inv) });
    expect(all.map((s) => s.account?.number)).toEqual(['111122223333', 'XXXX9876']);
    expect(all[0]!.decisions).toContain("line 19: <INVSTMTRS>, an investment account's statement, is not read");
  });

  it('refuses elements nested deeper than any OFX statement, naming the line', () => {
    const names = Array.from({ length: 40 }, (_, i) => `AGG${i}`);
    const deep = `${HEADER}<OFX>\n${names.map((n) => `<${n}>`).join('')}<X>1${names
      .map((n) => `</${n}>`)
      .reverse()
      .join('')}</OFX>`;
    expect(refusal(deep)).toBe('line 10, <AGG31>: found nesting 32 elements deep; expected an OFX statement');
  });

  it("refuses the bank's error in place of a statement, saying the bank's message", () => {
    const err = `${HEADER}<OFX>\n<SIGNONMSGSRSV1><SONRS>\n<STATUS><CODE>15500<SEVERITY>ERROR<MESSAGE>Invalid user ID or password</STATUS>\n</SONRS></SIGNONMSGSRSV1></OFX>`;
    expect(refusal(err)).toBe(
      "line 11, <STATUS>: found the bank's error (ERROR: 15500 Invalid user ID or password); expected a statement; to fix it, download the statement again",
    );
  });

  it('refuses an investment statement, naming its line and what is read instead', () => {
    const inv = `${HEADER}<OFX><INVSTMTMSGSRSV1><INVSTMTTRNRS><TRNUID>1\n<INVSTMTRS><DTASOF>20240301<CURDEF>USD</INVSTMTRS></INVSTMTTRNRS></INVSTMTMSGSRSV1></OFX>`;
    expect(refusal(inv)).toMatch(
      /^line 10, <INVSTMTRS>: found an investment account's statement; expected a bank \(<STMTRS>\) or credit card \(<CCSTMTRS>\) statement; to fix it, export the account's cash or bank statement/,
    );
  });
});

describe('OFX charsets', () => {
  const bytes = (header: string, payee: number[]) =>
    Buffer.concat([
      Buffer.from(`${header}<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST><STMTTRN><DTPOSTED>20240301<TRNAMT>-4.50<NAME>`, 'latin1'),
      Buffer.from(payee),
      Buffer.from('</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n', 'latin1'),
    ]);
  // "Café — 5 €" in Windows-1252: é 0xE9, — 0x97, € 0x80.
  const CP1252 = [0x43, 0x61, 0x66, 0xe9, 0x20, 0x97, 0x20, 0x35, 0x20, 0x80];
  const payee = (content: Uint8Array) => parseStatement({ content }).rows[0]!.payee;

  it('decodes CHARSET:1252 with the real Windows-1252 table: € and — survive', () => {
    expect(payee(bytes(HEADER, CP1252))).toBe('Café — 5 €');
    expect(parseStatement({ content: bytes(HEADER, CP1252) }).decisions[0]).toBe("read as windows-1252, as the OFX header's CHARSET:1252 says");
  });

  it('decodes CHARSET:ISO-8859-1 and 8859-1 as browsers do (Windows-1252: bytes 0x80–0x9F are never control characters)', () => {
    expect(payee(bytes(HEADER.replace('CHARSET:1252', 'CHARSET:ISO-8859-1'), CP1252))).toBe('Café — 5 €');
    expect(payee(bytes(HEADER.replace('CHARSET:1252', 'CHARSET:8859-1'), CP1252))).toBe('Café — 5 €');
  });

  it('decodes other code pages with their own tables (CHARSET:1250: 0x8A is Š), and an XML declaration the same way', () => {
    expect(payee(bytes(HEADER.replace('CHARSET:1252', 'CHARSET:1250'), [0x8a, 0x6b, 0x6f, 0x64, 0x61]))).toBe('Škoda');
    expect(payee(bytes('<?xml version="1.0" encoding="windows-1252"?>\n<?OFX OFXHEADER="200" VERSION="200"?>\n', CP1252))).toBe('Café — 5 €');
  });

  it('reads ENCODING:UTF-8 as UTF-8, and valid UTF-8 bytes as UTF-8 whatever CHARSET says', () => {
    const utf8 = [...Buffer.from('Café — 5 €', 'utf8')];
    expect(payee(bytes(HEADER.replace('ENCODING:USASCII', 'ENCODING:UTF-8'), utf8))).toBe('Café — 5 €');
    const mislabelled = parseStatement({ content: bytes(HEADER, utf8) });
    expect(mislabelled.rows[0]!.payee).toBe('Café — 5 €');
    expect(mislabelled.decisions[0]).toMatch(/^read as UTF-8, though the OFX header's CHARSET:1252 says otherwise/);
  });
});
