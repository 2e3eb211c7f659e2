/**
 * QIF (Quicken Interchange Format) bank, cash and card exports, by qif-ts. qif-ts reads each
 * amount with parseFloat, which takes "1,234.56" as 1: the amount's digits are taken from the
 * record's own T line instead, and converted exactly.
 */
import { deserializeQif, type QifTransaction } from 'qif-ts';
import { parseAmount } from './amount.js';
import { decideDateFormat, parseDate } from './dates.js';
import { optionalText } from './text.js';
import { type CsvColumns, type ParsedStatement, STATEMENT_LIMITS, StatementError, type StatementRow } from './types.js';

interface RecordText {
  line: number;
  amount?: string;
}

/**
 * Where each record starts and its T line, found the way qif-ts splits records: non-blank lines
 * up to a "^", a record only when it has lines (qif-ts skips empty ones).
 */
function recordTexts(text: string): RecordText[] {
  const out: RecordText[] = [];
  let current: RecordText | undefined;
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l === '') continue;
    if (l.startsWith('^')) {
      if (current) out.push(current);
      current = undefined;
      if (out.length > STATEMENT_LIMITS.rows)
        throw new StatementError(`line ${i + 1}: more than ${STATEMENT_LIMITS.rows} records; a statement may hold at most ${STATEMENT_LIMITS.rows} rows`);
      continue;
    }
    current ??= { line: i + 1 };
    if (l[0] === 'T' || l[0] === 'U') current.amount ??= l.slice(1);
  }
  if (current) out.push(current);
  return out;
}

function deserialize(text: string): QifTransaction[] {
  try {
    return deserializeQif(text).transactions;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const bad = /line: (.*)$/.exec(message)?.[1];
    const at = bad === undefined ? -1 : text.split('\n').findIndex((l) => l.trim() === bad);
    const type = /^\s*(!\S+)/.exec(text)?.[1];
    const hint = /not supported/.test(message) ? `: give one account's !Type:Bank, !Type:CCard or !Type:Cash export, not ${type ?? 'this'}` : '';
    throw new StatementError(`line ${at >= 0 ? at + 1 : 1}: the QIF is malformed (${message})${hint}`);
  }
}

export function readQif(text: string, columns?: CsvColumns): ParsedStatement {
  const clean = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const records = recordTexts(clean);
  const transactions = deserialize(clean);
  if (records.length !== transactions.length) throw new StatementError(`the QIF has ${transactions.length} records but ${records.length} blocks ending in ^`);
  const dateCells = transactions.map((t, i) => {
    const line = records[i]!.line;
    if (!t.date) throw new StatementError(`line ${line}: the record has no D (date) line`);
    // Quicken writes years after an apostrophe ("3/14'24"): the same date as 3/14/24.
    return { text: t.date.replace(/'\s*/, '/').replace(/\s+/g, ''), line };
  });
  const dates = decideDateFormat(dateCells, columns?.date_format, undefined);
  const rows: StatementRow[] = transactions.map((t, i) => {
    const rec = records[i]!;
    const amount = rec.amount === undefined ? undefined : parseAmount({ text: rec.amount, line: rec.line }, '.', 'T (amount)');
    if (amount === undefined) throw new StatementError(`line ${rec.line}: the record has no T (amount) line`);
    const memo = optionalText(t.memo);
    return {
      line: rec.line,
      date: parseDate(dateCells[i]!, dates.format),
      amount,
      payee: optionalText(t.payee) ?? memo ?? '',
      ...(memo !== undefined ? { memo } : {}),
    };
  });
  return { format: 'qif', rows, decisions: [`read as QIF: ${rows.length} record(s)`, ...(dates.decision ? [dates.decision] : [])] };
}
