/**
 * Where an account starts: the date of its starting balance (the transaction of YNAB's
 * "Starting Balance" payee), else of its earliest transaction; undefined for an empty account.
 * Nothing dated before it belongs to the account as YNAB knows it: a reconcile's adjustment
 * there is refused (reconcile-verdict.ts), and a statement's rows there are held apart
 * (statement-start.ts).
 */
import { STARTING_BALANCE_PAYEE } from '../../api/starting-balance.js';
import type { BudgetReplica } from '../../sync/replica.js';

export function accountStart(r: BudgetReplica, accountId: string): string | undefined {
  let starting: string | undefined;
  let earliest: string | undefined;
  for (const t of r.transactions.values()) {
    if (t.account_id !== accountId || t.deleted) continue;
    if (!earliest || t.date < earliest) earliest = t.date;
    const payee = t.payee_id ? r.payees.get(t.payee_id) : undefined;
    if (payee?.name === STARTING_BALANCE_PAYEE && !payee.transfer_account_id && (!starting || t.date < starting)) starting = t.date;
  }
  return starting ?? earliest;
}
