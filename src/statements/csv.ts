/**
 * A CSV bank export into statement rows: the delimiter, the header row (below any account lines),
 * the columns, the date order and the decimal separator are each decided from the file, or taken
 * from the columns given, and each decision is reported.
 */
import { type Cell, decideDecimal, type DecimalSeparator, parseAmount } from './amount.js';
import { type ColumnMap, findHeader, type HeaderFound } from './columns.js';
import { type CsvRecord, DELIMITERS, type Delimiter, readRecords } from './csv-records.js';
import { decideDateFormat, parseDate, type ReadFormat } from './dates.js';
import { optionalText } from './text.js';
import { type CsvColumns, type ParsedStatement, STATEMENT_LIMITS, StatementError, type StatementRow } from './types.js';

const SNIFF_LINES = 25;
const PENDING = /pend|vorgemerkt|attente|behandeling|not booked|authori[sz]/i;

/** The delimiter under which the first lines hold a header (or, headerless, the widest first row). */
function chooseDelimiter(content: string, columns: CsvColumns | undefined): { delimiter: Delimiter; found?: HeaderFound } {
  let widest: { delimiter: Delimiter; width: number } = { delimiter: ',', width: 0 };
  let refused: unknown;
  for (const delimiter of DELIMITERS) {
    let head: CsvRecord[];
    try {
      head = readRecords(content, delimiter, SNIFF_LINES);
    } catch (e) {
      refused ??= e;
      continue;
    }
    const found = findHeader(head, columns);
    if (found && found.index >= 0) return { delimiter, found };
    const width = head[0]?.cells.length ?? 0;
    if (width > widest.width) widest = { delimiter, width };
  }
  // No delimiter shows a header: what stopped the first one tried (malformed, too wide) says most.
  if (refused && !columns) throw refused;
  return { delimiter: widest.delimiter };
}

function noHeader(): StatementError {
  return new StatementError(
    `no header row in the first ${SNIFF_LINES} lines: expected cells naming the date, the payee or description, and the amount ` +
      `(or inflow/outflow, or debit/credit); give columns (header names or 1-based numbers)`,
  );
}

/** The data records after the header, each as wide as the header (wider only by blank cells). */
function dataRecords(records: CsvRecord[], found: HeaderFound): CsvRecord[] {
  const header = found.index >= 0 ? records[found.index]! : undefined;
  const width = header ? header.cells.length : Math.max(...Object.values(found.map)) + 1;
  const out: CsvRecord[] = [];
  for (const r of records.slice(found.index + 1)) {
    if (r.cells.every((c) => c.trim() === '')) continue;
    if (r.cells.length < width) {
      const against = header ? `the header on line ${header.line} has ${width}` : `column ${width} is read`;
      throw new StatementError(`line ${r.line} has ${r.cells.length} cells, but ${against}`);
    }
    if (r.cells.slice(width).some((c) => c.trim() !== '')) {
      throw new StatementError(`line ${r.line} has ${r.cells.length} cells, but the header${header ? ` on line ${header.line}` : ''} has ${width}`);
    }
    out.push(r);
    if (out.length > STATEMENT_LIMITS.rows) {
      throw new StatementError(`line ${r.line}: more than ${STATEMENT_LIMITS.rows} rows; a statement may hold at most ${STATEMENT_LIMITS.rows}`);
    }
  }
  return out;
}

const cell = (r: CsvRecord, i: number | undefined): Cell | undefined => (i === undefined ? undefined : { text: r.cells[i] ?? '', line: r.line });

function amountCells(r: CsvRecord, m: ColumnMap): Cell[] {
  return [m.amount, m.inflow, m.outflow, m.debit, m.credit, m.balance].flatMap((i) => {
    const c = cell(r, i);
    return c && c.text.trim() !== '' ? [c] : [];
  });
}

/** YNAB's sign from whichever columns the file writes amounts in. */
function amountOf(r: CsvRecord, m: ColumnMap, sep: DecimalSeparator, outflowPositive: boolean): number {
  if (m.amount !== undefined) {
    const v = parseAmount(cell(r, m.amount)!, sep);
    if (v === undefined) throw new StatementError(`line ${r.line}: the amount is blank`);
    return outflowPositive ? -v : v;
  }
  const [inI, outI, inName, outName] =
    m.inflow !== undefined || m.outflow !== undefined ? [m.inflow, m.outflow, 'inflow', 'outflow'] : [m.credit, m.debit, 'credit', 'debit'];
  const inflow = inI === undefined ? undefined : parseAmount(cell(r, inI)!, sep, inName);
  const outflow = outI === undefined ? undefined : parseAmount(cell(r, outI)!, sep, outName);
  if (inflow === undefined && outflow === undefined) throw new StatementError(`line ${r.line}: both ${outName} and ${inName} are blank`);
  // Banks write both as positive numbers; some sign the debit: the column, not the sign, says which way.
  return Math.abs(inflow ?? 0) - Math.abs(outflow ?? 0);
}

/** The running balance of the latest booked row: the last in a file oldest-first, the first in one newest-first. */
function closingBalance(
  rows: StatementRow[],
  balances: (Cell | undefined)[],
  sep: DecimalSeparator,
): { amount: number; date: string; line: number } | undefined {
  const booked = rows.map((row, i) => ({ row, b: balances[i] })).filter((x) => !x.row.pending && x.b && x.b.text.trim() !== '');
  if (booked.length === 0) return undefined;
  const newestFirst = booked[0]!.row.date > booked[booked.length - 1]!.row.date;
  const latest = newestFirst ? booked[0]! : booked[booked.length - 1]!;
  return { amount: parseAmount(latest.b!, sep, 'balance')!, date: latest.row.date, line: latest.row.line };
}

export function parseCsv(content: string, columns?: CsvColumns): ParsedStatement {
  const decisions: string[] = [];
  const chosen = chooseDelimiter(content, columns);
  const records = readRecords(content, chosen.delimiter);
  const found = findHeader(records, columns);
  if (!found) throw noHeader();
  const { map, preset } = found;
  if (chosen.delimiter !== ',') decisions.push(`cells separated by ${chosen.delimiter === ';' ? "';'" : 'tabs'}`);
  if (preset && !columns) decisions.push(`read as preset ${preset.name} (${preset.description})`);
  if (found.index > 0) decisions.push(`header on line ${records[found.index]!.line}; the ${found.index} line(s) above it skipped`);
  const data = dataRecords(records, found);

  const dates = decideDateFormat(
    data.map((r) => cell(r, map.date)!),
    columns?.date_format,
    preset?.columns.date_format,
  );
  if (dates.decision) decisions.push(dates.decision);
  const dec = decideDecimal(
    data.flatMap((r) => amountCells(r, map)),
    { given: columns?.decimal_separator, preset: preset?.columns.decimal_separator, delimiter: chosen.delimiter },
  );
  if (dec.decision && data.length > 0) decisions.push(dec.decision);
  const sign = columns?.amount_sign ?? (columns?.amount !== undefined ? undefined : preset?.columns.amount_sign);
  const outflowPositive = sign === 'outflow-positive';
  if (map.amount !== undefined) {
    decisions.push(
      outflowPositive
        ? 'amounts read as charges positive: a positive amount is money out'
        : "amounts read as signed: negative is money out (give columns.amount_sign 'outflow-positive' if charges are positive)",
    );
  }
  const rows = data.map((r) => toRow(r, map, dates.format, dec.separator, outflowPositive));
  const balance = closingBalance(
    rows,
    data.map((r) => cell(r, map.balance)),
    dec.separator,
  );
  if (balance) decisions.push(`statement balance from the balance column of line ${balance.line} (the latest booked row)`);
  const currencies = new Set(data.map((r) => optionalText(cell(r, map.currency)?.text)).filter((c) => c !== undefined));
  return {
    format: 'csv',
    preset: columns ? 'columns' : (preset?.name ?? 'detected'),
    rows,
    ...(balance ? { balance: { amount: balance.amount, date: balance.date } } : {}),
    ...(currencies.size === 1 ? { currency: [...currencies][0]! } : {}),
    decisions,
  };
}

function toRow(r: CsvRecord, m: ColumnMap, format: ReadFormat, sep: DecimalSeparator, outflowPositive: boolean): StatementRow {
  const payee = optionalText(r.cells[m.payee]);
  const memo = optionalText(cell(r, m.memo)?.text);
  const status = optionalText(cell(r, m.status)?.text);
  const bankId = optionalText(cell(r, m.reference)?.text);
  return {
    line: r.line,
    date: parseDate(cell(r, m.date)!, format),
    amount: amountOf(r, m, sep, outflowPositive),
    payee: payee ?? memo ?? '',
    ...(memo !== undefined ? { memo } : {}),
    ...(status !== undefined && PENDING.test(status) ? { pending: true } : {}),
    ...(bankId !== undefined ? { bank_id: bankId } : {}),
  };
}
