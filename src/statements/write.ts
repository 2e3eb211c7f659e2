/** Writing a statement file in any format the reader reads (the sandbox's statement generator uses it). */
import { CSV_PRESETS, presetNamed } from './presets.js';
import { type StatementToWrite } from './write-common.js';
import { writeCsv } from './write-csv.js';
import { writeCamt, writeOfx, writeQif } from './write-structured.js';
import { StatementError, type StatementFormat } from './types.js';

export type { StatementToWrite } from './write-common.js';

/** The file's text. CSV takes a preset name (default: us-checking, or de-girokonto for EUR). */
export function writeStatement(s: StatementToWrite, format: StatementFormat, presetName?: string): string {
  if (format === 'csv') {
    const name = presetName ?? (s.account.currency === 'EUR' ? 'de-girokonto' : 'us-checking');
    const preset = presetNamed(name);
    if (!preset) throw new StatementError(`no CSV preset "${name}"; presets: ${CSV_PRESETS.map((p) => p.name).join(', ')}`);
    return writeCsv(s, preset);
  }
  if (presetName !== undefined) throw new StatementError('a preset is for CSV files only');
  if (format === 'ofx' || format === 'qfx') return writeOfx(s, format);
  if (format === 'qif') return writeQif(s);
  return writeCamt(s);
}
