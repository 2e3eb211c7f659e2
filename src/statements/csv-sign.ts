/**
 * Which way a CSV row's money goes when one amount column does not say it alone: a direction
 * column beside it (Af/Bij, D/C, DBIT/CRDT, Debit/Credit, S/H, -/+), named in `columns.direction`
 * or found by its header and its values; else the amounts' own signs, as a preset or
 * `columns.amount_sign` says; else refused where the file shows the signs cannot be its own.
 */
import type { CsvRecord } from './csv-records.js';
import { ALIASES, WEAK_DIRECTION } from './header-names.js';
import { refuse, shown } from './refusal.js';

/** Words a direction column writes, folded: a whole word says it even under a header we do not know. */
const DEBIT_WORDS = ['af', 'debit', 'debet', 'dbit', 'soll', 'ausgang', 'withdrawal', 'terheles'];
const CREDIT_WORDS = ['bij', 'credit', 'crdt', 'haben', 'eingang', 'deposit', 'jovairas'];
/** Short marks: only under a direction header (or a blank one), where they cannot mean something else. */
// T and J: Hungarian terhelés and jóváírás.
const DEBIT_MARKS = ['d', 'dr', 'db', 's', '-', 'out', 't'];
const CREDIT_MARKS = ['c', 'cr', 'h', '+', 'in', 'j'];

export interface Direction {
  column: number;
  debit: readonly string[];
  credit: readonly string[];
  /** Where it came from, for the decision and messages. */
  named: string;
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').trim().toLowerCase();

function valuesOf(rows: readonly CsvRecord[], column: number): string[] {
  return rows.map((r) => fold(r.cells[column] ?? '')).filter((v) => v !== '');
}

/** Whether every value of a column is a debit or credit word (or mark, where `marks`). */
function allDirection(values: readonly string[], marks: boolean): boolean {
  const known = new Set([...DEBIT_WORDS, ...CREDIT_WORDS, ...(marks ? [...DEBIT_MARKS, ...CREDIT_MARKS] : [])]);
  return values.length > 0 && values.every((v) => known.has(v));
}

const KNOWN = { debit: [...DEBIT_WORDS, ...DEBIT_MARKS], credit: [...CREDIT_WORDS, ...CREDIT_MARKS] };

/**
 * `columns.direction`: "column" (its values read as the known words and marks), or
 * "column:debit values/credit values", each list comma-separated ("Af Bij:Af/Bij", "5:T/J").
 */
export function parseDirectionSpec(spec: string): { column: string; debit?: string[]; credit?: string[] } {
  const colon = spec.lastIndexOf(':');
  if (colon < 0) return { column: spec };
  const [debit, credit, extra] = spec.slice(colon + 1).split('/');
  const list = (s: string | undefined) => (s ?? '').split(',').map(fold).filter(Boolean);
  if (extra !== undefined || !list(debit).length || !list(credit).length) {
    throw refuse({
      element: 'columns.direction',
      found: shown(spec),
      expected: '"column" or "column:debit values/credit values"',
      fix: 'give columns.direction e.g. "Af Bij:Af/Bij" or "CreditDebet:D/C"',
    });
  }
  return { column: spec.slice(0, colon), debit: list(debit), credit: list(credit) };
}

/** A direction column found by its header and values, among the columns not otherwise read. */
export function detectDirection(
  header: readonly string[],
  rows: readonly CsvRecord[],
  taken: ReadonlySet<number>,
  /** Some amounts carry their own minus: a direction column of unknown values is then left alone, not refused. */
  signed: boolean,
): Direction | undefined {
  const width = Math.max(header.length, ...rows.slice(0, 1).map((r) => r.cells.length));
  for (let i = 0; i < width; i++) {
    if (taken.has(i)) continue;
    const h = header[i] ?? '';
    const strong = ALIASES.direction.includes(h);
    if (!strong && !WEAK_DIRECTION.has(h)) continue;
    const values = valuesOf(rows, i);
    if (allDirection(values, strong || h === '')) return { column: i, ...KNOWN, named: h ? `column "${h}"` : `column ${i + 1}` };
    if (strong && values.length > 0 && !signed) {
      const odd = rows.find((r) => !allDirection([fold(r.cells[i] ?? '')].filter(Boolean), true) && fold(r.cells[i] ?? '') !== '')!;
      throw refuse({
        line: odd.line,
        found: `${shown(odd.cells[i])} in column "${h}"`,
        expected: 'a known debit or credit mark (Af/Bij, D/C, DBIT/CRDT, Debit/Credit, S/H, -/+)',
        fix: `give columns.direction "${h}:<debit values>/<credit values>"`,
      });
    }
  }
  return undefined;
}

/** A given direction column (`name` as `columns.direction` names it): its values checked against the lists given, or the known ones. */
export function givenDirection(column: number, name: string, spec: { debit?: string[]; credit?: string[] }, rows: readonly CsvRecord[]): Direction {
  const debit = spec.debit ?? KNOWN.debit;
  const credit = spec.credit ?? KNOWN.credit;
  for (const r of rows) {
    const v = fold(r.cells[column] ?? '');
    if (v !== '' && !debit.includes(v) && !credit.includes(v)) {
      throw refuse({
        line: r.line,
        found: `${shown(r.cells[column])} in column "${name}"`,
        expected: `one of columns.direction's debit values (${debit.join(', ')}) or credit values (${credit.join(', ')})`,
        fix: `give columns.direction "${name}:<debit values>/<credit values>"`,
      });
    }
  }
  return { column, debit, credit, named: `column "${name}"` };
}

/** The sign a row's direction cell gives: -1 debit, 1 credit, undefined blank. */
export function directionSign(d: Direction, r: CsvRecord): -1 | 1 | undefined {
  const v = fold(r.cells[d.column] ?? '');
  if (v === '') return undefined;
  return d.debit.includes(v) ? -1 : 1;
}

/**
 * A single amount column whose amounts are all positive and that no direction column, preset or
 * `columns.amount_sign` explains: refused where the file shows some rows are money out (a card
 * export, whose charges are positive; a balance that falls), else read as money in.
 */
export function checkUnsigned(
  header: readonly string[],
  rows: readonly { line: number; date: string; amount: number; balance?: number | undefined }[],
): string | undefined {
  if (rows.length === 0 || rows.some((r) => r.amount < 0)) return undefined;
  const fix = "give columns.amount_sign ('outflow-positive' if positive amounts are money out, 'outflow-negative' if they are money in) or columns.direction";
  const card = header.find((h) => /\bcard\b|karte|carte|tarjeta/.test(h));
  if (card !== undefined) {
    throw refuse({
      line: rows[0]!.line,
      found: `every amount positive in what looks like a card statement (column "${card}"), where charges are often positive`,
      expected: 'a sign that says whether they are money out',
      fix,
    });
  }
  const dated = rows.filter((r) => r.balance !== undefined).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (let i = 1; i < dated.length; i++) {
    const [before, after] = [dated[i - 1]!, dated[i]!];
    if (after.date > before.date && after.balance! < before.balance!) {
      throw refuse({
        line: after.line,
        found: `every amount positive, but the balance falls from ${before.date} (line ${before.line}) to ${after.date}`,
        expected: 'a column that says which rows are money out',
        fix,
      });
    }
  }
  return "every amount is positive and no column gives a sign: read as money in (give columns.amount_sign 'outflow-positive' if they are money out)";
}
