/**
 * ISO 20022 bank-to-customer cash reports (versions .001.02 to .001.13), by fast-xml-parser: the
 * camt.053 statement, the camt.052 account report (intraday or end of day) and the camt.054
 * debit/credit notification share their entries (Ntry), so each is read the same way: each Ntry a
 * row (DBIT negative, Sts PDNG or INFO pending), the CLBD balance (a report's ITBD where it has no
 * CLBD) as the statement balance. Several statements of one account are read together; of
 * several accounts, refused. A DOCTYPE is refused before parsing: a statement has no use for
 * entity declarations.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parseDecimal } from './amount.js';
import { refuse, shown } from './refusal.js';
import { elementLines, isoDay, list } from './structured.js';
import { lineIndex, optionalText } from './text.js';
import type { ParsedStatement, ReadFormat, StatementRow } from './types.js';

type Node = Record<string, unknown>;
type CamtFormat = Extract<ReadFormat, `camt${string}`>;

/** Each message: its root, the element of one statement (report, notification), and its name. */
const MESSAGES: Record<CamtFormat, { root: string; unit: string; name: string }> = {
  camt052: { root: 'BkToCstmrAcctRpt', unit: 'Rpt', name: 'camt.052 account report' },
  camt053: { root: 'BkToCstmrStmt', unit: 'Stmt', name: 'camt.053 statement' },
  camt054: { root: 'BkToCstmrDbtCdtNtfctn', unit: 'Ntfctn', name: 'camt.054 notification' },
};
const LISTS = new Set(['Stmt', 'Rpt', 'Ntfctn', 'Ntry', 'Bal', 'NtryDtls', 'TxDtls', 'Ustrd']);

function parseXml(text: string): Node {
  const doctype = /<!DOCTYPE|<!ENTITY/i.exec(text);
  if (doctype)
    throw refuse({
      line: lineIndex(text)(doctype.index),
      found: 'a DOCTYPE or entity declaration',
      expected: 'a camt document without one (banks write none)',
    });
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw refuse({ line: valid.err.line, found: `malformed XML (${valid.err.msg})`, expected: 'well-formed XML, as the bank wrote it' });
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
  if (ind !== 'DBIT' && ind !== 'CRDT') throw refuse({ line, element: `${what}/CdtDbtInd`, found: shown(ind), expected: 'CRDT or DBIT' });
  return ind === 'DBIT' ? -amount : amount;
}

/** A bank's reference, unless it is the placeholder for none (NONREF), which many entries share. */
const reference = (v: string | undefined): string | undefined => (v && /^NONREF$/i.test(v.trim()) ? undefined : optionalText(v));

/** The other party: the creditor of money paid out, the debtor of money received (Nm, or Pty/Nm from version 8). */
function counterparty(tx: unknown, outgoing: boolean): string | undefined {
  const who = at(tx, 'RltdPties', outgoing ? 'Cdtr' : 'Dbtr');
  return optionalText(text(at(who, 'Nm')) ?? text(at(who, 'Pty', 'Nm')));
}

/** `asOf`: the day a pending entry without a date of its own is shown at (its report's). */
function entryRow(e: Node, line: number, asOf: string | undefined): StatementRow {
  const amount = signed(e, line, 'Ntry');
  const tx = list(at(e, 'NtryDtls') as Node[]).flatMap((d) => list(d['TxDtls'] as Node[]))[0];
  const remittance = list(at(tx, 'RmtInf', 'Ustrd') as string[])
    .map(text)
    .join(' ');
  const memo = optionalText(remittance) ?? optionalText(text(e['AddtlNtryInf']));
  const payee = counterparty(tx, amount < 0) ?? optionalText(text(e['AddtlNtryInf'])) ?? memo ?? '';
  const status = text(e['Sts']) ?? text(at(e, 'Sts', 'Cd'));
  const id = reference(text(e['AcctSvcrRef'])) ?? reference(text(e['NtryRef'])) ?? reference(text(at(tx, 'Refs', 'AcctSvcrRef')));
  const pending = status === 'PDNG' || status === 'INFO';
  const day =
    text(at(e, 'BookgDt', 'Dt')) ??
    text(at(e, 'BookgDt', 'DtTm')) ??
    text(at(e, 'ValDt', 'Dt')) ??
    text(at(e, 'ValDt', 'DtTm')) ??
    (pending ? asOf : undefined);
  return {
    line,
    date: isoDay(day, line, 'BookgDt'),
    amount,
    payee,
    ...(memo !== undefined && memo !== payee ? { memo } : {}),
    // PDNG: not yet booked; INFO: told for information, never booked to the account.
    ...(pending ? { pending: true } : {}),
    ...(id !== undefined ? { bank_id: id } : {}),
  };
}

/** The days the statements cover (FrToDt), where they say. */
function periodOf(units: Node[]): ParsedStatement['period'] {
  const days = (key: 'FrDtTm' | 'ToDtTm') =>
    units.map((u) => text(at(u, 'FrToDt', key))?.slice(0, 10)).filter((d): d is string => !!d && /^\d{4}-\d{2}-\d{2}$/.test(d));
  const from = days('FrDtTm').sort()[0];
  const to = days('ToDtTm').sort().at(-1);
  return from && to ? { from, to } : undefined;
}

/** The account a statement is of, as the file names it (IBAN, else its other identifier). */
const accountOf = (st: Node): string => text(at(st, 'Acct', 'Id', 'IBAN')) ?? text(at(st, 'Acct', 'Id', 'Othr', 'Id')) ?? '';

/** The closing booked balance of the last statement (of a report without one, its interim booked balance). */
function closingBalance(bals: Node[], lines: number[]): { balance?: ParsedStatement['balance']; decision?: string } {
  for (const code of ['CLBD', 'ITBD']) {
    const i = bals.findLastIndex((b) => text(at(b, 'Tp', 'CdOrPrtry', 'Cd')) === code);
    if (i < 0) continue;
    const b = bals[i]!;
    const line = lines[i] ?? 0;
    return {
      balance: { amount: signed(b, line, 'Bal'), date: isoDay(text(at(b, 'Dt', 'Dt')) ?? text(at(b, 'Dt', 'DtTm')), line, 'Bal Dt') },
      decision: `statement balance from the ${code === 'CLBD' ? 'closing booked balance (CLBD)' : 'interim booked balance (ITBD)'}`,
    };
  }
  return {};
}

export function readCamt(source: string, format: ReadFormat = 'camt053'): ParsedStatement {
  const entryLines = elementLines(source, /<(?:[\w.-]+:)?Ntry[\s>]/g, 'entries');
  const balLines = elementLines(source, /<(?:[\w.-]+:)?Bal[\s>]/g, 'balances');
  const doc = parseXml(source);
  // The message the document is, whatever format named it (the camt formats share one reader).
  const kind = (Object.keys(MESSAGES) as CamtFormat[]).find((k) => at(doc, 'Document', MESSAGES[k].root) !== undefined);
  const m = MESSAGES[kind ?? (format as CamtFormat)] ?? MESSAGES.camt053;
  const units = list(at(doc, 'Document', m.root, m.unit) as Node[]);
  if (units.length === 0) {
    const root = Object.keys((at(doc, 'Document') as Node | undefined) ?? {}).find((k) => !k.startsWith('@'));
    throw refuse({
      element: root ? `Document/${root}` : 'Document',
      found: kind ? `no ${m.unit} in ${m.root}` : root ? `a Document of <${root}>` : 'no Document element',
      expected: 'Document/BkToCstmrStmt/Stmt (camt.053), BkToCstmrAcctRpt/Rpt (camt.052) or BkToCstmrDbtCdtNtfctn/Ntfctn (camt.054)',
      fix: "give the bank's camt.053 statement download",
    });
  }
  const accounts = [...new Set(units.map(accountOf))];
  if (accounts.length > 1) {
    const lines = elementLines(source, new RegExp(`<(?:[\\w.-]+:)?${m.unit}[\\s>]`, 'g'), m.unit);
    throw refuse({
      line: lines[units.findIndex((u) => accountOf(u) !== accounts[0])],
      element: m.unit,
      found: `${units.length} ${m.unit} elements of ${accounts.length} accounts (${accounts.map((a) => shown(a || 'unnamed')).join(', ')})`,
      expected: `the ${m.name}s of one account`,
      fix: 'export one account at a time',
    });
  }
  const created = text(at(doc, 'Document', m.root, 'GrpHdr', 'CreDtTm'));
  const rows = units
    .flatMap((u) => list(u['Ntry'] as Node[]).map((e) => [e, text(at(u, 'FrToDt', 'ToDtTm')) ?? text(u['CreDtTm']) ?? created] as const))
    .map(([e, asOf], i) => entryRow(e, entryLines[i] ?? 0, asOf));
  const period = periodOf(units);
  const { balance, decision } = closingBalance(
    units.flatMap((u) => list(u['Bal'] as Node[])),
    balLines,
  );
  const several = units.length > 1 ? ` from ${units.length} ${m.unit} elements of one account` : '';
  const decisions = [`read as ${m.name}: ${rows.length} entr${rows.length === 1 ? 'y' : 'ies'}${several}`, ...(decision ? [decision] : [])];
  const first = units[0]!;
  const currency = optionalText((at(first, 'Acct', 'Ccy') as string | undefined) ?? (at(list(first['Bal'] as Node[])[0], 'Amt', '@Ccy') as string | undefined));
  return { format: kind ?? 'camt053', rows, ...(balance ? { balance } : {}), ...(period ? { period } : {}), ...(currency ? { currency } : {}), decisions };
}
