/**
 * Which cell of a CSV row holds what: from the columns the caller gave, from a preset whose header
 * the file has, or from header names (English, and the common German, French and Dutch ones).
 */
import { foldText } from '../shared/text.js';
import { BANK_LAYOUTS } from './bank-layouts.js';
import { ALIASES, type Field } from './header-names.js';
import { CSV_PRESETS, type CsvLayout } from './presets.js';
import { refuse as refuseWith } from './refusal.js';
import { type CsvColumns } from './types.js';

export type { Field } from './header-names.js';
export type ColumnMap = Partial<Record<Field, number>> & { date: number; payee: number };

/** Header text folded: case and accents away, a currency in brackets or after the name dropped ("Betrag (EUR)", "Débit euros", "Umsatz in EUR"). */
export function foldHeader(cell: string): string {
  return foldText(cell)
    .replace(/\s*[([][^)\]]*[)\]]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(?<=\S)\s+(?:in\s+)?(?:eur|euros?|usd|gbp|chf|€|\$|£)$/, '');
}

/** The index of a header cell by its name (folded), or -1. */
export function indexOf(header: readonly string[], name: string): number {
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

/** Every layout with the header cells that say it: a preset's whole header, a bank layout's `match`. */
const LAYOUTS: readonly { layout: CsvLayout; cells: readonly string[] }[] = [
  ...CSV_PRESETS.map((p) => ({ layout: p, cells: p.header.map(foldHeader) })),
  ...BANK_LAYOUTS.map((b) => ({ layout: b, cells: b.match.map(foldHeader) })),
];

/** The layout whose cells the file's header holds (the one with most cells, when several do). */
function presetFor(header: readonly string[]): CsvLayout | undefined {
  const have = new Set(header);
  const fits = LAYOUTS.filter((p) => p.cells.every((h) => have.has(h)));
  return fits.sort((a, b) => b.cells.length - a.cells.length)[0]?.layout;
}

/** The longest column name taken in `columns` (a header cell's name). */
export const COLUMN_NAME_MAX = 200;

/** A given column: a header name, or a 1-based column number. */
function given(header: readonly string[] | undefined, key: string, value: string, line: number): number {
  if (value.length > COLUMN_NAME_MAX)
    throw refuseWith({
      element: `columns.${key}`,
      found: `${value.length} characters`,
      expected: `at most ${COLUMN_NAME_MAX} (a header name or a 1-based column number)`,
      fix: `give columns.${key} a header name or a 1-based column number`,
    });
  if (/^\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    if (n < 1) {
      throw refuseWith({ element: `columns.${key}`, found: `column ${n}`, expected: 'column numbers from 1', fix: `give columns.${key} as a 1-based number` });
    }
    return n - 1;
  }
  const i = header ? indexOf(header, value) : -1;
  if (i < 0) {
    const cells = header ? header.filter(Boolean).map((h) => `"${h}"`) : [];
    throw refuseWith({
      ...(header ? { line } : {}),
      found: header ? `a header with no cell "${value}" (it has ${cells.slice(0, 12).join(', ')})` : `no header row naming "${value}"`,
      expected: `columns.${key} to name a cell of the header`,
      fix: `give columns.${key} as a header name or a 1-based column number`,
    });
  }
  return i;
}

export interface HeaderFound {
  /** Index of the header record, or -1 when the file has none (columns given by number). */
  index: number;
  map: ColumnMap;
  preset?: CsvLayout;
  header: string[];
}

const PREAMBLE_MAX = 20;
const FIELDS: readonly (keyof CsvColumns & Field)[] = ['date', 'payee', 'memo', 'amount', 'inflow', 'outflow', 'debit', 'credit'];
const AMOUNTS = ['amount', 'inflow', 'outflow', 'debit', 'credit'] as const;
/** `columns` keys that name a column and, after a colon, its values ("State:PENDING", "Af Bij:Af/Bij"). */
const SPECS = ['direction', 'status'] as const;

/** The column part of a `columns.direction` or `columns.status` value. */
export function specColumn(spec: string): string {
  const colon = spec.lastIndexOf(':');
  return colon < 0 ? spec : spec.slice(0, colon);
}

/** Every column `columns` names, by key, as a header name or number. */
function namedColumns(columns: CsvColumns): [string, string][] {
  const out: [string, string][] = FIELDS.filter((f) => columns[f] !== undefined).map((f) => [f, columns[f]!]);
  for (const k of SPECS) if (columns[k] !== undefined) out.push([k, specColumn(columns[k])]);
  return out;
}

const isNumber = (v: string) => /^\d+$/.test(v.trim());

/** A file without a payee column whose description is in a memo-like column: that column is the payee. */
function payeeFromMemo(m: Partial<Record<Field, number>>): void {
  if (m.payee === undefined && m.memo !== undefined) {
    m.payee = m.memo;
    delete m.memo;
  }
}

/** The columns of a header row: a layout's where one fits, every other one found by its name. */
function mapOf(header: readonly string[], preset: CsvLayout | undefined): Partial<Record<Field, number>> {
  const auto = detect(header);
  if (!preset) return auto;
  const base = presetMap(preset, header);
  const presetAmounts = AMOUNTS.some((f) => base[f] !== undefined);
  for (const [f, i] of Object.entries(auto) as [Field, number][]) {
    if (presetAmounts && (AMOUNTS as readonly string[]).includes(f)) continue;
    if (!Object.values(base).includes(i)) base[f] ??= i;
  }
  return base;
}

/** The header row, within the first lines (exports put account details above it), and the columns. */
export function findHeader(
  records: readonly { cells: string[]; line: number }[],
  columns: CsvColumns | undefined,
  /** Refuse a column name no header row has, rather than answer undefined (once the delimiter is known). */
  refuse = false,
): HeaderFound | undefined {
  const named = columns ? namedColumns(columns) : [];
  const byNumber = columns !== undefined && named.every(([, v]) => isNumber(v));
  for (const [index, r] of records.slice(0, PREAMBLE_MAX + 1).entries()) {
    const header = r.cells.map(foldHeader);
    const preset = presetFor(header);
    const base = mapOf(header, preset);
    if (columns) {
      if (!byNumber && !named.every(([, v]) => isNumber(v) || indexOf(header, v) >= 0)) continue;
      if (byNumber && !(base.date !== undefined && hasAmount(base))) continue;
      return { index, header, map: withGiven(base, columns, header, r.line), preset };
    }
    payeeFromMemo(base);
    if (base.date !== undefined && base.payee !== undefined && hasAmount(base)) return { index, header, map: base as ColumnMap, preset };
  }
  if (byNumber) return { index: -1, header: [], map: withGiven({}, columns, undefined, 0) };
  if (columns && refuse) {
    // A name no header row has: refused against the likeliest header (else the first line), naming its cells.
    const rows = records.slice(0, PREAMBLE_MAX + 1).map((r) => ({ r, header: r.cells.map(foldHeader) }));
    const likely = rows.find((x) => x.header.some((h) => ALIASES.date.includes(h))) ?? rows[0];
    if (likely) withGiven(mapOf(likely.header, undefined), columns, likely.header, likely.r.line);
  }
  return undefined;
}

function presetMap(p: CsvLayout, header: readonly string[]): Partial<Record<Field, number>> {
  const m: Partial<Record<Field, number>> = {};
  const put = (f: Field, name: string | undefined) => {
    const i = name === undefined ? -1 : indexOf(header, name);
    if (i >= 0) m[f] = i;
  };
  for (const f of FIELDS) put(f, p.columns[f]);
  for (const f of ['balance', 'reference', 'status', 'currency', 'payer'] as const) put(f, p[f]);
  return m;
}

/** Given columns override what was detected; giving one way of writing amounts drops the others. */
function withGiven(base: Partial<Record<Field, number>>, columns: CsvColumns, header: readonly string[] | undefined, line: number): ColumnMap {
  const map = { ...base };
  if (AMOUNTS.some((f) => columns[f] !== undefined)) for (const f of AMOUNTS) delete map[f];
  for (const [k, v] of namedColumns(columns)) map[k as Field] = given(header, k, v, line);
  payeeFromMemo(map);
  if (map.date === undefined || map.payee === undefined || !hasAmount(map)) {
    const missing = [map.date === undefined && 'date', map.payee === undefined && 'payee', !hasAmount(map) && 'amount (or inflow/outflow, or debit/credit)'];
    throw refuseWith({
      ...(header ? { line } : { element: 'columns' }),
      found: `no ${missing.filter(Boolean).join(', ')} column${
        header
          ? ` in the header (${header
              .filter(Boolean)
              .slice(0, 8)
              .map((h) => JSON.stringify(h))
              .join(', ')})`
          : ''
      }`,
      expected: 'a date, a payee and an amount (or inflow/outflow, or debit/credit) column',
      fix: `give columns.${missing.find(Boolean)!.toString().split(' ')[0]} (a header name or a 1-based column number)`,
    });
  }
  return map as ColumnMap;
}
