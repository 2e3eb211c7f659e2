/**
 * Banks' own CSV layouts that header names alone would read wrong or not at all: a date order no
 * row decides, charges written positive, the payee in a column named otherwise, a sign or status
 * column. A file whose header holds every cell of `match` is read the layout's way; `columns`
 * overrides any part of it (a bank changes its export; the assistant can correct one column).
 * Other banks' exports are read from their header names (header-names.ts), without a layout.
 */
import type { CsvLayout } from './presets.js';

export interface BankLayout extends CsvLayout {
  /** Header cells (folded as foldHeader does) that together say the file is this bank's. */
  match: readonly string[];
}

const DE = { date_format: 'DD.MM.YYYY', decimal_separator: ',' } as const;

export const BANK_LAYOUTS: readonly BankLayout[] = [
  {
    name: 'pc-financial-mastercard',
    description: 'PC Financial Mastercard (CA): charges positive, MM/DD/YYYY',
    match: ['Merchant Name', 'Card Used For Transaction', 'Date', 'Amount'],
    columns: { date: 'Date', payee: 'Merchant Name', amount: 'Amount', date_format: 'MM/DD/YYYY', amount_sign: 'outflow-positive' },
  },
  {
    name: 'amex-us',
    description: 'American Express (US): charges positive, MM/DD/YYYY',
    match: ['Date', 'Description', 'Card Member', 'Account #', 'Amount'],
    columns: { date: 'Date', payee: 'Description', amount: 'Amount', date_format: 'MM/DD/YYYY', amount_sign: 'outflow-positive' },
  },
  {
    name: 'payoneer',
    description: 'Payoneer: MM/DD/YYYY, Credit Amount and Debit Amount',
    match: ['Transaction Date', 'Transaction Time', 'Transaction ID', 'Credit Amount', 'Debit Amount', 'Running Balance'],
    columns: { date: 'Transaction Date', payee: 'Description', credit: 'Credit Amount', debit: 'Debit Amount', date_format: 'MM/DD/YYYY' },
    balance: 'Running Balance',
    reference: 'Transaction ID',
    status: 'Status',
  },
  {
    name: 'capital-one-360',
    description: 'Capital One 360 (US): positive amounts, Debit or Credit in Transaction Type, MM/DD/YY',
    match: ['Account Number', 'Transaction Description', 'Transaction Date', 'Transaction Type', 'Transaction Amount'],
    columns: { date: 'Transaction Date', payee: 'Transaction Description', amount: 'Transaction Amount', date_format: 'MM/DD/YYYY' },
  },
  {
    name: 'barclays-uk',
    description: 'Barclays (UK): the payee in Memo, DD/MM/YYYY',
    match: ['Number', 'Date', 'Account', 'Amount', 'Subcategory', 'Memo'],
    columns: { date: 'Date', payee: 'Memo', amount: 'Amount', date_format: 'DD/MM/YYYY', amount_sign: 'outflow-negative' },
  },
  {
    name: 'monzo',
    description: 'Monzo (UK): DD/MM/YYYY, the payee in Name',
    match: ['Transaction ID', 'Date', 'Time', 'Name', 'Emoji', 'Amount'],
    columns: { date: 'Date', payee: 'Name', memo: 'Notes and #tags', amount: 'Amount', date_format: 'DD/MM/YYYY', amount_sign: 'outflow-negative' },
    reference: 'Transaction ID',
  },
  {
    name: 'starling',
    description: 'Starling (UK): DD/MM/YYYY, the payee in Counter Party, a Reference that is text',
    match: ['Date', 'Counter Party', 'Reference', 'Amount', 'Balance'],
    columns: { date: 'Date', payee: 'Counter Party', memo: 'Reference', amount: 'Amount', date_format: 'DD/MM/YYYY', amount_sign: 'outflow-negative' },
    balance: 'Balance',
  },
  {
    name: 'revolut',
    description: 'Revolut: Completed Date (blank while pending), State, a Fee taken off',
    match: ['Started Date', 'Completed Date', 'Description', 'Amount', 'Fee', 'State'],
    columns: { date: 'Completed Date', payee: 'Description', amount: 'Amount', date_format: 'YYYY-MM-DD', amount_sign: 'outflow-negative' },
    status: 'State',
    fee: 'Fee',
    currency: 'Currency',
    balance: 'Balance',
  },
  {
    name: 'ubs-ch-fr',
    description: 'UBS (CH, French): Débit and Crédit, DD.MM.YYYY, the payee in Description 2',
    match: ['Produit', 'Monn.', 'Date de valeur', 'Description 1', 'Description 2', 'Debit', 'Credit'],
    columns: { date: 'Date de valeur', payee: 'Description 2', memo: 'Description 1', debit: 'Debit', credit: 'Credit', date_format: 'DD.MM.YYYY' },
    currency: 'Monn.',
    balance: 'Solde',
  },
  {
    name: 'ing-nl',
    description: 'ING (NL): YYYYMMDD, unsigned Bedrag with Af or Bij',
    match: ['Datum', 'Naam / Omschrijving', 'Af Bij', 'Bedrag', 'Mededelingen'],
    columns: { date: 'Datum', payee: 'Naam / Omschrijving', memo: 'Mededelingen', amount: 'Bedrag', date_format: 'YYYYMMDD', decimal_separator: ',' },
  },
  {
    name: 'knab',
    description: 'Knab (NL): DD-MM-YYYY, unsigned Bedrag with CreditDebet D or C',
    match: ['Transactiedatum', 'CreditDebet', 'Bedrag', 'Tegenrekeninghouder', 'Omschrijving'],
    columns: {
      date: 'Transactiedatum',
      payee: 'Tegenrekeninghouder',
      memo: 'Omschrijving',
      amount: 'Bedrag',
      date_format: 'DD/MM/YYYY',
      decimal_separator: ',',
    },
    currency: 'Valutacode',
  },
  {
    name: 'rabobank',
    description: 'Rabobank (NL): signed Bedrag with decimal commas, Naam tegenpartij',
    match: ['IBAN/BBAN', 'Munt', 'Volgnr', 'Datum', 'Bedrag', 'Naam tegenpartij'],
    columns: { date: 'Datum', payee: 'Naam tegenpartij', memo: 'Omschrijving-1', amount: 'Bedrag', date_format: 'YYYY-MM-DD', decimal_separator: ',' },
    currency: 'Munt',
  },
  {
    name: 'sparkasse',
    description: 'Sparkasse (DE) CSV-CAMT: DD.MM.YY, Info "Umsatz vorgemerkt" for pending rows',
    match: ['Auftragskonto', 'Buchungstag', 'Valutadatum', 'Beguenstigter/Zahlungspflichtiger', 'Betrag', 'Info'],
    columns: { date: 'Buchungstag', payee: 'Beguenstigter/Zahlungspflichtiger', memo: 'Verwendungszweck', amount: 'Betrag', ...DE },
    status: 'Info',
  },
  {
    name: 'dkb',
    description: 'DKB (DE): DD.MM.YY, Status "Vorgemerkt", payer and payee apart',
    match: ['Buchungsdatum', 'Wertstellung', 'Status', 'Zahlungspflichtige*r', 'Zahlungsempfanger*in', 'Betrag'],
    columns: { date: 'Buchungsdatum', payee: 'Zahlungsempfanger*in', memo: 'Verwendungszweck', amount: 'Betrag', ...DE },
    payer: 'Zahlungspflichtige*r',
    status: 'Status',
  },
  {
    name: 'dkb-legacy',
    description: 'DKB (DE), before 2023: DD.MM.YYYY, Auftraggeber / Begünstigter',
    match: ['Buchungstag', 'Wertstellung', 'Buchungstext', 'Auftraggeber / Begunstigter', 'Betrag'],
    columns: { date: 'Buchungstag', payee: 'Auftraggeber / Begunstigter', memo: 'Verwendungszweck', amount: 'Betrag', ...DE },
  },
  {
    name: 'deutsche-bank',
    description: 'Deutsche Bank (DE): DD.MM.YYYY, Begünstigter / Auftraggeber, Soll and Haben',
    match: ['Buchungstag', 'Wert', 'Umsatzart', 'Begunstigter / Auftraggeber', 'Verwendungszweck'],
    columns: { date: 'Buchungstag', payee: 'Begunstigter / Auftraggeber', memo: 'Verwendungszweck', ...DE },
  },
  {
    name: 'commerzbank',
    description: 'Commerzbank (DE): DD.MM.YYYY, the payee within Buchungstext',
    match: ['Buchungstag', 'Wertstellung', 'Umsatzart', 'Buchungstext', 'Betrag', 'Auftraggeberkonto'],
    columns: { date: 'Buchungstag', payee: 'Buchungstext', amount: 'Betrag', ...DE },
  },
  {
    name: 'comdirect',
    description: 'comdirect (DE): DD.MM.YYYY, "offen" as the booking date of pending rows',
    match: ['Buchungstag', 'Wertstellung', 'Vorgang', 'Buchungstext', 'Umsatz'],
    columns: { date: 'Buchungstag', payee: 'Buchungstext', amount: 'Umsatz', ...DE },
  },
  {
    name: 'ing-de',
    description: 'ING (DE): DD.MM.YYYY, decimal commas, account lines above the header',
    match: ['Buchung', 'Auftraggeber/Empfanger', 'Buchungstext', 'Verwendungszweck', 'Betrag'],
    columns: { date: 'Buchung', payee: 'Auftraggeber/Empfanger', memo: 'Verwendungszweck', amount: 'Betrag', ...DE },
  },
  {
    name: 'postbank',
    description: 'Postbank (DE): DD.MM.YYYY, Auftraggeber and Empfänger apart',
    match: ['Buchungstag', 'Wert', 'Umsatzart', 'Buchungsdetails', 'Auftraggeber', 'Empfanger', 'Betrag'],
    columns: { date: 'Buchungstag', payee: 'Empfanger', memo: 'Buchungsdetails', amount: 'Betrag', ...DE },
    payer: 'Auftraggeber',
  },
];
