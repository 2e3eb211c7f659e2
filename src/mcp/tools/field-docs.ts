/**
 * One-line descriptions of tool arguments, by API field name. Shown to assistants in every
 * tool's input schema, so they say units and where ids come from.
 */
export const FIELD_DOCS: Record<string, string> = {
  budget_id: 'Budget id, or "last-used" / "default". Optional: the server\'s default budget is used when omitted.',
  account_id: 'Account id (see list_accounts).',
  category_id: 'Category id (see list_categories).',
  category_group_id: 'Category group id (see list_categories).',
  payee_id: 'Payee id (see list_payees). To make a transfer, use the other account\'s transfer_payee_id.',
  payee_location_id: 'Payee location id (see list_payee_locations).',
  transaction_id: 'Transaction id (see list_transactions).',
  scheduled_transaction_id: 'Scheduled transaction id (see list_scheduled_transactions).',
  month: 'Budget month: the first day of the month as YYYY-MM-01, or "current".',
  since_date: 'Only transactions on or after this date (YYYY-MM-DD). The API defaults to one year ago when omitted.',
  until_date: 'Only transactions on or before this date (YYYY-MM-DD).',
  type: 'Only "uncategorized" or only "unapproved" transactions.',
  include_accounts: 'Also list each budget\'s accounts.',
  date: 'Date as YYYY-MM-DD (UTC). Transactions cannot be dated in the future.',
  payee_name: 'Payee by name, used when payee_id is not given: an existing payee with that name, else a new one.',
  memo: 'Memo (up to 500 characters); null clears it.',
  cleared: 'Cleared status: cleared, uncleared or reconciled.',
  approved: 'Whether the transaction is approved.',
  flag_color: 'Flag: red, orange, yellow, green, blue, purple; "" or null for none.',
  import_id: 'Import id (up to 36 characters), unique per account: a second transaction with the same one is reported as a duplicate instead of created.',
  subtransactions: 'Split lines; their amounts must add up to the transaction amount. Leave category_id out (or null) for a split.',
  id: 'Id of the transaction to update (or give import_id instead).',
  name: 'Name.',
  note: 'Note; null clears it.',
  type_account: 'Account type: checking, savings, cash, creditCard, otherAsset or otherLiability.',
  goal_target_date: 'Target date (YYYY-MM-DD) of the category\'s goal; null clears it.',
  goal_needs_whole_amount: 'For "needed for spending" (NEED) goals: true = set aside the whole target each month, false = refill up to it.',
  goal_frequency: 'Repeat the target monthly, weekly or yearly (needs goal_target; not with goal_target_date).',
  frequency: 'How often it repeats: never, daily, weekly, everyOtherWeek, twiceAMonth, every4Weeks, monthly, everyOtherMonth, every3Months, every4Months, twiceAYear, yearly, everyOtherYear.',
  detail: '"compact" (default): the fields an assistant needs, names resolved; "full": every field the API returns.',
  fields: 'Only these fields of each item (id and name are always included), e.g. ["date","amount_formatted","payee_name"]; for category lists, fields of each category.',
  limit: 'At most this many items (default 50, at most 500).',
  cursor: 'Continue a previous answer: pass its next_cursor, with the same other arguments.',
};

/** What each money field means; the argument pair is `<field>` (decimal units) or `<field>_milliunits`. */
export const MONEY_DOCS: Record<string, string> = {
  amount: 'Amount: negative for money going out (outflow), positive for money coming in (inflow).',
  balance: 'Starting balance of the account (negative for debt).',
  budgeted: 'Amount assigned to the category in this month.',
  goal_target: 'Target amount of the category\'s goal; null removes the target.',
};
