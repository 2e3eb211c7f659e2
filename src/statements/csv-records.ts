/** CSV text into records with the line each starts on, by csv-parse; malformed text refused with its line. */
import { CsvError, parse } from 'csv-parse/sync';
import { refuse } from './refusal.js';
import { MAX_COLUMNS, StatementError } from './types.js';

export interface CsvRecord {
  cells: string[];
  /** 1-based line where the record starts (a quoted cell may run over several lines). */
  line: number;
}

export type Delimiter = ',' | ';' | '\t';
export const DELIMITERS: readonly Delimiter[] = [',', ';', '\t'];

/** Where a record starts: the line it ends on, less the line breaks inside it (skipped blank lines lead its raw text). */
function startLine(endLine: number, raw: string | undefined): number {
  const own = (raw ?? '').replace(/^[\r\n]+/, '').replace(/\r?\n$|\r$/, '');
  let breaks = 0;
  for (let i = own.indexOf('\n'); i !== -1; i = own.indexOf('\n', i + 1)) breaks++;
  return endLine - breaks;
}

/**
 * Every record of the text (or of its first `toLine` lines). A record wider than MAX_COLUMNS is
 * refused: a wrong delimiter or a hostile file, not a bank export.
 */
export function readRecords(content: string, delimiter: Delimiter, toLine?: number): CsvRecord[] {
  const lines: number[] = [];
  let tooWide: StatementError | undefined;
  try {
    const records = parse(content, {
      bom: true,
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      raw: true,
      // A quote inside an unquoted cell (Société Générale's ="0001" account line) is text.
      relax_quotes: true,
      ...(toLine ? { to_line: toLine } : {}),
      on_record: (record, ctx) => {
        const line = startLine(ctx.lines, ctx.raw);
        const width = (record as unknown as { record: string[] }).record.length;
        // (With `raw`, csv-parse hands over { record, raw }.) An error thrown here is not always passed on: kept, thrown below.
        if (width > MAX_COLUMNS)
          tooWide ??= refuse({
            line,
            found: `${width} cells`,
            expected: `at most ${MAX_COLUMNS} cells in a statement row`,
            fix: 'check the delimiter: the file may not be this CSV',
          });
        lines.push(line);
        return record;
      },
    });
    if (tooWide) throw tooWide;
    // With `raw` (which gives each record's own text, hence its first line) records come as { record, raw }.
    return (records as unknown as { record: string[] }[]).map((r, i) => ({ cells: r.record, line: lines[i]! }));
  } catch (e) {
    if (e instanceof CsvError) {
      const line = typeof e['lines'] === 'number' ? e['lines'] : '?';
      throw refuse({
        ...(typeof line === 'number' ? { line } : {}),
        found: `a malformed CSV (${e.message.replace(/ at line \d+/, '')})`,
        expected: 'comma, semicolon or tab separated cells, quotes closed',
        fix: 'give format if the file is not a CSV',
      });
    }
    throw e;
  }
}
