/**
 * One-line descriptions of tool arguments, by API field name. Every host pays for these in every
 * conversation, so each says what the name and schema do not (units, where a value comes from,
 * what null does), once: split lines are not described again, and what every tool shares
 * (budget_id takes an id or a name and defaults to the server's budget; accounts, categories,
 * groups and payees take an id or an exact name; fields and detail) is said in the server's
 * instructions. Fields whose name and enum say it all have none.
 */
export const FIELD_DOCS: Record<string, string> = {
  payee_id: 'A transfer payee makes a transfer.',
  month: 'YYYY-MM-01 or "current".',
  since_date: 'YYYY-MM-DD; default a year ago.',
  until_date: 'YYYY-MM-DD.',
  include_accounts: "Also list each budget's accounts.",
  date: 'YYYY-MM-DD.',
  payee_name: 'If no payee_id (made if new).',
  import_id: 'Unique per account; a repeat is a duplicate.',
  subtransactions: 'Split lines summing to amount (no category_id), in units or milliunits.',
  id: 'Transaction id (or give import_id).',
  goal_target_date: 'Target date (YYYY-MM-DD); null clears it.',
  goal_needs_whole_amount: 'NEED targets: true = the whole target each period; false = refill up to it.',
  type: 'Only uncategorized or unapproved.',
  limit: 'Default 50; fewer past the size cap.',
  include_all: 'Also hidden and all-zero categories.',
};

/** Said only where a field is changed, not where it is created (nothing to clear there). */
export const UPDATE_DOCS: Record<string, string> = {
  memo: 'null clears it.',
  note: 'null clears it.',
};

/** What each money field means; the argument pair is `<field>` (decimal units) or `<field>_milliunits`. */
export const MONEY_DOCS: Record<string, string> = {
  amount: 'In currency units, e.g. -12.34 (an outflow).',
  balance: 'Starting balance in currency units (negative for debt).',
  budgeted: 'Assigned in the month, in currency units.',
  goal_target: 'Target in currency units; null removes it.',
};

/** Said of every `<field>_milliunits` twin. */
export const MILLIUNITS_DOC = 'Or in milliunits.';

/**
 * Enum arguments: each value named, with what it does (issue 58 item 9), where the model reads
 * the argument. Terse: the default list's tools pay for every byte.
 */
export const ENUM_DOCS = {
  cleared: 'cleared: the bank has it; uncleared: not yet; reconciled: locked.',
  /** The API's flag (create and update): "" or null clears it. */
  flag_color: 'red, orange, yellow, green, blue or purple; "" or null: no flag.',
  /** A filter's flag. */
  flag_filter: 'red, orange, yellow, green, blue or purple; none: no flag.',
  /** A rule's flag: null clears it. */
  flag_rule: 'red, orange, yellow, green, blue or purple; null: no flag.',
  direction: 'outflow: money out; inflow: money in.',
  goal_frequency: 'monthly, weekly or yearly: repeat it (needs goal_target, not goal_target_date).',
  frequency:
    'never: once; daily, weekly, everyOtherWeek, twiceAMonth, every4Weeks, monthly, everyOtherMonth, every3Months, every4Months, twiceAYear, yearly, everyOtherYear.',
  account_type: 'checking, savings, cash: on budget; creditCard: on budget, with a payment category; otherAsset, otherLiability: tracking.',
  detail: 'compact or full.',
  text_kind: 'exact: all of it; prefix: its start; contains: any part; regex: a regular expression.',
  format: 'auto (default): from the content; csv, ofx, qfx, qif, camt053/camt052/camt054 (ISO 20022), mt940/mt942 (SWIFT).',
  date_format: "The CSV's dates: YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY, DD.MM.YYYY or YYYYMMDD.",
  amount_sign: 'outflow-negative: spending is negative; outflow-positive: spending is positive.',
  decimal_separator: 'The decimal mark: "." or ",".',
} as const;
