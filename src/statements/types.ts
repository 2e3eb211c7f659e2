/**
 * The shapes of a bank statement file once read: rows in YNAB's sign and milliunits, the file's
 * own closing balance where it has one, and what was decided on the way (for the preview).
 */
import { ArgumentError } from '../shared/argument-error.js';

/** The formats written (`sandbox statement`) and read. */
export type StatementFormat = 'csv' | 'ofx' | 'qfx' | 'qif' | 'camt053';
export const STATEMENT_FORMATS: readonly StatementFormat[] = ['csv', 'ofx', 'qfx', 'qif', 'camt053'];
/** The formats read only: other ISO 20022 reports and SWIFT statements, as banks send them. */
export type ReadFormat = StatementFormat | 'camt052' | 'camt054' | 'mt940' | 'mt942';
export const READ_FORMATS: readonly ReadFormat[] = [...STATEMENT_FORMATS, 'camt052', 'camt054', 'mt940', 'mt942'];

export interface StatementRow {
  /** 1-based line of the file where the row starts (for messages). */
  line: number;
  /** YYYY-MM-DD: the posting/booking date. */
  date: string;
  /** Integer milliunits, YNAB's sign: money out of the account is negative. */
  amount: number;
  /** The payee/description as the bank gives it (control characters removed, trimmed). */
  payee: string;
  memo?: string;
  /** The file marks it pending / not booked. */
  pending?: boolean;
  /** FITID, CAMT AcctSvcrRef/NtryRef, a CSV reference column: when the file has one. */
  bank_id?: string;
  /** The bank's own kind of row, where the file names it apart from the text (a CSV Type column: ATM, CHECK, ACH; OFX TRNTYPE). */
  kind?: string;
}

export interface ParsedStatement {
  format: ReadFormat;
  /** CSV: the preset recognised, or 'columns' (given), or 'detected'. */
  preset?: string;
  rows: StatementRow[];
  /** The file's ledger/closing balance (OFX LEDGERBAL, CAMT CLBD, a CSV running balance's latest row). */
  balance?: { amount: number; date: string };
  /** The days the statement covers, where the file says (OFX BANKTRANLIST DTSTART and DTEND). */
  period?: { from: string; to: string };
  currency?: string;
  /** The account the statement is of, as the file names it: where a file may hold several (OFX, QIF). */
  account?: FileAccount;
  /** What was decided and how, for the preview. */
  decisions: string[];
}

/** An account as a statement file names it: OFX BANKACCTFROM/CCACCTFROM, a QIF !Account block. */
export interface FileAccount {
  /** OFX ACCTID (often masked: "XXXX1234"). */
  number?: string;
  /** QIF N (the account's name in Quicken). */
  name?: string;
  /** What kind of account, in YNAB's words (checking, savings, cash, creditCard, lineOfCredit, otherAsset, otherLiability), or 'bank' (QIF's Bank: checking or savings). */
  type?: string;
  /** Line where the statement (OFX STMTRS/CCSTMTRS) or QIF section starts. */
  line: number;
}

export type DateFormat = 'YYYY-MM-DD' | 'MM/DD/YYYY' | 'DD/MM/YYYY' | 'DD.MM.YYYY' | 'YYYYMMDD';
export const DATE_FORMATS: readonly DateFormat[] = ['YYYY-MM-DD', 'MM/DD/YYYY', 'DD/MM/YYYY', 'DD.MM.YYYY', 'YYYYMMDD'];

/** Names of header cells (case-insensitive), or 1-based column numbers as strings. */
export interface CsvColumns {
  /** Each column not given is found from the header as without `columns`. */
  date?: string;
  payee?: string;
  memo?: string;
  amount?: string;
  inflow?: string;
  outflow?: string;
  debit?: string;
  credit?: string;
  date_format?: DateFormat;
  amount_sign?: 'outflow-negative' | 'outflow-positive';
  decimal_separator?: '.' | ',';
  /** A sign column: "column", or "column:debit values/credit values" (comma-separated): "Af Bij:Af/Bij". */
  direction?: string;
  /** A status column: "column", or "column:pending values" (comma-separated): "State:PENDING". */
  status?: string;
}

/**
 * Why a file is refused, in parts (src/statements/refusal.ts writes the message from them): where
 * (a line, an element), what was found, what was expected, and the argument that would fix it.
 */
export interface RefusalParts {
  line?: number;
  element?: string;
  found: string;
  expected: string;
  fix?: string;
}

/** A file that cannot be read as it stands: the message names the line and what is expected. */
export class StatementError extends ArgumentError {
  override readonly name = 'StatementError';
  constructor(
    message: string,
    /** The parts of the message, where the reader gave them (refuse() in refusal.ts). */
    readonly parts?: RefusalParts,
  ) {
    super(message);
  }
}

/** Refused before parsing: a statement is a month or a year of one account, not an archive. */
export const STATEMENT_LIMITS = { bytes: 2_097_152, rows: 10_000 } as const;

/** No bank export has more; a wider row is a wrong delimiter or a hostile file. */
export const MAX_COLUMNS = 200;
