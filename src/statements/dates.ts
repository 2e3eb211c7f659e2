/**
 * Dates as banks write them, into YYYY-MM-DD. The order of day and month is decided from the whole
 * file, never from one row: a first number above 12 proves day-first, a second above 12 proves
 * month-first, and a file that proves neither is refused with the question to ask.
 */
import type { Cell } from './amount.js';
import { refuse, shown } from './refusal.js';
import { type DateFormat, StatementError } from './types.js';

/** A time of day after the date ("2024-03-04T10:00:00", "03/04/2024 10:00 AM") is not part of it. */
function dayPart(text: string): string {
  // A Hungarian date ends in a dot: "2024.01.15.".
  return text
    .trim()
    .replace(/(?:T|\s+)\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[AP]M)?(?:Z|[+-]\d{2}:?\d{2})?$/i, '')
    .replace(/^(\d{4}\.\d{1,2}\.\d{1,2})\.$/, '$1');
}

const ISO = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/;
const COMPACT = /^(\d{4})(\d{2})(\d{2})$/;
const PAIR = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{2}|\d{4})$/;
const NAMED = /^(\d{1,2})[\s-]([A-Za-z]{3})[A-Za-z]*\.?[\s-](\d{2}|\d{4})$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** What the reader decided: a format the caller may name, or the named-month form ("03 Apr 2024"). */
export type ReadFormat = DateFormat | 'DD MMM YYYY';

function ymd(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1) return undefined;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d > days) return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function year(text: string): number {
  // Two-digit years are this century: statements are of recent months.
  return text.length === 2 ? 2000 + Number(text) : Number(text);
}

/** The date of a cell in a decided format, or a StatementError naming the line and the format. */
export function parseDate(cell: Cell, format: ReadFormat): string {
  const t = dayPart(cell.text);
  let out: string | undefined;
  if (format === 'YYYY-MM-DD') {
    const m = ISO.exec(t);
    out = m ? ymd(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
  } else if (format === 'YYYYMMDD') {
    const m = COMPACT.exec(t);
    out = m ? ymd(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
  } else if (format === 'DD MMM YYYY') {
    const m = NAMED.exec(t);
    const month = m ? MONTHS.indexOf(m[2]!.toLowerCase()) + 1 : 0;
    out = m ? ymd(year(m[3]!), month, Number(m[1])) : undefined;
  } else {
    const m = PAIR.exec(t);
    const [a, b] = m ? [Number(m[1]), Number(m[3])] : [0, 0];
    out = m ? (format === 'MM/DD/YYYY' ? ymd(year(m[4]!), a, b) : ymd(year(m[4]!), b, a)) : undefined;
  }
  if (!out) {
    throw refuse({
      line: cell.line,
      found: `date ${shown(cell.text)}`,
      expected: `a real day written ${format}`,
      fix: 'give columns.date_format if the file writes its dates otherwise',
    });
  }
  return out;
}

type Shape = 'iso' | 'compact' | 'pair' | 'named';

/** How a cell writes its date, or undefined when it is not a date. */
export function shapeOf(text: string): Shape | undefined {
  const t = dayPart(text);
  if (ISO.test(t)) return 'iso';
  if (COMPACT.test(t)) return 'compact';
  if (PAIR.test(t)) return 'pair';
  if (NAMED.test(t)) return 'named';
  return undefined;
}

/** Day-first or month-first for dates like 03/04/2024, from every date of the file. */
function decidePair(cells: readonly Cell[], preset: DateFormat | undefined, dayFirstWhy?: string): { format: DateFormat; decision: string } {
  let dayFirst: Cell | undefined;
  let monthFirst: Cell | undefined;
  let ambiguous: Cell | undefined;
  for (const c of cells) {
    const m = PAIR.exec(dayPart(c.text))!;
    const [a, b] = [Number(m[1]), Number(m[3])];
    // Neither number a month: no order reads it as a date.
    if (a > 12 && b > 12) {
      throw refuse({
        line: c.line,
        found: `date ${shown(c.text)}, with neither ${a} nor ${b} a month`,
        expected: 'a day and a month of 1–12, day-first or month-first',
        fix: 'give columns.date_format if the file writes its dates otherwise',
      });
    }
    if (a > 12 && !dayFirst) dayFirst = c;
    if (b > 12 && !monthFirst) monthFirst = c;
    if (a !== b && a <= 12 && b <= 12) ambiguous ??= c;
  }
  if (dayFirst && monthFirst) {
    throw refuse({
      line: dayFirst.line,
      found: `date ${shown(dayFirst.text)} day-first, but line ${monthFirst.line}: ${shown(monthFirst.text)} month-first`,
      expected: 'every date of the file in one order',
      fix: 'give columns.date_format',
    });
  }
  const dotted = cells.length > 0 && PAIR.exec(dayPart(cells[0]!.text))![2] === '.';
  const dayFirstFormat: DateFormat = dotted ? 'DD.MM.YYYY' : 'DD/MM/YYYY';
  if (dayFirst)
    return {
      format: dayFirstFormat,
      decision: `dates read as ${dayFirstFormat}: line ${dayFirst.line} "${dayFirst.text}" cannot have ${dayPart(dayFirst.text).slice(0, 2)} as a month`,
    };
  if (monthFirst)
    return {
      format: 'MM/DD/YYYY',
      decision: `dates read as MM/DD/YYYY: line ${monthFirst.line} "${monthFirst.text}" cannot have its second number as a month`,
    };
  if (!ambiguous) return { format: preset ?? dayFirstFormat, decision: 'every date has the same day and month number: either order reads the same' };
  if (preset) return { format: preset, decision: `dates read as ${preset}, as the preset writes them (no date in the file decides it)` };
  if (dotted) return { format: 'DD.MM.YYYY', decision: 'dates with dots read as DD.MM.YYYY (the order every bank writing dots uses)' };
  if (dayFirstWhy) return { format: 'DD/MM/YYYY', decision: `dates read as DD/MM/YYYY: ${dayFirstWhy} (no date in the file decides it)` };
  const [a, b] = PAIR.exec(dayPart(ambiguous.text))!
    .slice(1, 4)
    .filter((_, i) => i !== 1)
    .map(Number) as [number, number];
  const month = (n: number) => new Date(Date.UTC(2000, n - 1, 1)).toLocaleString('en', { month: 'long', timeZone: 'UTC' });
  throw refuse({
    line: ambiguous.line,
    found: `"${ambiguous.text}", day-first (${a} ${month(b)}) or month-first (${month(a)} ${b}), and no date in the file with a day above 12 to decide it`,
    expected: 'dates whose order the file shows',
    fix: "give columns.date_format: 'DD/MM/YYYY' or 'MM/DD/YYYY'",
  });
}

/**
 * The one format every date cell of the file is read in: the given one, else the shape all cells
 * share (mixed shapes are refused, naming the first odd line), else the preset's, else day-first
 * where the header's language says so.
 */
export function decideDateFormat(
  cells: readonly Cell[],
  given: DateFormat | undefined,
  preset: DateFormat | undefined,
  /** Why the file writes its day first where no date says (its header's language), if it does. */
  dayFirst?: string,
): { format: ReadFormat; decision?: string } {
  if (given) return { format: given };
  const first = cells[0];
  if (!first) return { format: preset ?? 'YYYY-MM-DD' };
  const shape = shapeOf(first.text);
  if (!shape) {
    throw refuse({
      line: first.line,
      found: shown(first.text),
      expected: 'a date, e.g. 2024-03-14, 03/14/2024, 14.03.2024',
      fix: 'give columns.date if the dates are in another column',
    });
  }
  for (const c of cells) {
    if (shapeOf(c.text) !== shape) {
      throw refuse({
        line: c.line,
        found: `date ${shown(c.text)}, written unlike line ${first.line}'s ${shown(first.text)}`,
        expected: 'every date of the file written one way',
        fix: 'give columns.date_format',
      });
    }
  }
  if (shape === 'iso') return { format: 'YYYY-MM-DD' };
  if (shape === 'compact') return { format: 'YYYYMMDD' };
  if (shape === 'named') return { format: 'DD MMM YYYY' };
  return decidePair(cells, preset, dayFirst);
}
