/**
 * OFX as banks write it, made into well-formed XML for fast-xml-parser (which does the parsing:
 * text, CDATA, entities). This only decides where each element ends, as an SGML reader with
 * OFX's DTD would:
 *  - an element with a value ends after it (`<NAME>ACME`, OFX 1's unclosed leaves); its own
 *    closing tag, where written, is taken with it;
 *  - an element with no value is empty when it is a known leaf, or when nothing closes it later
 *    (`<BRANCHID>` then `<ACCTID>1`), and an aggregate otherwise;
 *  - an aggregate's missing closing tag is implied, at any level: by the closing tag of an
 *    element it is inside (`</CCSTMTRS>` closes an unclosed BANKTRANLIST, as in Nubank's files),
 *    by another of its own kind (`<STMTTRN>` after an unclosed STMTTRN), or by an aggregate that
 *    belongs higher up (`<LEDGERBAL>` inside an unclosed BANKTRANLIST goes to the statement), or
 *    by an element that is not one of its members (`<MEMO>` after an unclosed CURRENCY);
 *  - a closing tag of nothing open is dropped.
 * Each aggregate carries the line it opens on (attribute L), for messages. A file that ends
 * inside an aggregate with no `</OFX>` is cut short and refused: reading it would lose rows.
 */
import { lineIndex } from './text.js';
import { refuse } from './refusal.js';

/** Aggregates of the statements read (OFX 1.6 / 2.2 banking, credit card, investment, sign-on). */
const AGGREGATES = new Set(
  (
    'OFX SIGNONMSGSRSV1 SONRS STATUS FI BANKMSGSRSV1 STMTTRNRS STMTRS BANKACCTFROM BANKACCTTO CCACCTFROM CCACCTTO ' +
    'BANKTRANLIST BANKTRANLISTP STMTTRN STMTTRNP PAYEE LEDGERBAL AVAILBAL BALLIST BAL CURRENCY ORIGCURRENCY IMAGEDATA ' +
    'CREDITCARDMSGSRSV1 CCSTMTTRNRS CCSTMTRS REWARDINFO INVSTMTMSGSRSV1 INVSTMTTRNRS INVSTMTRS INVACCTFROM INVTRANLIST ' +
    'INVBANKTRAN INVPOSLIST INVBAL INVOOLIST SECLISTMSGSRSV1 SECLIST'
  ).split(' '),
);

/** Leaves that may be written empty and unclosed (`<NAME>` then `<MEMO>x`). */
const LEAVES = new Set(
  (
    'CODE SEVERITY MESSAGE DTSERVER LANGUAGE DTPROFUP ORG FID TRNUID CURDEF BANKID BRANCHID ACCTID ACCTTYPE ACCTKEY ' +
    'DTSTART DTEND TRNTYPE DTPOSTED DTUSER DTAVAIL TRNAMT FITID CORRECTFITID CORRECTACTION SRVRTID CHECKNUM REFNUM SIC ' +
    'PAYEEID NAME EXTDNAME MEMO INV401KSOURCE CURRATE CURSYM BALAMT DTASOF MKTGINFO'
  ).split(' '),
);

/** Where an aggregate belongs: opening it closes what is open below its parent. */
const PARENTS: Record<string, string[]> = {
  SIGNONMSGSRSV1: ['OFX'],
  BANKMSGSRSV1: ['OFX'],
  CREDITCARDMSGSRSV1: ['OFX'],
  INVSTMTMSGSRSV1: ['OFX'],
  SECLISTMSGSRSV1: ['OFX'],
  STMTTRNRS: ['BANKMSGSRSV1'],
  CCSTMTTRNRS: ['CREDITCARDMSGSRSV1'],
  INVSTMTTRNRS: ['INVSTMTMSGSRSV1'],
  STMTRS: ['STMTTRNRS'],
  CCSTMTRS: ['CCSTMTTRNRS'],
  INVSTMTRS: ['INVSTMTTRNRS'],
  BANKACCTFROM: ['STMTRS'],
  CCACCTFROM: ['CCSTMTRS'],
  BANKTRANLIST: ['STMTRS', 'CCSTMTRS'],
  BANKTRANLISTP: ['STMTRS', 'CCSTMTRS'],
  LEDGERBAL: ['STMTRS', 'CCSTMTRS'],
  AVAILBAL: ['STMTRS', 'CCSTMTRS'],
  BALLIST: ['STMTRS', 'CCSTMTRS', 'INVBAL'],
  STMTTRN: ['BANKTRANLIST', 'INVBANKTRAN'],
  STMTTRNP: ['BANKTRANLISTP'],
  INVTRANLIST: ['INVSTMTRS'],
  INVPOSLIST: ['INVSTMTRS'],
  INVBAL: ['INVSTMTRS'],
};

/** Deeper than any OFX statement (its rows are 6 deep): a hostile file, refused before the XML parser recurses. */
const MAX_DEPTH = 32;

/**
 * Aggregates whose members OFX fixes: any other element opened inside one closes it (a
 * `<CURRENCY>` left open before `<MEMO>` inside a transaction).
 */
const MEMBERS: Record<string, Set<string>> = {
  STATUS: new Set(['CODE', 'SEVERITY', 'MESSAGE']),
  CURRENCY: new Set(['CURRATE', 'CURSYM']),
  ORIGCURRENCY: new Set(['CURRATE', 'CURSYM']),
  LEDGERBAL: new Set(['BALAMT', 'DTASOF']),
  AVAILBAL: new Set(['BALAMT', 'DTASOF']),
  PAYEE: new Set(['NAME', 'ADDR1', 'ADDR2', 'ADDR3', 'CITY', 'STATE', 'POSTALCODE', 'COUNTRY', 'PHONE']),
};

/** A tag, a CDATA section, a comment or declaration, or text up to the next "<". */
const TOKEN = /<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->|<[!?][^>]*>|<(\/?)(?:[\w.-]+:)?([A-Za-z][\w.-]*)[^>]*?(\/?)>|[^<]+|</g;

/** An "&" that starts no entity reference is a literal one (SGML files write "AT&T"). */
const escapeText = (t: string) => t.replace(/&(?!#\d+;|#x[0-9a-f]+;|[a-z]\w*;)/gi, '&amp;');

interface Token {
  close: boolean;
  /** `<MEMO/>`: an element with nothing in it. */
  empty?: boolean;
  name?: string;
  /** Text (or a CDATA section), verbatim. */
  text?: string;
  at: number;
}

function tokens(body: string, start: number): Token[] {
  const out: Token[] = [];
  for (const m of body.matchAll(TOKEN)) {
    const at = start + m.index;
    if (m[2]) out.push({ close: m[1] === '/', ...(m[3] ? { empty: true } : {}), name: m[2].toUpperCase(), at });
    else if (m[0].startsWith('<![CDATA[')) out.push({ close: false, text: m[0], at });
    else if (!m[0].startsWith('<!') && !m[0].startsWith('<?')) out.push({ close: false, text: m[0] === '<' ? '&lt;' : m[0], at });
  }
  return out;
}

/** The `<OFX>` body as well-formed XML, each aggregate with its line (L). */
export function ofxToXml(source: string): string {
  const start = source.search(/<OFX\s*>/i);
  if (start < 0) throw refuse({ line: 1, element: 'OFX', found: 'no <OFX> element', expected: 'an OFX file', fix: 'give format if the file is not an OFX' });
  const line = lineIndex(source);
  const toks = tokens(source.slice(start), start);
  // The last closing tag of each name: an unknown element with no value is an aggregate only if closed later.
  const lastClose = new Map<string, number>();
  toks.forEach((t, i) => t.close && lastClose.set(t.name!, i));
  const out: string[] = [];
  const stack: { name: string; at: number }[] = [];
  const popTo = (depth: number) => {
    while (stack.length > depth) out.push(`</${stack.pop()!.name}>`);
  };
  let closedOfx = false;
  for (let i = 0; i < toks.length && !closedOfx; i++) {
    const t = toks[i]!;
    if (t.text !== undefined) continue; // text outside a leaf: white space, or stray
    const name = t.name!;
    if (t.close) {
      const depth = stack.findLastIndex((e) => e.name === name);
      if (depth >= 0) popTo(depth);
      closedOfx = stack.length === 0 && name === 'OFX';
      continue;
    }
    while (stack.length > 1 && MEMBERS[stack.at(-1)!.name] && !MEMBERS[stack.at(-1)!.name]!.has(name)) popTo(stack.length - 1);
    if (t.empty) {
      out.push(`<${name}></${name}>`);
      continue;
    }
    // The element's value: text and CDATA up to the next tag.
    let j = i + 1;
    let value = '';
    for (; j < toks.length && toks[j]!.text !== undefined; j++) value += toks[j]!.text!.startsWith('<![CDATA[') ? toks[j]!.text : escapeText(toks[j]!.text!);
    const next = toks[j];
    const closesItself = next?.close === true && next.name === name;
    if (value.trim() !== '' || closesItself || LEAVES.has(name) || (!AGGREGATES.has(name) && (lastClose.get(name) ?? -1) < i)) {
      out.push(`<${name}>${value.trim() === '' ? '' : value.trim()}</${name}>`);
      i = closesItself ? j : j - 1;
      continue;
    }
    // An aggregate: close an open one of its own kind, and what is open below where it belongs.
    const same = stack.findLastIndex((e) => e.name === name);
    if (same > 0) popTo(same);
    const parents = PARENTS[name];
    if (parents && !parents.includes(stack.at(-1)?.name ?? '')) {
      const parent = stack.findLastIndex((e) => parents.includes(e.name));
      if (parent >= 0) popTo(parent + 1);
    }
    if (stack.length === 0 && name !== 'OFX') continue; // after </OFX>: not part of the statement
    if (stack.length >= MAX_DEPTH) throw refuse({ line: line(t.at), element: name, found: `nesting ${MAX_DEPTH} elements deep`, expected: 'an OFX statement' });
    stack.push({ name, at: t.at });
    out.push(`<${name} L="${line(t.at)}">`);
    i = j - 1;
  }
  const open = stack.at(-1);
  if (open && stack.length > 1) {
    throw refuse({
      line: line(open.at),
      element: open.name,
      found: 'the end of the file inside it, with no </OFX>: it looks cut short',
      expected: 'the rest of the statement',
      fix: 'download it again',
    });
  }
  popTo(0);
  return out.join('');
}
