/**
 * QIF (Quicken Interchange Format) bank, cash, card, asset and liability accounts, by qif-ts, one
 * statement per account of the file (qif-sections.ts cuts it at its `!Account` and `!Type:`
 * headers). qif-ts reads each amount with parseFloat, which takes "1,234.56" as 1: the amount's
 * digits are taken from the record's own T (or U) line instead, and converted exactly.
 */
import { deserializeQif, type QifTransaction } from 'qif-ts';
import { type DecimalSeparator, decideDecimal, parseAmount } from './amount.js';
import { decideDateFormat, parseDate } from './dates.js';
import { IGNORED_DETAIL, qifSections, type QifAccount, type QifLine } from './qif-sections.js';
import { optionalText } from './text.js';
import { refuse, shown } from './refusal.js';
import { type CsvColumns, type ParsedStatement, STATEMENT_LIMITS, type StatementRow } from './types.js';

interface RecordText {
  line: number;
  amount?: string;
}

/** Where each record starts and its T line, found the way qif-ts splits records: lines up to a "^", a record only when it has lines. */
function recordTexts(lines: readonly QifLine[], counted: { n: number }): RecordText[] {
  const out: RecordText[] = [];
  let current: RecordText | undefined;
  for (const l of lines) {
    if (l.text.startsWith('^')) {
      if (current) out.push(current);
      current = undefined;
      if (++counted.n > STATEMENT_LIMITS.rows)
        throw refuse({
          line: l.no,
          found: `more than ${STATEMENT_LIMITS.rows} records`,
          expected: `at most ${STATEMENT_LIMITS.rows} rows in a statement`,
          fix: 'split it by date',
        });
      continue;
    }
    current ??= { line: l.no };
    if (l.text[0] === 'T' || l.text[0] === 'U') current.amount ??= l.text.slice(1);
  }
  if (current) out.push(current);
  return out;
}

function deserialize(a: QifAccount): QifTransaction[] {
  const kept = a.lines.filter((l) => !IGNORED_DETAIL.test(l.text)).map((l) => l.text);
  // A last record with no "^" after it is still a record (qif-ts would drop it).
  if (kept.length && !kept.at(-1)!.startsWith('^')) kept.push('^');
  try {
    return deserializeQif([a.header, ...kept].join('\n')).transactions;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const bad = /line: (.*)$/.exec(message)?.[1];
    const at = a.lines.find((l) => l.text === bad)?.no ?? a.line;
    throw refuse({
      line: at,
      found: bad === undefined ? `a malformed QIF (${message})` : `the detail line ${shown(bad)}`,
      expected: "D (date), T (amount), P (payee), M (memo), N, C, A, L, or a split's S, E, $",
    });
  }
}

interface Read {
  account: QifAccount;
  records: RecordText[];
  transactions: QifTransaction[];
}

function rowsOf(
  r: Read,
  dateCells: Map<QifTransaction, { text: string; line: number }>,
  format: ReturnType<typeof decideDateFormat>['format'],
  separator: DecimalSeparator,
): StatementRow[] {
  return r.transactions.map((t, i) => {
    const rec = r.records[i]!;
    const amount = rec.amount === undefined ? undefined : parseAmount({ text: rec.amount, line: rec.line }, separator, 'T (amount)');
    if (amount === undefined) throw refuse({ line: rec.line, found: 'a record with no T (amount) line', expected: 'a T line, e.g. T-12.34' });
    const memo = optionalText(t.memo);
    return {
      line: rec.line,
      date: parseDate(dateCells.get(t)!, format),
      amount,
      payee: optionalText(t.payee) ?? memo ?? '',
      ...(memo !== undefined ? { memo } : {}),
    };
  });
}

/** Each bank, cash, card, asset or liability account's records, dates read in one order decided from the whole file. */
export function readQif(text: string, columns?: CsvColumns): ParsedStatement[] {
  const clean = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const file = qifSections(clean);
  const counted = { n: 0 };
  const read: Read[] = file.accounts.map((account) => {
    const records = recordTexts(account.lines, counted);
    const transactions = deserialize(account);
    if (records.length !== transactions.length)
      throw refuse({
        line: account.line,
        found: `${transactions.length} records in the section but ${records.length} blocks ending in ^`,
        expected: 'one record per block ending in ^',
      });
    return { account, records, transactions };
  });
  const dateCells = new Map<QifTransaction, { text: string; line: number }>();
  for (const r of read) {
    r.transactions.forEach((t, i) => {
      const line = r.records[i]!.line;
      if (!t.date) throw refuse({ line, found: 'a record with no D (date) line', expected: 'a D line, e.g. D03/14/2024' });
      // Quicken writes years after an apostrophe ("3/14'24"): the same date as 3/14/24.
      dateCells.set(t, { text: t.date.replace(/'\s*/, '/').replace(/\s+/g, ''), line });
    });
  }
  const dates = decideDateFormat([...dateCells.values()], columns?.date_format, file.dateOrder);
  // Quicken in a comma-decimal locale writes "T-1.234,56": the separator is decided from every amount of the file.
  const amounts = read.flatMap((r) => r.records.flatMap((rec) => (rec.amount === undefined ? [] : [{ text: rec.amount, line: rec.line }])));
  const decimal = decideDecimal(amounts, { ...(columns?.decimal_separator ? { given: columns.decimal_separator } : {}), preset: '.', delimiter: '' });
  return read.map((r) => {
    const rows = rowsOf(r, dateCells, dates.format, decimal.separator);
    const { name, type, line } = r.account;
    return {
      format: 'qif',
      rows,
      account: { ...(name ? { name } : {}), type, line },
      decisions: [
        `read as QIF${name ? ` (account ${JSON.stringify(name)})` : ''}: ${rows.length} record(s)`,
        ...(dates.decision ? [dates.decision] : []),
        ...(decimal.separator === ',' && decimal.decision ? [decimal.decision] : []),
        ...file.skipped,
      ],
    };
  });
}
