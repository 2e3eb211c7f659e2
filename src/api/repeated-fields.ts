/**
 * Fields of the API's rows whose string values repeat across many rows (the ids of accounts,
 * payees and categories, dates, cleared states): an answer's parser keeps one copy of each
 * (json-stream.ts ParserOptions.share), and so does a replica (sync/string-pool.ts).
 */

/** Of a transaction. */
export const TRANSACTION_SHARED = [
  'date',
  'cleared',
  'flag_color',
  'flag_name',
  'account_id',
  'payee_id',
  'category_id',
  'transfer_account_id',
  'debt_transaction_type',
] as const;
/** Of a split line. */
export const LINE_SHARED = ['transaction_id', 'payee_id', 'category_id', 'transfer_account_id'] as const;

/** Every field above: what an answer's parser shares. */
export const REPEATED_FIELDS: ReadonlySet<string> = new Set([...TRANSACTION_SHARED, ...LINE_SHARED]);
