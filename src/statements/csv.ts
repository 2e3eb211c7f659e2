/**
 * A CSV bank export into statement rows: the delimiter, the header row (below any account lines),
 * the columns, the date order and the decimal separator are each decided from the file, or taken
 * from the columns given, and each decision is reported.
 */
import { type Cell, decideDecimal, type DecimalSeparator, parseAmount } from './amount.js';
import { type ColumnMap, findHeader, type HeaderFound, indexOf, specColumn } from './columns.js';
import { type CsvRecord, DELIMITERS, type Delimiter, readRecords } from './csv-records.js';
import { dataRecords, pendingTest, rowDate } from './csv-rows.js';
import { checkUnsigned, detectDirection, type Direction, directionSign, givenDirection, parseDirectionSpec } from './csv-sign.js';
import { decideDateFormat, parseDate, type ReadFormat } from './dates.js';
import { DAY_FIRST_HEADER, KIND_HEADERS } from './header-names.js';
import { optionalText } from './text.js';
import { refuse, shown } from './refusal.js';
import { type CsvColumns, type ParsedStatement, StatementError, type StatementRow } from './types.js';

const SNIFF_LINES = 25;

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

function noHeader(records: readonly CsvRecord[]): StatementError {
  const first = records[0];
  return refuse({
    line: first?.line ?? 1,
    found: first ? `no header row in the first ${SNIFF_LINES} lines (it reads ${shown(first.cells.join(' | '), 80)})` : 'an empty file',
    expected: 'cells naming the date, the payee or description, and the amount (or inflow/outflow, or debit/credit)',
    fix: 'give columns (header names or 1-based numbers)',
  });
}

/** An amount cell in milliunits; a refusal says which arguments read it otherwise. */
function amountCell(c: Cell, sep: DecimalSeparator, what?: string): number | undefined {
  try {
    return parseAmount(c, sep, what);
  } catch (e) {
    if (!(e instanceof StatementError)) throw e;
    const key = what === 'balance' || what === 'fee' || !what ? 'amount' : what;
    if (!e.parts) throw e;
    throw refuse({ ...e.parts, fix: `give columns.${key} if it is in another column, or columns.decimal_separator` });
  }
}

const cell = (r: CsvRecord, i: number | undefined): Cell | undefined => (i === undefined ? undefined : { text: r.cells[i] ?? '', line: r.line });

function amountCells(r: CsvRecord, m: ColumnMap): Cell[] {
  return [m.amount, m.inflow, m.outflow, m.debit, m.credit, m.balance].flatMap((i) => {
    const c = cell(r, i);
    return c && c.text.trim() !== '' ? [c] : [];
  });
}

/** How the rows of this file are read, once decided for the whole file. */
interface Reading {
  m: ColumnMap;
  format: ReadFormat;
  sep: DecimalSeparator;
  outflowPositive: boolean;
  direction?: Direction | undefined;
  /** A layout's fee column, taken off the amount. */
  fee?: number | undefined;
  /** The column naming the bank's kind of row (KIND_HEADERS), where no other reading takes it. */
  kind?: number | undefined;
  pending: (status: string) => boolean;
}

/** YNAB's sign from whichever columns the file writes amounts in. */
function amountOf(r: CsvRecord, k: Reading): number {
  const { m, sep } = k;
  if (m.amount !== undefined) {
    const v = amountCell(cell(r, m.amount)!, sep);
    if (v === undefined) {
      // An opening or closing balance line (Bank of America's "Beginning balance"): no money moves.
      if ((cell(r, m.balance)?.text.trim() ?? '') !== '') return 0;
      throw refuse({ line: r.line, found: 'a blank amount', expected: 'a number', fix: 'give columns.amount if the amount is in another column' });
    }
    const way = k.direction ? directionSign(k.direction, r) : undefined;
    const signed = way !== undefined ? way * Math.abs(v) : k.outflowPositive ? -v : v;
    const fee = k.fee === undefined ? undefined : amountCell(cell(r, k.fee)!, sep, 'fee');
    return fee ? signed - Math.abs(fee) : signed;
  }
  const [inI, outI, inName, outName] =
    m.inflow !== undefined || m.outflow !== undefined ? [m.inflow, m.outflow, 'inflow', 'outflow'] : [m.credit, m.debit, 'credit', 'debit'];
  const inflow = inI === undefined ? undefined : amountCell(cell(r, inI)!, sep, inName);
  const outflow = outI === undefined ? undefined : amountCell(cell(r, outI)!, sep, outName);
  if (inflow === undefined && outflow === undefined) {
    if ((cell(r, m.balance)?.text.trim() ?? '') !== '') return 0;
    throw refuse({
      line: r.line,
      found: `both ${outName} and ${inName} blank`,
      expected: 'an amount in one of them',
      fix: 'give columns.inflow and columns.outflow (or columns.amount) if the amounts are elsewhere',
    });
  }
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

/**
 * The sign of a single amount column: a direction column given or found, else `columns.amount_sign`
 * or the layout's; `unsigned` when nothing says it (the amounts are then checked, checkUnsigned).
 */
function decideSign(found: HeaderFound, data: CsvRecord[], columns: CsvColumns | undefined, decisions: string[]) {
  const { map: m, preset } = found;
  if (m.amount === undefined) return { outflowPositive: false, unsigned: false };
  let direction: Direction | undefined;
  if (columns?.direction !== undefined) {
    const spec = parseDirectionSpec(columns.direction);
    direction = givenDirection(m.direction!, specColumn(columns.direction), spec, data);
  } else if (columns?.amount_sign === undefined && preset?.columns.amount_sign === undefined) {
    const taken = new Set((Object.entries(m) as [string, number][]).filter(([f]) => f !== 'direction').map(([, i]) => i));
    const signed = data.some((r) => /^\s*[-\u2212(]|-\s*$/.test(r.cells[m.amount!] ?? ''));
    direction = detectDirection(found.header, data, taken, signed);
  }
  if (direction) {
    const seen = (way: -1 | 1) => [...new Set(data.filter((r) => directionSign(direction, r) === way).map((r) => r.cells[direction.column]!.trim()))];
    decisions.push(`amounts signed by ${direction.named}: ${seen(-1).join(', ') || 'none'} money out, ${seen(1).join(', ') || 'none'} money in`);
    return { outflowPositive: false, direction, unsigned: false };
  }
  const sign = columns?.amount_sign ?? (columns?.amount !== undefined ? undefined : preset?.columns.amount_sign);
  if (sign === undefined) return { outflowPositive: false, unsigned: true };
  decisions.push(
    sign === 'outflow-positive'
      ? 'amounts read as charges positive: a positive amount is money out'
      : "amounts read as signed: negative is money out (give columns.amount_sign 'outflow-positive' if charges are positive)",
  );
  return { outflowPositive: sign === 'outflow-positive', unsigned: false };
}

export function parseCsv(content: string, columns?: CsvColumns): ParsedStatement {
  const decisions: string[] = [];
  const chosen = chooseDelimiter(content, columns);
  const records = readRecords(content, chosen.delimiter);
  const found = findHeader(records, columns, true);
  if (!found) throw noHeader(records);
  const { map, preset } = found;
  if (chosen.delimiter !== ',') decisions.push(`cells separated by ${chosen.delimiter === ';' ? "';'" : 'tabs'}`);
  if (preset && !columns) decisions.push(`read as preset ${preset.name} (${preset.description})`);
  if (found.index > 0) decisions.push(`header on line ${records[found.index]!.line}; the ${found.index} line(s) above it skipped`);
  const data = dataRecords(records, found, decisions);

  const dayFirst = found.header.find((h) => DAY_FIRST_HEADER.test(h));
  const dates = decideDateFormat(
    data.flatMap((r) => rowDate(r, map).cell ?? []),
    columns?.date_format,
    preset?.columns.date_format,
    dayFirst ? `the header is in a language written day-first ("${dayFirst}")` : undefined,
  );
  if (dates.decision) decisions.push(dates.decision);
  const dec = decideDecimal(
    data.flatMap((r) => amountCells(r, map)),
    { given: columns?.decimal_separator, preset: preset?.columns.decimal_separator, delimiter: chosen.delimiter },
  );
  if (dec.decision && data.length > 0) decisions.push(dec.decision);
  const sign = decideSign(found, data, columns, decisions);
  const fee = preset?.fee === undefined ? -1 : indexOf(found.header, preset.fee);
  const reading: Reading = {
    m: map,
    format: dates.format,
    sep: dec.separator,
    ...sign,
    fee: fee >= 0 ? fee : undefined,
    kind: kindColumn(found, sign.direction?.column),
    pending: pendingTest(columns),
  };
  const rows = datePending(
    data.map((r) => toRow(r, reading)),
    decisions,
  );
  const balances = data.map((r) => cell(r, map.balance));
  if (sign.unsigned) {
    const money = rows.map((r, i) => ({ ...r, balance: balances[i]?.text.trim() ? parseAmount(balances[i], dec.separator, 'balance') : undefined }));
    decisions.push(
      checkUnsigned(
        found.header,
        money.filter((r) => !r.pending),
      ) ?? "amounts read as signed: negative is money out (give columns.amount_sign 'outflow-positive' if charges are positive)",
    );
  }
  const balance = closingBalance(rows, balances, dec.separator);
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

/** The column of the bank's kind of row: a KIND_HEADERS cell that no field and no sign reads. */
function kindColumn(found: HeaderFound, direction: number | undefined): number | undefined {
  const read = new Set([...Object.values(found.map), direction]);
  const i = found.header.findIndex((h, k) => KIND_HEADERS.includes(h) && !read.has(k));
  return i >= 0 ? i : undefined;
}

/** Pending rows without any date (comdirect's "offen"): shown with the file's latest date; they are not imported. */
function datePending(rows: StatementRow[], decisions: string[]): StatementRow[] {
  const undated = rows.filter((r) => r.date === '');
  if (undated.length === 0) return rows;
  const latest = rows.reduce((d, r) => (r.date > d ? r.date : d), '');
  if (latest === '')
    throw refuse({ line: undated[0]!.line, found: 'no row with a date', expected: 'a date on at least one booked row', fix: 'give columns.date' });
  for (const r of undated) r.date = latest;
  decisions.push(`line(s) ${undated.map((r) => r.line).join(', ')}: pending without a date, shown as of ${latest} (not imported)`);
  return rows;
}

function toRow(r: CsvRecord, k: Reading): StatementRow {
  const { m } = k;
  const when = rowDate(r, m);
  const amount = amountOf(r, k);
  // Exports that name payer and payee apart: money in comes from the payer.
  const payer = amount > 0 ? optionalText(cell(r, m.payer)?.text) : undefined;
  const payee = payer ?? optionalText(r.cells[m.payee]);
  const memo = optionalText(cell(r, m.memo)?.text);
  const status = optionalText(cell(r, m.status)?.text);
  const bankId = optionalText(cell(r, m.reference)?.text);
  const kind = optionalText(cell(r, k.kind)?.text);
  return {
    line: r.line,
    date: when.cell ? parseDate(when.cell, k.format) : '',
    amount,
    payee: payee ?? memo ?? '',
    ...(memo !== undefined ? { memo } : {}),
    ...(when.unbooked || (status !== undefined && k.pending(status)) ? { pending: true } : {}),
    ...(bankId !== undefined ? { bank_id: bankId } : {}),
    ...(kind !== undefined ? { kind } : {}),
  };
}
