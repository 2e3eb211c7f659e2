/** What the structured formats (OFX, QIF, CAMT) share: row limits before parsing, elements found by line. */
import { refuse, shown } from './refusal.js';
import { lineIndex } from './text.js';
import { STATEMENT_LIMITS } from './types.js';

/** A value the parser gives as one object or a list of them, as a list. */
export function list<T>(v: T | T[] | undefined | null): T[] {
  if (v === undefined || v === null || v === '') return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * The line of each opening of an element, in document order (the parsers keep that order, so the
 * n-th element parsed starts on the n-th line found). Refuses more than the row limit before the
 * file is parsed.
 */
export function elementLines(text: string, pattern: RegExp, what: string): number[] {
  const at = lineIndex(text);
  const lines: number[] = [];
  for (const m of text.matchAll(pattern)) {
    lines.push(at(m.index));
    if (lines.length > STATEMENT_LIMITS.rows) {
      throw refuse({
        line: at(m.index),
        found: `more than ${STATEMENT_LIMITS.rows} ${what}`,
        expected: `a statement of at most ${STATEMENT_LIMITS.rows} rows`,
        fix: 'split it by date',
      });
    }
  }
  return lines;
}

/** YYYYMMDD[HHMMSS…] (OFX) or YYYY-MM-DD[THH:MM…] (CAMT) as YYYY-MM-DD, checked to be a real day. */
export function isoDay(text: string | undefined, line: number, what: string): string {
  const m = /^\s*(\d{4})-?(\d{2})-?(\d{2})/.exec(text ?? '');
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const real = new Date(Date.UTC(y, mo - 1, d));
    if (real.getUTCFullYear() === y && real.getUTCMonth() === mo - 1 && real.getUTCDate() === d) return `${m[1]}-${m[2]}-${m[3]}`;
  }
  if (!text?.trim()) throw refuse({ line, found: `no ${what}, or an empty one`, expected: 'a date, YYYYMMDD or YYYY-MM-DD' });
  throw refuse({ line, element: what, found: shown(text), expected: 'a real day as YYYYMMDD or YYYY-MM-DD' });
}
