/** What a statement writer is given: one account's rows as the bank shows them, and its closing balance. */
import { milliunitsToDecimalString } from '../api/money.js';

export interface StatementToWrite {
  account: { name: string; number: string; currency: string; card: boolean };
  /** Oldest first; amounts in milliunits, YNAB's sign. */
  rows: { date: string; amount: number; payee: string; memo?: string; bank_id: string }[];
  /** The bank's closing balance at `to`. */
  balance: number;
  from: string;
  to: string;
}

/** Decimal text with two places (three only when the milliunits need them), '.' or ',' between. */
export function decimal(milliunits: number, separator: '.' | ',' = '.'): string {
  const text = milliunitsToDecimalString(milliunits).replace(/(\.\d\d)0$/, '$1');
  return separator === ',' ? text.replace('.', ',') : text;
}

/** YYYY-MM-DD in the order a format writes it. */
export function writeDate(iso: string, format: string): string {
  const [y, m, d] = iso.split('-') as [string, string, string];
  if (format === 'MM/DD/YYYY') return `${m}/${d}/${y}`;
  if (format === 'DD/MM/YYYY') return `${d}/${m}/${y}`;
  if (format === 'DD.MM.YYYY') return `${d}.${m}.${y}`;
  if (format === 'YYYYMMDD') return `${y}${m}${d}`;
  return iso;
}
