/**
 * OFX, QFX, QIF and camt.053 statements. XML (OFX 2.x, camt.053) is built by fast-xml-parser's
 * XMLBuilder and QIF by qif-ts; QFX is written as OFX 1.02 SGML (what Web Connect files are),
 * which no library writes: one tag and its escaped value a line.
 */
import { XMLBuilder } from 'fast-xml-parser';
import { QifType, serializeQif } from 'qif-ts';
import { decimal, type StatementToWrite, writeDate } from './write-common.js';

const compact = (iso: string) => writeDate(iso, 'YYYYMMDD');

function ofxStatement(s: StatementToWrite, intuit: boolean): Record<string, unknown> {
  const trns = s.rows.map((r) => ({
    TRNTYPE: r.amount < 0 ? 'DEBIT' : 'CREDIT',
    DTPOSTED: `${compact(r.date)}120000.000`,
    TRNAMT: decimal(r.amount),
    FITID: r.bank_id,
    NAME: r.payee,
    ...(r.memo ? { MEMO: r.memo } : {}),
  }));
  const list = { DTSTART: compact(s.from), DTEND: compact(s.to), STMTTRN: trns };
  const ledger = { BALAMT: decimal(s.balance), DTASOF: `${compact(s.to)}235959.000` };
  const status = { CODE: '0', SEVERITY: 'INFO' };
  const signon = { SONRS: { STATUS: status, DTSERVER: `${compact(s.to)}235959.000`, LANGUAGE: 'ENG', ...(intuit ? { 'INTU.BID': '3000' } : {}) } };
  if (s.account.card) {
    return {
      SIGNONMSGSRSV1: signon,
      CREDITCARDMSGSRSV1: {
        CCSTMTTRNRS: {
          TRNUID: '1',
          STATUS: status,
          CCSTMTRS: { CURDEF: s.account.currency, CCACCTFROM: { ACCTID: s.account.number }, BANKTRANLIST: list, LEDGERBAL: ledger },
        },
      },
    };
  }
  const from = { BANKID: '021000021', ACCTID: s.account.number, ACCTTYPE: 'CHECKING' };
  return {
    SIGNONMSGSRSV1: signon,
    BANKMSGSRSV1: {
      STMTTRNRS: { TRNUID: '1', STATUS: status, STMTRS: { CURDEF: s.account.currency, BANKACCTFROM: from, BANKTRANLIST: list, LEDGERBAL: ledger } },
    },
  };
}

const escape = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function sgml(tree: Record<string, unknown>, indent = ''): string[] {
  return Object.entries(tree).flatMap(([tag, v]) =>
    (Array.isArray(v) ? v : [v]).flatMap((item) =>
      typeof item === 'object' && item !== null
        ? [`${indent}<${tag}>`, ...sgml(item as Record<string, unknown>, `${indent}  `), `${indent}</${tag}>`]
        : [`${indent}<${tag}>${escape(String(item))}`],
    ),
  );
}

/** OFX 2.x XML; QFX as OFX 1.02 SGML with Intuit's INTU.BID. */
export function writeOfx(s: StatementToWrite, format: 'ofx' | 'qfx'): string {
  if (format === 'qfx') {
    const header = [
      'OFXHEADER:100',
      'DATA:OFXSGML',
      'VERSION:102',
      'SECURITY:NONE',
      'ENCODING:USASCII',
      'CHARSET:1252',
      'COMPRESSION:NONE',
      'OLDFILEUID:NONE',
      'NEWFILEUID:NONE',
      '',
    ];
    return [...header, ...sgml({ OFX: ofxStatement(s, true) }), ''].join('\r\n');
  }
  const builder = new XMLBuilder({ format: true, indentBy: '  ', processEntities: true });
  const head =
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n';
  return head + (builder.build({ OFX: ofxStatement(s, false) }) as string);
}

export function writeQif(s: StatementToWrite): string {
  return serializeQif({
    type: s.account.card ? QifType.Card : QifType.Bank,
    // qif-ts writes the number as given: Number of exact decimal text is the shortest form of it.
    transactions: s.rows.map((r) => ({
      date: writeDate(r.date, 'MM/DD/YYYY'),
      amount: Number(decimal(r.amount)),
      payee: r.payee,
      ...(r.memo ? { memo: r.memo } : {}),
    })),
  });
}

export function writeCamt(s: StatementToWrite): string {
  const amt = (m: number) => ({ '#text': decimal(Math.abs(m)), '@_Ccy': s.account.currency });
  const bal = (code: string, m: number, date: string) => ({
    Tp: { CdOrPrtry: { Cd: code } },
    Amt: amt(m),
    CdtDbtInd: m < 0 ? 'DBIT' : 'CRDT',
    Dt: { Dt: date },
  });
  const opening = s.balance - s.rows.reduce((t, r) => t + r.amount, 0);
  const entries = s.rows.map((r) => {
    const party = { Pty: { Nm: r.payee } };
    return {
      Amt: amt(r.amount),
      CdtDbtInd: r.amount < 0 ? 'DBIT' : 'CRDT',
      Sts: { Cd: 'BOOK' },
      BookgDt: { Dt: r.date },
      ValDt: { Dt: r.date },
      AcctSvcrRef: r.bank_id,
      NtryDtls: { TxDtls: { RltdPties: r.amount < 0 ? { Cdtr: party } : { Dbtr: party }, ...(r.memo ? { RmtInf: { Ustrd: r.memo } } : {}) } },
    };
  });
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Document: {
      '@_xmlns': 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08',
      BkToCstmrStmt: {
        GrpHdr: { MsgId: `STMT-${s.to}`, CreDtTm: `${s.to}T23:59:59` },
        Stmt: {
          Id: `${s.account.number}-${s.to}`,
          Acct: { Id: { IBAN: s.account.number }, Ccy: s.account.currency },
          Bal: [bal('OPBD', opening, s.from), bal('CLBD', s.balance, s.to)],
          Ntry: entries,
        },
      },
    },
  };
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, indentBy: '  ', processEntities: true });
  return builder.build(doc) as string;
}
