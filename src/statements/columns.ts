/**
 * Which cell of a CSV row holds what: from the columns the caller gave, from a preset whose header
 * the file has, or from header names (English, and the common German, French and Dutch ones).
 */
import { foldText } from '../shared/text.js';
import { CSV_PRESETS, type CsvPreset } from './presets.js';
import { type CsvColumns, StatementError } from './types.js';

export type Field = 'date' | 'payee' | 'memo' | 'amount' | 'inflow' | 'outflow' | 'debit' | 'credit' | 'balance' | 'status' | 'reference' | 'currency';
export type ColumnMap = Partial<Record<Field, number>> & { date: number; payee: number };

/** Header names by field, most telling first (a posting date before a transaction date: YNAB dates by posting). */
const ALIASES: Record<Field, readonly string[]> = {
  date: [
    'posting date',
    'posted date',
    'post date',
    'booking date',
    'date',
    'transaction date',
    'trans. date',
    'trans date',
    'buchungstag',
    'buchungsdatum',
    'datum',
    "date de l'operation",
    'date operation',
    'boekdatum',
    'transactiedatum',
  ],
  payee: [
    'payee',
    'description',
    'merchant',
    'name',
    'counterparty',
    'transaction description',
    'details',
    'beguenstigter/zahlungspflichtiger',
    'begunstigter/zahlungspflichtiger',
    'auftraggeber/empfanger',
    'empfanger',
    'name zahlungsbeteiligter',
    'zahlungsempfanger',
    'libelle',
    'naam / omschrijving',
    'naam',
    'omschrijving',
    'tegenpartij',
  ],
  memo: ['memo', 'notes', 'note', 'verwendungszweck', 'mededelingen', 'informations complementaires', 'detail'],
  amount: ['amount', 'transaction amount', 'betrag', 'umsatz', 'montant', 'bedrag'],
  inflow: ['inflow', 'money in', 'paid in', 'deposits', 'deposit', 'gutschrift'],
  outflow: ['outflow', 'money out', 'paid out', 'withdrawals', 'withdrawal', 'belastung'],
  debit: ['debit', 'debit amount', 'soll'],
  credit: ['credit', 'credit amount', 'haben'],
  balance: ['balance', 'running balance', 'running bal.', 'saldo', 'kontostand', 'solde'],
  status: ['status', 'pending'],
  reference: ['reference', 'transaction id', 'reference number', 'fitid', 'referenz', 'bank reference'],
  currency: ['currency', 'waehrung', 'wahrung', 'devise', 'munt'],
};

/** Header text folded: case and accents away, a currency in brackets dropped ("Betrag (EUR)", "Montant(€)"). */
export function foldHeader(cell: string): string {
  return foldText(cell)
    .replace(/\s*[([][^)\]]*[)\]]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function indexOf(header: readonly string[], name: string): number {
  const want = foldHeader(name);
  return header.findIndex((h) => h === want);
}

function detect(header: readonly string[]): Partial<Record<Field, number>> {
  const map: Partial<Record<Field, number>> = {};
  const taken = new Set<number>();
  for (const field of Object.keys(ALIASES) as Field[]) {
    for (const alias of ALIASES[field]) {
      const i = indexOf(header, alias);
      if (i >= 0 && !taken.has(i)) {
        map[field] = i;
        taken.add(i);
        break;
      }
    }
  }
  return map;
}

function hasAmount(m: Partial<Record<Field, number>>): boolean {
  return m.amount !== undefined || (m.inflow ?? m.outflow) !== undefined || (m.debit ?? m.credit) !== undefined;
}

/** The preset whose whole header the file's header holds (the longest such, when several do). */
function presetFor(header: readonly string[]): CsvPreset | undefined {
  const have = new Set(header);
  const fits = CSV_PRESETS.filter((p) => p.header.every((h) => have.has(foldHeader(h))));
  return fits.sort((a, b) => b.header.length - a.header.length)[0];
}

/** The longest column name taken in `columns` (a header cell's name). */
export const COLUMN_NAME_MAX = 200;

/** A given column: a header name, or a 1-based column number. */
function given(header: readonly string[] | undefined, key: string, value: string, line: number): number {
  if (value.length > COLUMN_NAME_MAX)
    throw new StatementError(`columns.${key}: at most ${COLUMN_NAME_MAX} characters (a header name or a 1-based column number)`);
  if (/^\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    if (n < 1) throw new StatementError(`columns.${key}: column numbers start at 1`);
    return n - 1;
  }
  const i = header ? indexOf(header, value) : -1;
  if (i < 0) {
    const where = header ? `the header on line ${line} has no cell "${value}"` : `no header row names "${value}"`;
    throw new StatementError(`columns.${key}: ${where}; give a header name or a 1-based column number`);
  }
  return i;
}

export interface HeaderFound {
  /** Index of the header record, or -1 when the file has none (columns given by number). */
  index: number;
  map: ColumnMap;
  preset?: CsvPreset;
  header: string[];
}

const PREAMBLE_MAX = 20;
const FIELDS: readonly (keyof CsvColumns & Field)[] = ['date', 'payee', 'memo', 'amount', 'inflow', 'outflow', 'debit', 'credit'];

/** The header row, within the first lines (exports put account details above it), and the columns. */
export function findHeader(records: readonly { cells: string[]; line: number }[], columns: CsvColumns | undefined): HeaderFound | undefined {
  const byNumber = columns && FIELDS.every((f) => columns[f] === undefined || /^\d+$/.test(columns[f]!.trim()));
  for (const [index, r] of records.slice(0, PREAMBLE_MAX + 1).entries()) {
    const header = r.cells.map(foldHeader);
    const preset = presetFor(header);
    const auto = detect(header);
    const base: Partial<Record<Field, number>> = preset ? presetMap(preset, header) : auto;
    for (const [f, i] of Object.entries(auto) as [Field, number][]) if (!Object.values(base).includes(i)) base[f] ??= i;
    if (columns) {
      const named = FIELDS.filter((f) => columns[f] !== undefined && !/^\d+$/.test(columns[f]!.trim()));
      if (!byNumber && !named.every((f) => indexOf(header, columns[f]!) >= 0)) continue;
      if (byNumber && !(base.date !== undefined && hasAmount(base))) continue;
      return { index, header, map: withGiven(base, columns, header, r.line), preset };
    }
    if (base.date !== undefined && base.payee !== undefined && hasAmount(base)) return { index, header, map: base as ColumnMap, preset };
  }
  if (byNumber) return { index: -1, header: [], map: withGiven({}, columns!, undefined, 0) };
  return undefined;
}

function presetMap(p: CsvPreset, header: readonly string[]): Partial<Record<Field, number>> {
  const m: Partial<Record<Field, number>> = {};
  for (const f of FIELDS) if (p.columns[f] !== undefined) m[f] = indexOf(header, p.columns[f]!);
  for (const f of ['balance', 'reference', 'status', 'currency'] as const) if (p[f] !== undefined) m[f] = indexOf(header, p[f]!);
  return m;
}

/** Given columns override what was detected; giving one way of writing amounts drops the others. */
function withGiven(base: Partial<Record<Field, number>>, columns: CsvColumns, header: readonly string[] | undefined, line: number): ColumnMap {
  const map = { ...base };
  const amountGiven = ['amount', 'inflow', 'outflow', 'debit', 'credit'].some((f) => columns[f as Field & keyof CsvColumns] !== undefined);
  if (amountGiven) for (const f of ['amount', 'inflow', 'outflow', 'debit', 'credit'] as const) delete map[f];
  for (const f of FIELDS) if (columns[f] !== undefined) map[f] = given(header, f, columns[f]!, line);
  if (map.date === undefined || map.payee === undefined || !hasAmount(map)) {
    throw new StatementError('columns: give date, payee and amount (or inflow/outflow, or debit/credit)');
  }
  return map as ColumnMap;
}
