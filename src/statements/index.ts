/**
 * Bank statement files: the one entry point the import and reconcile tools use.
 *
 * parseStatement is SYNCHRONOUS: every parser it uses has a sync path (csv-parse/sync, ofx-js
 * parseSync, qif-ts, fast-xml-parser). It reads the whole file or throws a StatementError whose
 * message names the line and says what is expected: never a partial result.
 */
import { readCamt } from './camt.js';
import { parseCsv } from './csv.js';
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
  type ParsedStatement,
  READ_FORMATS,
  type ReadFormat,
  STATEMENT_FORMATS,
  STATEMENT_LIMITS,
  StatementError,
  type StatementFormat,
  type StatementRow,
} from './types.js';

function checkSize(content: string): void {
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > STATEMENT_LIMITS.bytes) {
    throw refuse({ found: `${bytes} bytes`, expected: `a statement of at most ${STATEMENT_LIMITS.bytes} bytes (2 MB)`, fix: 'split it by date' });
  }
}

export function parseStatement(input: { content: string; format?: 'auto' | ReadFormat; columns?: CsvColumns }): ParsedStatement {
  const { content } = input;
  checkSize(content);
  const format = decideFormat(content, input.format);
  // QIF takes columns.date_format alone (its dates may be either order); the other formats have no columns.
  if (input.columns && format !== 'csv' && format !== 'qif')
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
    return parseCsv(content, input.columns);
  }
  if (format === 'ofx' || format === 'qfx') return readOfx(content, format);
  if (format === 'qif') return readQif(content, input.columns);
  if (format === 'mt940' || format === 'mt942') return readSwift(content, format);
  return readCamt(content, format);
}

export { STATEMENT_FILE_ARGS } from './args.js';
export { writeStatement, type StatementToWrite } from './write.js';
