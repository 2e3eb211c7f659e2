/**
 * Bank statement files: the one entry point the import and reconcile tools use.
 *
 * parseStatement is SYNCHRONOUS: every parser it uses has a sync path (csv-parse/sync, qif-ts,
 * fast-xml-parser for camt and OFX). It reads the whole file or throws a StatementError whose
 * message names the line and says what is expected: never a partial result.
 */
import { describeAccount } from './accounts.js';
import { readCamt } from './camt.js';
import { parseCsv } from './csv.js';
import { decodeStatement } from './decode.js';
import { readOfx } from './ofx.js';
import { readQif } from './qif.js';
import { refuse } from './refusal.js';
import { decideFormat } from './sniff.js';
import { readSwift } from './swift.js';
import { countLines } from './text.js';
import { type CsvColumns, type ParsedStatement, type ReadFormat, STATEMENT_LIMITS } from './types.js';

export { cleanPayeeName } from './payee-text.js';
export { CSV_PRESETS, type CsvPreset } from './presets.js';
export {
  type CsvColumns,
  type DateFormat,
  type FileAccount,
  type ParsedStatement,
  READ_FORMATS,
  type ReadFormat,
  STATEMENT_FORMATS,
  STATEMENT_LIMITS,
  StatementError,
  type StatementFormat,
  type StatementRow,
} from './types.js';

function checkSize(content: string | Uint8Array): void {
  const bytes = typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : content.byteLength;
  if (bytes > STATEMENT_LIMITS.bytes) {
    throw refuse({ found: `${bytes} bytes`, expected: `a statement of at most ${STATEMENT_LIMITS.bytes} bytes (2 MB)`, fix: 'split it by date' });
  }
}

export interface StatementInput {
  /** The file's text, or its bytes (decoded here, in the charset the file declares: decode.ts). */
  content: string | Uint8Array;
  format?: 'auto' | ReadFormat;
  columns?: CsvColumns;
}

/** Every account's statement in the file, in its order: OFX and QIF files may hold several. */
export function parseStatements(input: StatementInput): ParsedStatement[] {
  checkSize(input.content);
  const decoded = typeof input.content === 'string' ? { text: input.content } : decodeStatement(input.content);
  const content = decoded.text;
  const format = decideFormat(content, input.format);
  const read = readFormat(content, format, input.columns);
  if (decoded.decision) for (const s of read) s.decisions.unshift(decoded.decision);
  return read;
}

function readFormat(content: string, format: ReadFormat, columns: CsvColumns | undefined): ParsedStatement[] {
  // QIF takes columns.date_format alone (its dates may be either order); the other formats have no columns.
  if (columns && format !== 'csv' && format !== 'qif')
    throw refuse({
      found: `columns given for a ${format} file`,
      expected: 'columns only for a CSV file (and columns.date_format for QIF)',
      fix: 'leave columns out: this format names its own fields',
    });
  if (format === 'csv') {
    // A CSV row is a line (a quoted cell may take more): far more lines than rows is refused unread.
    const lines = countLines(content);
    if (lines > STATEMENT_LIMITS.rows + 1 + 25) {
      throw refuse({
        line: STATEMENT_LIMITS.rows + 27,
        found: `a file of ${lines} lines`,
        expected: `a statement of at most ${STATEMENT_LIMITS.rows} rows`,
        fix: 'split it by date',
      });
    }
    return [parseCsv(content, columns)];
  }
  if (format === 'ofx' || format === 'qfx') return readOfx(content, format);
  if (format === 'qif') return readQif(content, columns);
  if (format === 'mt940' || format === 'mt942') return [readSwift(content, format)];
  return [readCamt(content, format)];
}

/** The file's one statement; a file of several accounts is refused, listing them. */
export function parseStatement(input: StatementInput): ParsedStatement {
  const all = parseStatements(input);
  if (all.length === 1) return all[0]!;
  throw refuse({
    found: `${all.length} accounts' statements: ${all.map(describeAccount).join('; ')}`,
    expected: "one account's statement",
    fix: "give one account's file, or statement_account",
  });
}

export { STATEMENT_FILE_ARGS } from './args.js';
export { writeStatement, type StatementToWrite } from './write.js';
