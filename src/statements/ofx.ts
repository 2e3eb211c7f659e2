/**
 * OFX 1.x (SGML) and 2.x (XML) statements, and QFX (OFX with Intuit's tags): each bank (STMTRS)
 * or card (CCSTMTRS) statement of the file, its STMTTRN rows (and pending STMTTRNP ones),
 * LEDGERBAL as its balance. The file is made well-formed by ofx-sgml.ts (banks leave elements
 * unclosed at any level) and parsed by fast-xml-parser (CDATA, and every XML entity decoded once:
 * "&amp;apos;" stays "&apos;").
 */
import { XMLParser } from 'fast-xml-parser';
import { parseDecimal } from './amount.js';
import { ofxToXml } from './ofx-sgml.js';
import { elementLines, isoDay, list } from './structured.js';
import { optionalText } from './text.js';
import { refuse } from './refusal.js';
import { type FileAccount, type ParsedStatement, type StatementRow } from './types.js';

type Node = Record<string, unknown>;

function parseOfx(text: string): Node {
  const xml = ofxToXml(text);
  try {
    const parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '@',
      parseTagValue: false,
      parseAttributeValue: false,
      processEntities: true,
      htmlEntities: true,
    });
    const parsed = parser.parse(xml) as Node;
    return (parsed['OFX'] && typeof parsed['OFX'] === 'object' ? parsed['OFX'] : {}) as Node;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const line = /line:? (\d+)/i.exec(message)?.[1];
    throw refuse({
      ...(line ? { line: Number(line) } : {}),
      found: `a malformed OFX (${message})`,
      expected: 'an OFX 1 (SGML) or OFX 2 (XML) statement',
      fix: 'give format if the file is not an OFX',
    });
  }
}

/** An element's text; aggregates (objects) and missing elements have none. */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const lineOf = (n: unknown): number => Number((n as Node | undefined)?.['@L'] ?? 0);
const nodes = (v: unknown): Node[] => list(v as Node | Node[]).filter((n): n is Node => typeof n === 'object' && n !== null);

/** OFX ACCTTYPE in YNAB's words. */
const ACCOUNT_TYPES: Record<string, string> = { CHECKING: 'checking', SAVINGS: 'savings', MONEYMRKT: 'savings', CREDITLINE: 'lineOfCredit', CD: 'savings' };

interface Found {
  st: Node;
  account: FileAccount;
  /** What of the file is not read, said with its first statement. */
  skipped?: string;
}

/** Every bank and card statement of the file; an investment statement alone is refused, saying so. */
function statementsOf(ofx: Node): Found[] {
  const found: Found[] = [];
  for (const m of nodes(ofx['BANKMSGSRSV1']))
    for (const r of nodes(m['STMTTRNRS']))
      for (const st of nodes(r['STMTRS'])) {
        const from = nodes(st['BANKACCTFROM'])[0];
        const number = optionalText(str(from?.['ACCTID']));
        const type = ACCOUNT_TYPES[str(from?.['ACCTTYPE'])?.trim().toUpperCase() ?? ''];
        found.push({ st, account: { ...(number ? { number } : {}), type: type ?? 'checking', line: lineOf(st) } });
      }
  for (const m of nodes(ofx['CREDITCARDMSGSRSV1']))
    for (const r of nodes(m['CCSTMTTRNRS']))
      for (const st of nodes(r['CCSTMTRS'])) {
        const number = optionalText(str(nodes(st['CCACCTFROM'])[0]?.['ACCTID']));
        found.push({ st, account: { ...(number ? { number } : {}), type: 'creditCard', line: lineOf(st) } });
      }
  const inv = nodes(ofx['INVSTMTMSGSRSV1']).flatMap((m) => nodes(m['INVSTMTTRNRS']).flatMap((r) => nodes(r['INVSTMTRS'])))[0];
  if (found.length) {
    if (inv) found[0]!.skipped = `line ${lineOf(inv)}: <INVSTMTRS>, an investment account's statement, is not read`;
    return found;
  }
  if (inv) {
    throw refuse({
      line: lineOf(inv),
      element: 'INVSTMTRS',
      found: "an investment account's statement",
      expected: 'a bank (<STMTRS>) or credit card (<CCSTMTRS>) statement',
      fix: "export the account's cash or bank statement instead",
    });
  }
  // A download the bank refused holds its error where the statement would be.
  const status = Object.values(ofx)
    .flatMap((m) => nodes(m).flatMap((msgs) => Object.values(msgs).flatMap((rs) => nodes(rs).flatMap((r) => nodes(r['STATUS'])))))
    .find((st) => /^(?:ERROR|WARN)$/i.test(str(st['SEVERITY'])?.trim() ?? ''));
  if (status) {
    const said = [str(status['CODE']), str(status['MESSAGE'])].map((v) => optionalText(v)).filter(Boolean);
    throw refuse({
      line: lineOf(status),
      element: 'STATUS',
      found: `the bank's error (${str(status['SEVERITY'])?.trim()}${said.length ? `: ${said.join(' ')}` : ''})`,
      expected: 'a statement',
      fix: 'download the statement again',
    });
  }
  throw refuse({
    element: 'OFX',
    found: 'no bank or card statement',
    expected: '<STMTRS> (in <BANKMSGSRSV1>) or <CCSTMTRS> (in <CREDITCARDMSGSRSV1>)',
  });
}

function row(t: Node, pending: boolean): StatementRow {
  const line = lineOf(t);
  const payee = optionalText(str(t['NAME'])) ?? optionalText(str(nodes(t['PAYEE'])[0]?.['NAME']));
  const memo = optionalText(str(t['MEMO']));
  const id = optionalText(str(t['FITID']));
  const kind = optionalText(str(t['TRNTYPE']));
  // A pending row (STMTTRNP) has DTTRAN, the day of the transaction, and no DTPOSTED.
  const date = pending ? str(t['DTTRAN']) || str(t['DTPOSTED']) : str(t['DTPOSTED']) || str(t['DTUSER']);
  const what = pending ? 'DTTRAN' : str(t['DTPOSTED']) ? 'DTPOSTED' : 'DTPOSTED (or DTUSER)';
  return {
    line,
    date: isoDay(date, line, what),
    amount: parseDecimal(str(t['TRNAMT']), line, 'TRNAMT'),
    payee: payee ?? memo ?? '',
    ...(memo !== undefined ? { memo } : {}),
    ...(pending ? { pending: true } : {}),
    ...(id !== undefined ? { bank_id: id } : {}),
    ...(kind !== undefined ? { kind } : {}),
  };
}

/** LEDGERBAL: an empty BALAMT means the file states no balance; a balance with no DTASOF is as of the list's end. */
function balanceOf(st: Node, periodEnd: string | undefined, decisions: string[]): ParsedStatement['balance'] {
  const ledger = nodes(st['LEDGERBAL'])[0];
  if (!ledger) return undefined;
  const line = lineOf(ledger);
  const amount = str(ledger['BALAMT'])?.trim();
  if (!amount) {
    decisions.push(`line ${line}: LEDGERBAL has no BALAMT: the file states no balance`);
    return undefined;
  }
  const asOf = str(ledger['DTASOF'])?.trim();
  if (!asOf && !periodEnd) {
    decisions.push(`line ${line}: LEDGERBAL has no DTASOF (nor the list a DTEND): its balance is not used`);
    return undefined;
  }
  if (!asOf) decisions.push(`line ${line}: LEDGERBAL has no DTASOF: its balance is taken as of DTEND`);
  decisions.push('statement balance from LEDGERBAL');
  return { amount: parseDecimal(amount, line, 'BALAMT'), date: asOf ? isoDay(asOf, line, 'DTASOF') : periodEnd! };
}

function readOne(f: Found, format: 'ofx' | 'qfx'): ParsedStatement {
  const { st } = f;
  const tranList = nodes(st['BANKTRANLIST'])[0];
  const trns = nodes(tranList?.['STMTTRN']);
  const pend = nodes(nodes(st['BANKTRANLISTP'])[0]?.['STMTTRNP']);
  const rows = [...trns.map((t) => row(t, false)), ...pend.map((t) => row(t, true))];
  const currency = optionalText(str(st['CURDEF']));
  const decisions = [
    `read as ${format.toUpperCase()}: ${trns.length} booked transaction(s)${pend.length ? `, ${pend.length} pending` : ''}`,
    ...(f.skipped ? [f.skipped] : []),
  ];
  const listLine = lineOf(tranList);
  const from = optionalText(str(tranList?.['DTSTART']));
  const to = optionalText(str(tranList?.['DTEND']));
  const period = from && to ? { from: isoDay(from, listLine, 'DTSTART'), to: isoDay(to, listLine, 'DTEND') } : undefined;
  const balance = balanceOf(st, period?.to, decisions);
  return {
    format,
    rows,
    ...(period ? { period } : {}),
    ...(balance ? { balance } : {}),
    ...(currency ? { currency } : {}),
    account: f.account,
    decisions,
  };
}

/** Statements of one account (a download split in several) read as one: their rows, the latest balance, the days of all. */
function sameAccountJoined(parts: readonly ParsedStatement[]): ParsedStatement[] {
  const out: ParsedStatement[] = [];
  for (const p of parts) {
    const a = p.account!;
    const same = a.number ? out.find((o) => o.account!.number === a.number && o.account!.type === a.type) : undefined;
    if (!same) {
      out.push(p);
      continue;
    }
    same.rows.push(...p.rows);
    if (p.balance && (!same.balance || p.balance.date >= same.balance.date)) same.balance = p.balance;
    if (p.period && same.period) {
      same.period = {
        from: p.period.from < same.period.from ? p.period.from : same.period.from,
        to: p.period.to > same.period.to ? p.period.to : same.period.to,
      };
    }
    same.decisions.push(
      `line ${a.line}: another statement of the same account (number ${a.number}): its ${p.rows.length} row(s) read with line ${same.account!.line}'s`,
    );
  }
  return out;
}

/** Each account's statement in the file, in the file's order. */
export function readOfx(text: string, format: 'ofx' | 'qfx'): ParsedStatement[] {
  // Refused on the count before the file is parsed.
  elementLines(text, /<STMTTRNP?>/gi, 'transactions');
  return sameAccountJoined(statementsOf(parseOfx(text)).map((f) => readOne(f, format)));
}
