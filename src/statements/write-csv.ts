/**
 * A CSV statement in one of the presets' layouts, by csv-stringify: the preset's header, its
 * date order, decimal separator and sign convention, a running balance where it has one, and the
 * other columns filled as such an export fills them.
 */
import { stringify } from 'csv-stringify/sync';
import { type CsvPreset } from './presets.js';
import { decimal, type StatementToWrite, writeDate } from './write-common.js';

type Row = StatementToWrite['rows'][number];

/** Exports shaped like these list the newest row first. */
const NEWEST_FIRST = new Set(['us-checking', 'de-girokonto']);

/** The cells of the columns the reader does not take, as such an export fills them. */
function other(header: string, r: Row, s: StatementToWrite, preset: CsvPreset): string {
  const out = r.amount < 0;
  switch (header) {
    case 'Details':
      return out ? 'DEBIT' : 'CREDIT';
    case 'Type':
      return preset.name === 'uk-current-account' ? (out ? 'DEB' : 'BGC') : out ? 'DEBIT_CARD' : 'ACH_CREDIT';
    case 'Transaction Date':
    case 'Trans. Date':
      return writeDate(r.date, preset.columns.date_format);
    case 'Valutadatum':
      return writeDate(r.date, preset.columns.date_format);
    case 'Card No.':
      return s.account.number.slice(-4);
    case 'Category':
      return out ? 'Merchandise' : 'Payment/Credit';
    case 'Status':
      return 'Umsatz gebucht';
    case 'Waehrung':
      return s.account.currency;
    default:
      return '';
  }
}

export function writeCsv(s: StatementToWrite, preset: CsvPreset): string {
  const c = preset.columns;
  const sep = c.decimal_separator ?? '.';
  const opening = s.balance - s.rows.reduce((t, r) => t + r.amount, 0);
  let running = opening;
  const lines = s.rows.map((r) => {
    running += r.amount;
    const balanceAfter = running;
    return preset.header.map((h) => {
      const amountCell = (v: number) => (v === 0 ? '' : decimal(v, sep));
      if (h === c.date) return writeDate(r.date, c.date_format);
      if (h === c.payee) return r.payee;
      if (h === c.memo) return r.memo ?? '';
      if (h === c.amount) return decimal(c.amount_sign === 'outflow-positive' ? -r.amount : r.amount, sep);
      if (h === c.outflow || h === c.debit) return amountCell(r.amount < 0 ? -r.amount : 0);
      if (h === c.inflow || h === c.credit) return amountCell(r.amount > 0 ? r.amount : 0);
      if (h === preset.balance) return decimal(balanceAfter, sep);
      return other(h, r, s, preset);
    });
  });
  if (NEWEST_FIRST.has(preset.name)) lines.reverse();
  const body = stringify([[...preset.header], ...lines], { delimiter: preset.delimiter, record_delimiter: 'windows' });
  return (preset.preamble ?? []).map((l) => `${l}\r\n`).join('') + body;
}
