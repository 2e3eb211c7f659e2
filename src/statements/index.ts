/**
 * Bank statement files: the one entry point the import and reconcile tools use.
 *
 * parseStatement is SYNCHRONOUS: every parser it uses has a sync path (csv-parse/sync, ofx-js
 * parseSync, qif-ts, fast-xml-parser). It reads the whole file or throws a StatementError whose
 * message names the line and says what is expected: never a partial result.
 */
import * as z from 'zod';
import { readCamt } from './camt.js';
import { parseCsv } from './csv.js';
import { readOfx } from './ofx.js';
import { readQif } from './qif.js';
import { sniffFormat } from './sniff.js';
import { countLines } from './text.js';
import { type CsvColumns, DATE_FORMATS, type ParsedStatement, STATEMENT_FORMATS, STATEMENT_LIMITS, StatementError, type StatementFormat } from './types.js';

export { cleanPayeeName } from './payee-text.js';
export { CSV_PRESETS, type CsvPreset } from './presets.js';
export {
  type CsvColumns,
  type DateFormat,
  type ParsedStatement,
  STATEMENT_FORMATS,
  STATEMENT_LIMITS,
  StatementError,
  type StatementFormat,
  type StatementRow,
} from './types.js';

function checkSize(content: string): void {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > STATEMENT_LIMITS.bytes) {
    throw new StatementError(`the file is ${bytes} bytes; a statement may be at most ${STATEMENT_LIMITS.bytes} bytes (2 MB): split it by date`);
  }
}

export function parseStatement(input: { content: string; format?: 'auto' | StatementFormat; columns?: CsvColumns }): ParsedStatement {
  const { content } = input;
  checkSize(content);
  const format = !input.format || input.format === 'auto' ? sniffFormat(content) : input.format;
  // QIF takes columns.date_format alone (its dates may be either order); the other formats have no columns.
  if (input.columns && format !== 'csv' && format !== 'qif') throw new StatementError(`columns are for CSV files; this file is ${format}`);
  if (format === 'csv') {
    // A CSV row is a line (a quoted cell may take more): far more lines than rows is refused unread.
    const lines = countLines(content);
    if (lines > STATEMENT_LIMITS.rows + 1 + 25) {
      throw new StatementError(`line ${STATEMENT_LIMITS.rows + 27}: the file has ${lines} lines; a statement may hold at most ${STATEMENT_LIMITS.rows} rows`);
    }
    return parseCsv(content, input.columns);
  }
  if (format === 'ofx' || format === 'qfx') return readOfx(content, format);
  if (format === 'qif') return readQif(content, input.columns);
  return readCamt(content);
}

// Column names are not bounded here (each bound costs the tool definition bytes): columns.ts
// refuses one over COLUMN_NAME_MAX characters, naming it.
const ColumnsArg = z.strictObject({
  date: z.string().optional(),
  payee: z.string().optional(),
  memo: z.string().optional(),
  amount: z.string().optional(),
  inflow: z.string().optional(),
  outflow: z.string().optional(),
  debit: z.string().optional(),
  credit: z.string().optional(),
  date_format: z.enum(DATE_FORMATS).optional(),
  amount_sign: z.enum(['outflow-negative', 'outflow-positive']).optional(),
  decimal_separator: z.enum(['.', ',']).optional(),
});

/** The file arguments both statement tools take. The `path` rule (local only) is the tools' to enforce. */
export const STATEMENT_FILE_ARGS = {
  content: z.string().max(STATEMENT_LIMITS.bytes).optional().describe('The file text'),
  path: z.string().max(1000).optional().describe('Or a local file path'),
  format: z
    .enum(['auto', ...STATEMENT_FORMATS])
    .optional()
    .describe('Default auto'),
  columns: ColumnsArg.optional().describe('CSV columns: header names or 1-based numbers'),
} satisfies z.ZodRawShape;

export { writeStatement, type StatementToWrite } from './write.js';
