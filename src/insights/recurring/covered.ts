/**
 * Whether a schedule covers a recurring item the history shows: the same money, so it counts once
 * (as scheduled) in `forecast` and is listed once in `recurring`.
 */
import type * as E from '../../api/schemas/entities.js';
import type { Detected } from './recurring-detect.js';
import type { BudgetView } from '../core/view.js';

const sign = (n: number) => (n > 0 ? 1 : n < 0 ? -1 : 0);

/** A schedule covers a recurring item when it is the same money: same account and payee, or a transfer's other side. */
export function coveredBy(item: Detected, schedules: readonly E.ScheduledTransactionSummaryBase[], view: BudgetView): boolean {
  return schedules.some((s) => {
    if (s.account_id === item.account_id && s.payee_id === item.payee_id && sign(s.amount) === sign(item.typical)) return true;
    // The other side of a scheduled transfer: in this account, from the schedule's account.
    const other = item.transfer_account_id;
    return s.transfer_account_id === item.account_id && other === s.account_id && sign(-s.amount) === sign(item.typical) && view.onBudget(other);
  });
}
