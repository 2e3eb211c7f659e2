/**
 * CSV layouts of common bank exports. Each is "shaped like" a kind of export (its header row, date
 * order, sign convention and separators), not a copy of any one bank's file, which cannot be checked
 * here. A file whose header has every cell of a preset's header is read the preset's way; the
 * sandbox's statement generator writes each of them.
 */
import type { CsvColumns, DateFormat } from './types.js';

/** How a known layout is read: its columns, date order, separators and sign. */
export interface CsvLayout {
  name: string;
  /** What it is shaped like, for the preview and the generator's help. */
  description: string;
  columns: CsvColumns & { date_format?: DateFormat };
  /** Header cells of the other fields the reader takes. */
  balance?: string;
  reference?: string;
  status?: string;
  currency?: string;
  /** Who paid, for rows of money in, where the export names payer and payee apart. */
  payer?: string;
  /** A fee column taken off the amount (Revolut's "Fee"). */
  fee?: string;
}

export interface CsvPreset extends CsvLayout {
  /** The header row as the export writes it (matched case-insensitively). */
  header: readonly string[];
  delimiter: ',' | ';' | '\t';
  columns: CsvColumns & { date_format: DateFormat };
  /** Lines the export writes above the header (account details). */
  preamble?: readonly string[];
}

export const CSV_PRESETS: readonly CsvPreset[] = [
  {
    name: 'us-checking',
    description: 'shaped like a US bank checking export: Posting Date, Description, one signed Amount, a running Balance',
    header: ['Details', 'Posting Date', 'Description', 'Amount', 'Type', 'Balance', 'Check or Slip #'],
    delimiter: ',',
    columns: { date: 'Posting Date', payee: 'Description', amount: 'Amount', date_format: 'MM/DD/YYYY', amount_sign: 'outflow-negative' },
    balance: 'Balance',
  },
  {
    name: 'us-card-debit-credit',
    description: 'shaped like a US credit card export: Transaction and Posted dates, Debit and Credit columns',
    header: ['Transaction Date', 'Posted Date', 'Card No.', 'Description', 'Category', 'Debit', 'Credit'],
    delimiter: ',',
    columns: { date: 'Posted Date', payee: 'Description', debit: 'Debit', credit: 'Credit', date_format: 'YYYY-MM-DD' },
  },
  {
    name: 'us-card-positive-charges',
    description: 'shaped like a US card export whose charges are positive and payments negative',
    header: ['Trans. Date', 'Post Date', 'Description', 'Amount', 'Category'],
    delimiter: ',',
    columns: { date: 'Post Date', payee: 'Description', amount: 'Amount', date_format: 'MM/DD/YYYY', amount_sign: 'outflow-positive' },
  },
  {
    name: 'uk-current-account',
    description: 'shaped like a UK current account export: DD/MM/YYYY, Money Out and Money In, a Balance',
    header: ['Date', 'Type', 'Description', 'Money Out', 'Money In', 'Balance'],
    delimiter: ',',
    columns: { date: 'Date', payee: 'Description', outflow: 'Money Out', inflow: 'Money In', date_format: 'DD/MM/YYYY' },
    balance: 'Balance',
  },
  {
    name: 'de-girokonto',
    description: 'shaped like a German Girokonto export: ";" between cells, DD.MM.YYYY, decimal commas, account lines above the header',
    header: ['Buchungstag', 'Valutadatum', 'Status', 'Beguenstigter/Zahlungspflichtiger', 'Verwendungszweck', 'Betrag', 'Waehrung', 'Saldo'],
    delimiter: ';',
    columns: {
      date: 'Buchungstag',
      payee: 'Beguenstigter/Zahlungspflichtiger',
      memo: 'Verwendungszweck',
      amount: 'Betrag',
      date_format: 'DD.MM.YYYY',
      decimal_separator: ',',
    },
    status: 'Status',
    currency: 'Waehrung',
    balance: 'Saldo',
    preamble: ['Umsatzanzeige;', 'Konto;DE00 0000 0000 0000 0000 00', ''],
  },
  {
    name: 'ynab-import',
    description: "YNAB's own file-import layout: Date, Payee, Memo, Outflow, Inflow",
    header: ['Date', 'Payee', 'Memo', 'Outflow', 'Inflow'],
    delimiter: ',',
    columns: { date: 'Date', payee: 'Payee', memo: 'Memo', outflow: 'Outflow', inflow: 'Inflow', date_format: 'YYYY-MM-DD' },
  },
];

export function presetNamed(name: string): CsvPreset | undefined {
  return CSV_PRESETS.find((p) => p.name === name);
}
