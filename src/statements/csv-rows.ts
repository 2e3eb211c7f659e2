/**
 * The data records of a CSV export below its header, as exports write them: a header ending in
 * a delimiter, rows narrower than the header where the columns read are all there, a headerless
 * file as wide as it is, summary lines after the last row; and which rows are pending (a status
 * column's value, or a blank booking date beside the date the row was made).
 */
import type { ColumnMap, HeaderFound } from './columns.js';
import type { CsvRecord } from './csv-records.js';
import { shapeOf } from './dates.js';
import { refuse, shown } from './refusal.js';
import { type CsvColumns, STATEMENT_LIMITS } from './types.js';

/** Status values of rows not booked yet (or never: declined, reverted), in the languages of the aliases. */
const PENDING =
  /pend|vorgemerkt|ausstehend|attente|en cours|behandeling|afwachting|not booked|authori[sz]|reserv|uncleared|unposted|pendiente|declin|revert|fail/i;
/** A status is a word or two: a longer cell is text ("Authorisation code 1234 ..."), not a status. */
const STATUS_MAX = 30;
/** A booking date cell that says the row is not booked (comdirect writes "offen"). */
const OPEN_DATE = /^(?:offen|pending|--)?$/i;

/** Summary lines an export writes after its rows ("Kontostand;31.01.2024;;;1.234,56"): at most this many. */
const FOOTER_MAX = 5;

const text = (r: CsvRecord, i: number | undefined) => (i === undefined ? '' : (r.cells[i] ?? '').trim());

/** Whether a record's date cells hold a date (or the blank/open booking date of a pending row). */
function dated(r: CsvRecord, m: ColumnMap): boolean {
  const d = text(r, m.date);
  if (shapeOf(d)) return true;
  return OPEN_DATE.test(d) && (m.txdate === undefined || text(r, m.txdate) === '' || shapeOf(text(r, m.txdate)) !== undefined);
}

/**
 * A summary line: no date where the date goes, and no amount where amounts go (or too few cells
 * to hold them). A row with an amount and a broken date is not one: it is refused.
 */
function summary(r: CsvRecord, m: ColumnMap, needed: number): boolean {
  if (dated(r, m)) return false;
  if (r.cells.length < needed) return true;
  return [m.amount, m.inflow, m.outflow, m.debit, m.credit].every((i) => !/\d/.test(text(r, i)));
}

/** The data records after the header; summary lines after the last dated row are left out, each named in `decisions`. */
export function dataRecords(records: readonly CsvRecord[], found: HeaderFound, decisions: string[]): CsvRecord[] {
  const header = found.index >= 0 ? records[found.index]! : undefined;
  const named = header ? header.cells.map((c) => c.trim() !== '') : [];
  const width = named.lastIndexOf(true) + 1;
  const needed = Math.max(...Object.values(found.map)) + 1;
  let rows = records.slice(found.index + 1).filter((r) => !r.cells.every((c) => c.trim() === ''));
  let footer = 0;
  while (footer < FOOTER_MAX && rows.length > footer && summary(rows[rows.length - 1 - footer]!, found.map, needed)) footer++;
  if (footer > 0 && footer < rows.length) {
    const cut = rows.slice(rows.length - footer);
    rows = rows.slice(0, rows.length - footer);
    decisions.push(
      `line(s) ${cut.map((r) => r.line).join(', ')} after the last row skipped: no date in the date column (a summary, e.g. "${cut[0]!.cells.join(' ').trim().slice(0, 40)}")`,
    );
  }
  for (const r of rows) {
    if (r.cells.length < needed) {
      const against = header ? `the header on line ${header.line} has ${width} and column ${needed} is read` : `column ${needed} is read`;
      throw refuse({
        line: r.line,
        found: `${r.cells.length} cells`,
        expected: `at least ${needed}: ${against}`,
        fix: 'give columns (header names or 1-based numbers) if the columns are elsewhere',
      });
    }
    // Cells under the header's own blank cells are fine (a sign column without a name: S or H).
    if (header && r.cells.slice(Math.max(header.cells.length, needed)).some((c) => c.trim() !== '')) {
      throw refuse({
        line: r.line,
        found: `${r.cells.length} cells (a cell holding the delimiter without quotes?)`,
        expected: `${width}, as the header on line ${header.line} names`,
        fix: 'fix the line, or give columns by 1-based number',
      });
    }
  }
  if (rows.length > STATEMENT_LIMITS.rows) {
    throw refuse({
      line: rows[STATEMENT_LIMITS.rows]!.line,
      found: `more than ${STATEMENT_LIMITS.rows} rows`,
      expected: `at most ${STATEMENT_LIMITS.rows} rows in a statement`,
      fix: 'split it by date',
    });
  }
  return rows;
}

/** How a row is known to be pending: `columns.status` "column:values", else the status words above. */
export function pendingTest(columns: CsvColumns | undefined): (status: string) => boolean {
  const colon = columns?.status?.lastIndexOf(':') ?? -1;
  if (colon < 0) return (s) => s.length <= STATUS_MAX && PENDING.test(s);
  const values = columns!
    .status!.slice(colon + 1)
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
  if (!values.length) {
    throw refuse({
      element: 'columns.status',
      found: shown(columns!.status),
      expected: '"column" or "column:pending values"',
      fix: 'give columns.status e.g. "State:PENDING"',
    });
  }
  return (s) => values.some((v) => s.toLowerCase().includes(v));
}

/**
 * The date cell a row is dated by: its booking date, or, where that is blank or "offen", the date
 * it was made (the row is then pending); undefined when it has neither.
 */
export function rowDate(r: CsvRecord, m: ColumnMap): { cell?: { text: string; line: number }; unbooked: boolean } {
  const booked = text(r, m.date);
  if (!OPEN_DATE.test(booked)) return { cell: { text: r.cells[m.date]!, line: r.line }, unbooked: false };
  const made = text(r, m.txdate);
  if (m.txdate !== undefined && made !== '' && shapeOf(made)) return { cell: { text: made, line: r.line }, unbooked: true };
  if (booked === '') throw refuse({ line: r.line, found: 'a blank date', expected: 'a date', fix: 'give columns.date if it is in another column' });
  return { unbooked: true };
}
