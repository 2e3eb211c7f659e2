/**
 * ISO 20022 camt.053 bank-to-customer statements (versions .001.02 to .001.13), by fast-xml-parser:
 * each Ntry a row (DBIT negative, Sts PDNG pending), the CLBD balance as the statement balance.
 * A DOCTYPE is refused before parsing: a statement has no use for entity declarations.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseDecimal } from './amount.js';
import { elementLines, isoDay, list } from './structured.js';
import { lineIndex, optionalText } from './text.js';
import { type ParsedStatement, StatementError, type StatementRow } from './types.js';

type Node = Record<string, unknown>;
const LISTS = new Set(['Stmt', 'Ntry', 'Bal', 'NtryDtls', 'TxDtls', 'Ustrd']);

function parseXml(text: string): Node {
  const doctype = /<!DOCTYPE|<!ENTITY/i.exec(text);
  if (doctype) throw new StatementError(`line ${lineIndex(text)(doctype.index)}: a CAMT file has no DOCTYPE or entity declarations`);
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new StatementError(`line ${valid.err.line}: the XML is malformed (${valid.err.msg})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    isArray: (name) => LISTS.has(name),
  });
  return parser.parse(text) as Node;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : v && typeof v === 'object' ? ((v as Node)['#text'] as string | undefined) : undefined;
const at = (n: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Node)[k] : undefined), n);

/** Amount in YNAB's sign: DBIT is money out. */
function signed(n: Node, line: number, what: string): number {
  const amount = parseDecimal(text(n['Amt']), line, `${what} Amt`);
  const ind = text(n['CdtDbtInd']);
  if (ind !== 'DBIT' && ind !== 'CRDT') throw new StatementError(`line ${line}: ${what} CdtDbtInd "${ind ?? ''}" is not CRDT or DBIT`);
  return ind === 'DBIT' ? -amount : amount;
}

/** The other party: the creditor of money paid out, the debtor of money received (Nm, or Pty/Nm from version 8). */
function counterparty(tx: unknown, outgoing: boolean): string | undefined {
  const who = at(tx, 'RltdPties', outgoing ? 'Cdtr' : 'Dbtr');
  return optionalText(text(at(who, 'Nm')) ?? text(at(who, 'Pty', 'Nm')));
}

function entryRow(e: Node, line: number): StatementRow {
  const amount = signed(e, line, 'Ntry');
  const tx = list(at(e, 'NtryDtls') as Node[]).flatMap((d) => list(d['TxDtls'] as Node[]))[0];
  const remittance = list(at(tx, 'RmtInf', 'Ustrd') as string[])
    .map(text)
    .join(' ');
  const memo = optionalText(remittance) ?? optionalText(text(e['AddtlNtryInf']));
  const payee = counterparty(tx, amount < 0) ?? optionalText(text(e['AddtlNtryInf'])) ?? memo ?? '';
  const status = text(e['Sts']) ?? text(at(e, 'Sts', 'Cd'));
  const id = optionalText(text(e['AcctSvcrRef']) ?? text(e['NtryRef']) ?? text(at(tx, 'Refs', 'AcctSvcrRef')));
  const day = text(at(e, 'BookgDt', 'Dt')) ?? text(at(e, 'BookgDt', 'DtTm')) ?? text(at(e, 'ValDt', 'Dt'));
  return {
    line,
    date: isoDay(day, line, 'BookgDt'),
    amount,
    payee,
    ...(memo !== undefined && memo !== payee ? { memo } : {}),
    ...(status === 'PDNG' ? { pending: true } : {}),
    ...(id !== undefined ? { bank_id: id } : {}),
  };
}

export function readCamt(source: string): ParsedStatement {
  const entryLines = elementLines(source, /<(?:[\w.-]+:)?Ntry[\s>]/g, 'entries');
  const balLines = elementLines(source, /<(?:[\w.-]+:)?Bal[\s>]/g, 'balances');
  const doc = parseXml(source);
  const stmts = list(at(doc, 'Document', 'BkToCstmrStmt', 'Stmt') as Node[]);
  if (stmts.length === 0) throw new StatementError('the XML has no Document/BkToCstmrStmt/Stmt: this is not a camt.053 statement');
  if (stmts.length > 1) throw new StatementError(`the file holds ${stmts.length} statements (Stmt); give one at a time`);
  const st = stmts[0]!;
  const rows = list(st['Ntry'] as Node[]).map((e, i) => entryRow(e, entryLines[i] ?? 0));
  const bals = list(st['Bal'] as Node[]);
  const closing = bals.findIndex((b) => text(at(b, 'Tp', 'CdOrPrtry', 'Cd')) === 'CLBD');
  const decisions = [`read as camt.053: ${rows.length} entr${rows.length === 1 ? 'y' : 'ies'}`];
  let balance: ParsedStatement['balance'];
  if (closing >= 0) {
    const b = bals[closing]!;
    const line = balLines[closing] ?? 0;
    balance = { amount: signed(b, line, 'Bal'), date: isoDay(text(at(b, 'Dt', 'Dt')) ?? text(at(b, 'Dt', 'DtTm')), line, 'Bal Dt') };
    decisions.push('statement balance from the closing booked balance (CLBD)');
  }
  const currency = optionalText((at(st, 'Acct', 'Ccy') as string | undefined) ?? (at(bals[0], 'Amt', '@Ccy') as string | undefined));
  return { format: 'camt053', rows, ...(balance ? { balance } : {}), ...(currency ? { currency } : {}), decisions };
}
