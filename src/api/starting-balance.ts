/**
 * The payee YNAB gives an account's opening balance (a transaction to Ready to Assign, or for a
 * tracking account straight to the account): what a line of it is depends on it (an opening
 * balance is money the account already held, never income), so the view, the alerts' change
 * tracking and the statement's start all find it by this one name.
 */
export const STARTING_BALANCE_PAYEE = 'Starting Balance';
