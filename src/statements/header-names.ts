/**
 * Header names of bank CSV exports by what the column holds, folded (foldHeader: lower case, no
 * accents, a bracketed or trailing currency dropped), most telling first: a posting date before a
 * transaction date (YNAB dates by posting), a counterparty's name before a description. English,
 * German, French, Dutch and Spanish names, as the banks of those countries write them.
 */

export type Field =
  | 'date'
  | 'payee'
  | 'memo'
  | 'amount'
  | 'inflow'
  | 'outflow'
  | 'debit'
  | 'credit'
  | 'balance'
  | 'status'
  | 'reference'
  | 'currency'
  /** The date a row was made, beside its booking date: a pending row has only this one. */
  | 'txdate'
  /** Who paid, where the export names payer and payee apart (the payee of money coming in). */
  | 'payer'
  /** A sign column: debit or credit, Af or Bij, S or H. */
  | 'direction';

export const ALIASES: Record<Field, readonly string[]> = {
  date: [
    'posting date',
    'posted date',
    'post date',
    'booking date',
    'completed date',
    'date',
    'transaction date',
    'trans. date',
    'trans date',
    'buchungstag',
    'buchungsdatum',
    'buchung',
    'datum',
    'date de comptabilisation',
    "date de l'operation",
    'date operation',
    'date operation',
    'dateop',
    'boekdatum',
    'transactiedatum',
    'fecha contable',
    'fecha operacion',
    'fecha',
    'f. valor',
    'datum des abschlusses',
    'konyveles datuma',
    'konyvelesi datum',
  ],
  payee: [
    'payee',
    'merchant name',
    'partner name',
    'counter party',
    'tegenrekeninghouder',
    'naam tegenpartij',
    'description',
    'merchant',
    'name',
    'counterparty',
    'transaction description',
    'details',
    'beguenstigter/zahlungspflichtiger',
    'begunstigter/zahlungspflichtiger',
    'begunstigter / auftraggeber',
    'auftraggeber / begunstigter',
    'auftraggeber/empfanger',
    'zahlungsempfanger*in',
    'empfanger',
    'name zahlungsbeteiligter',
    'zahlungsempfanger',
    'libelle',
    'libelle simplifie',
    'label',
    'naam / omschrijving',
    'naam',
    'omschrijving',
    'tegenpartij',
    'name des zahlungsbeteiligten',
    'partner neve',
    'ellenoldali nev',
    'beschreibung',
    'descripcion',
    'concepto',
    'desc',
    'description1',
    'buchungstext',
  ],
  memo: [
    'memo',
    'notes',
    'note',
    'verwendungszweck',
    'mededelingen',
    'informations complementaires',
    'libelle operation',
    "detail de l'ecriture",
    'detail',
    'payment reference',
    'omschrijving',
    'omschrijving-1',
    'comentario',
    'observaciones',
    'mas datos',
    'buchungsdetails',
    'kozlemeny',
  ],
  amount: [
    'amount',
    'transaction amount',
    'value',
    'betrag',
    'umsatz',
    'montant',
    "montant de l'operation",
    'montant operation',
    'bedrag',
    'importe',
    'osszeg',
  ],
  inflow: ['inflow', 'money in', 'paid in', 'deposits', 'deposit', 'gutschrift'],
  outflow: ['outflow', 'money out', 'paid out', 'withdrawals', 'withdrawal', 'belastung'],
  debit: ['debit', 'debit amount', 'soll'],
  credit: ['credit', 'credit amount', 'haben'],
  balance: [
    'balance',
    'running balance',
    'running bal.',
    'saldo',
    'saldo na mutatie',
    'saldo na trn',
    'saldo nach buchung',
    'kontostand',
    'solde',
    'accountbalance',
  ],
  status: ['status', 'state', 'info', 'buchungsstatus', 'transaction status', 'booking status', 'pending', 'estado', 'statut'],
  reference: ['reference', 'transaction id', 'reference number', 'fitid', 'referenz', 'bank reference'],
  currency: ['currency', 'waehrung', 'wahrung', 'devise', 'munt', 'valutacode', 'monn.', 'divisa', 'penznem'],
  txdate: [
    'transaction date',
    'started date',
    'datum des beginns',
    'valutadatum',
    'wertstellung',
    'wertstellungsdatum',
    'valuta',
    'tranzakcio datuma',
    'erteknap',
    'value date',
    'date de valeur',
    'rentedatum',
    'fecha valor',
  ],
  payer: ['zahlungspflichtige*r', 'auftraggeber'],
  direction: [
    'af bij',
    'af/bij',
    'bij/af',
    'creditdebet',
    'credit/debet',
    'debet/credit',
    'credit/debit',
    'debit/credit',
    'credit debit indicator',
    'debit credit indicator',
    'cdtdbtind',
    'cd',
    'c/d',
    'd/c',
    'cr/dr',
    'dr/cr',
    'soll/haben',
    's/h',
    '+/-',
    '-/+',
    'sign',
    'vorzeichen',
    'direction',
    'umsatztyp',
  ],
};

/**
 * Headers of a column naming the bank's own kind of row (Schwab's and Chase's "Type": ATM, CHECK,
 * ACH; Lloyds' "Transaction Type": CPT, DEB): kept on each row, since some rows say what they are
 * only there (a cash withdrawal whose text is the ATM's bank).
 */
export const KIND_HEADERS: readonly string[] = ['type', 'transaction type', 'trans. type', 'trans type'];

/**
 * Headers that name a kind of row rather than its sign ("Type": DEBIT_CARD, "Transaction Type":
 * Debit): a direction column only when every value is a debit or credit word.
 */
export const WEAK_DIRECTION = new Set(['type', 'transaction type', 'details', 'transaction', 'art', '']);

/**
 * Header words of languages whose countries all write the day first (German, French, Dutch,
 * Spanish): a file headed in them has 03/04/2024 as 3 April, where no date in it says.
 */
export const DAY_FIRST_HEADER = /datum|buchung|betrag|umsatz|fecha|importe|concepto|libelle|montant|solde|bedrag|omschrijving|saldo|wahrung|waehrung|osszeg/;
