/**
 * Amounts as banks write them ("1.234,56", "-$12.00", "(5.00)", "12.50-", "USD 3.00") into
 * milliunits. The decimal separator is decided once for the whole file; the digits are then
 * converted by api/money.ts, by string, never by float arithmetic.
 */
import { decimalToMilliunits, MoneyInputError } from '../api/money.js';
import { refuse, shown } from './refusal.js';

export type DecimalSeparator = '.' | ',';

export interface Cell {
  text: string;
  line: number;
}

/** Signs, currency symbols and codes, and grouping spaces/apostrophes stripped; sign kept apart. */
function bare(text: string): { negative: boolean; body: string } {
  let t = text.trim().replace(/\u2212/g, '-');
  t = t.replace(/^[A-Z]{3}\s*|\s*[A-Z]{3}$/g, '').replace(/[$€£¥\s\u00a0\u202f']/g, '');
  let negative = false;
  const paren = /^\((.*)\)$/.exec(t);
  if (paren) {
    negative = true;
    t = paren[1]!;
  }
  if (t.endsWith('-')) {
    negative = !negative;
    t = t.slice(0, -1);
  }
  if (t.startsWith('-')) {
    negative = !negative;
    t = t.slice(1);
  } else if (t.startsWith('+')) t = t.slice(1);
  t = t.replace(/^[$€£¥]/, '');
  return { negative, body: t };
}

/** The separator this cell proves to be the decimal one, if any ("12,50" proves ','; "1,234" proves nothing). */
function evidence(text: string): DecimalSeparator | undefined {
  const { body } = bare(text);
  const last = Math.max(body.lastIndexOf('.'), body.lastIndexOf(','));
  if (last < 0) return undefined;
  const sep = body[last] as DecimalSeparator;
  const other = sep === '.' ? ',' : '.';
  const after = body.length - last - 1;
  if (body.slice(0, last).includes(other)) return sep; // both kinds: the last one is decimal
  if (after !== 3 || body.indexOf(sep) !== last) return after === 3 ? other : sep; // "1.234.567" groups
  return undefined;
}

/**
 * Decides the decimal separator from every amount cell of the file. A cell with one or two digits
 * after its separator, or with both separators, proves it; cells that prove opposite things are
 * refused with both lines named.
 */
export function decideDecimal(
  cells: readonly Cell[],
  fallback: { given?: DecimalSeparator; preset?: DecimalSeparator; delimiter: string },
): { separator: DecimalSeparator; decision?: string } {
  if (fallback.given) return { separator: fallback.given };
  const seen: Partial<Record<DecimalSeparator, Cell>> = {};
  for (const c of cells) {
    const e = evidence(c.text);
    if (e && !seen[e]) seen[e] = c;
    if (seen['.'] && seen[',']) {
      const dot = seen['.'];
      const comma = seen[','];
      throw refuse({
        line: dot.line,
        found: `amount ${shown(dot.text)} with '.' as its decimal separator, but line ${comma.line}: ${shown(comma.text)} with ','`,
        expected: 'one decimal separator in every amount of the file',
        fix: 'give columns.decimal_separator',
      });
    }
  }
  const proved = seen['.'] ? '.' : seen[','] ? ',' : undefined;
  if (proved) {
    const c = seen[proved]!;
    return { separator: proved, decision: `amounts read with '${proved}' as the decimal separator (line ${c.line}: "${c.text}")` };
  }
  const separator = fallback.preset ?? (fallback.delimiter === ';' ? ',' : '.');
  return { separator, decision: `no amount shows its decimal separator; read as '${separator}'` };
}

/** Milliunits of one amount cell, or undefined when the cell is blank. */
export function parseAmount(cell: Cell, separator: DecimalSeparator, what = 'amount'): number | undefined {
  if (cell.text.trim() === '') return undefined;
  const { negative, body } = bare(cell.text);
  const group = separator === '.' ? /,/g : /\./g;
  const plain = body.replace(group, '').replace(',', '.');
  try {
    const milli = decimalToMilliunits(plain);
    return negative && milli !== 0 ? -milli : milli;
  } catch (e) {
    if (!(e instanceof MoneyInputError)) throw e;
    throw refuse({ line: cell.line, found: `${what} ${shown(cell.text)}`, expected: `a number like -12${separator}34` });
  }
}

/** A decimal amount from a structured file (OFX, CAMT, QIF), where '.' is the separator by the format's rule. */
export function parseDecimal(text: string | undefined, line: number, what: string): number {
  const t = (text ?? '').trim();
  const sep: DecimalSeparator = /,\d{1,2}$/.test(t) && !t.includes('.') ? ',' : '.';
  const milli = t === '' ? undefined : parseAmount({ text: t, line }, sep, what);
  if (milli === undefined) throw refuse({ line, found: `no ${what}`, expected: 'a decimal amount' });
  return milli;
}
