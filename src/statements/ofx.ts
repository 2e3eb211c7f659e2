/**
 * OFX 1.x (SGML) and 2.x (XML) statements, and QFX (OFX with Intuit's tags), by ofx-js: the bank
 * or card statement's STMTTRN rows (and pending STMTTRNP ones), LEDGERBAL as the balance.
 */
import { parseSync } from 'ofx-js';
import { parseDecimal } from './amount.js';
import { elementLines, isoDay, list } from './structured.js';
import { lineIndex, optionalText } from './text.js';
import { type ParsedStatement, StatementError, type StatementRow } from './types.js';

type Node = Record<string, unknown>;

/**
 * ofx-js turns SGML into XML with a regex that backtracks exponentially in a tag's length
 * (`<([A-Z0-9_]*)+\.+…`): 24 letters take half a second, 30 a minute. OFX's longest tags have 18;
 * a file whose tags would cost more than a real statement's is refused before ofx-js sees it.
 */
const TAG_MAX = 20;
const BACKTRACK_BUDGET = 2 ** 23;

function checkTags(text: string): void {
  const at = lineIndex(text);
  let cost = 0;
  for (const m of text.matchAll(/<([A-Z0-9_]+)/g)) {
    const len = m[1]!.length;
    if (len > TAG_MAX) throw new StatementError(`line ${at(m.index)}: <${m[1]!.slice(0, 30)}…> is not an OFX tag (OFX tags are at most ${TAG_MAX} letters)`);
    cost += 2 ** len;
    if (cost > BACKTRACK_BUDGET) throw new StatementError(`line ${at(m.index)}: the file has far more long tags than an OFX statement`);
  }
}

/** The line of the first opening of `tag` left unclosed (ofx-js names the tag, not the line). */
function unclosedLine(text: string, tag: string): number | undefined {
  const at = lineIndex(text);
  let open: number | undefined;
  for (const m of text.matchAll(new RegExp(`<(/?)${tag.replace(/\W/g, '')}>`, 'gi'))) {
    if (m[1]) open = undefined;
    else if (open !== undefined) return at(open);
    else open = m.index;
  }
  return open === undefined ? undefined : at(open);
}

function parseOfx(text: string): Node {
  checkTags(text);
  if (!/<OFX>/i.test(text)) throw new StatementError('line 1: no <OFX> element: this is not an OFX file');
  try {
    const parsed = parseSync(text.replace(/<ofx>/i, '<OFX>'));
    if (!parsed.OFX || typeof parsed.OFX !== 'object') throw new Error('no OFX element');
    return parsed.OFX as Node;
  } catch (e) {
    if (e instanceof StatementError) throw e;
    const message = e instanceof Error ? e.message : String(e);
    const tag = /closing tag for (\S+)/.exec(message)?.[1];
    const line = tag ? unclosedLine(text, tag) : undefined;
    throw new StatementError(`line ${line ?? '?'}: the OFX is malformed (${message})`);
  }
}

/** The one statement of the file: a bank (STMTRS) or card (CCSTMTRS) one. */
function statementOf(ofx: Node): Node {
  const found: Node[] = [];
  for (const [msgs, rs, st] of [
    ['BANKMSGSRSV1', 'STMTTRNRS', 'STMTRS'],
    ['CREDITCARDMSGSRSV1', 'CCSTMTTRNRS', 'CCSTMTRS'],
  ] as const) {
    for (const m of list(ofx[msgs] as Node | Node[])) for (const r of list(m[rs] as Node | Node[])) found.push(...list(r[st] as Node | Node[]));
  }
  if (found.length === 0) throw new StatementError('the OFX has no bank or card statement (STMTRS or CCSTMTRS)');
  if (found.length > 1) throw new StatementError(`the OFX holds ${found.length} statements; export one account at a time`);
  return found[0]!;
}

/**
 * A text element's value. ofx-js decodes only &amp;, &lt; and &gt;; an OFX 2 file (XML) may also
 * write &apos;, &quot; and character references (`TRADER JOE&apos;S`, `CAF&#201;`), which are
 * decoded here. (A literal "&amp;apos;" thus reads as an apostrophe: ofx-js has already turned it
 * into "&apos;". No bank writes that.)
 */
function ofxText(v: unknown): string | undefined {
  if (typeof v !== 'string') return optionalText(v as undefined);
  const decoded = v.replace(/&(apos|quot|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (whole, e: string) => {
    if (e.toLowerCase() === 'apos') return "'";
    if (e.toLowerCase() === 'quot') return '"';
    const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
  return optionalText(decoded);
}

function row(t: Node, line: number, pending: boolean): StatementRow {
  const payee = ofxText(t['NAME']) ?? ofxText((t['PAYEE'] as Node | undefined)?.['NAME']);
  const memo = ofxText(t['MEMO']);
  const id = optionalText(t['FITID'] as string);
  return {
    line,
    date: isoDay((t['DTPOSTED'] ?? t['DTTRAN']) as string, line, 'DTPOSTED'),
    amount: parseDecimal(t['TRNAMT'] as string, line, 'TRNAMT'),
    payee: payee ?? memo ?? '',
    ...(memo !== undefined ? { memo } : {}),
    ...(pending ? { pending: true } : {}),
    ...(id !== undefined ? { bank_id: id } : {}),
  };
}

export function readOfx(text: string, format: 'ofx' | 'qfx'): ParsedStatement {
  const booked = elementLines(text, /<STMTTRN>/gi, 'transactions');
  const waiting = elementLines(text, /<STMTTRNP>/gi, 'pending transactions');
  const st = statementOf(parseOfx(text));
  const trns = list((st['BANKTRANLIST'] as Node | undefined)?.['STMTTRN'] as Node | Node[]);
  const pend = list((st['BANKTRANLISTP'] as Node | undefined)?.['STMTTRNP'] as Node | Node[]);
  const rows = [...trns.map((t, i) => row(t, booked[i] ?? 0, false)), ...pend.map((t, i) => row(t, waiting[i] ?? 0, true))];
  const ledger = st['LEDGERBAL'] as Node | undefined;
  const balLine = elementLines(text, /<LEDGERBAL>/gi, 'balances')[0] ?? 0;
  const currency = optionalText(st['CURDEF'] as string);
  const decisions = [`read as ${format.toUpperCase()}: ${trns.length} booked transaction(s)${pend.length ? `, ${pend.length} pending` : ''}`];
  if (ledger) decisions.push('statement balance from LEDGERBAL');
  const tranList = st['BANKTRANLIST'] as Node | undefined;
  const listLine = elementLines(text, /<BANKTRANLIST>/gi, 'transaction lists')[0] ?? 0;
  const from = optionalText(tranList?.['DTSTART'] as string);
  const to = optionalText(tranList?.['DTEND'] as string);
  return {
    format,
    rows,
    ...(from && to ? { period: { from: isoDay(from, listLine, 'DTSTART'), to: isoDay(to, listLine, 'DTEND') } } : {}),
    ...(ledger
      ? { balance: { amount: parseDecimal(ledger['BALAMT'] as string, balLine, 'BALAMT'), date: isoDay(ledger['DTASOF'] as string, balLine, 'DTASOF') } }
      : {}),
    ...(currency ? { currency } : {}),
    decisions,
  };
}
