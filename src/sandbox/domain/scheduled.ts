/**
 * Scheduled transactions: where their category is kept (the rule transactions follow) and
 * how one is inserted. Used by the API handler and by the demo budgets.
 */
import type { ScheduledTransactionFrequency, TransactionFlagColor } from '../../api/schemas/common.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, ScheduledSubtransactionRec, ScheduledTransactionRec } from '../store/records.js';
import { transferCategories } from './transactions.js';

/** As on transactions: no category off budget, nor on a transfer between two budget accounts. */
export function scheduledCategory(account: AccountRec, target: AccountRec | undefined, category: string | null): string | null {
  if (target) return transferCategories(account, target, category).from;
  return account.on_budget ? category : null;
}

export interface NewScheduled {
  account_id: string;
  date_first: string;
  frequency: ScheduledTransactionFrequency;
  amount: number;
  memo: string | null;
  flag_color: TransactionFlagColor;
  payee_id: string | null;
  category_id: string | null;
  /** Split lines (the apps can make them; the API cannot): the amount is their sum. */
  lines?: { amount: number; category_id: string | null; memo: string | null }[];
}

/** Inserts a scheduled transaction. Must run inside `b.change()`. */
export function insertScheduled(b: BudgetStore, spec: NewScheduled): ScheduledTransactionRec {
  const account = b.account(spec.account_id)!;
  const target = b.accountOfTransferPayee(spec.payee_id);
  const subtransactions = (spec.lines ?? []).map((l): ScheduledSubtransactionRec => ({
    id: b.env.newId(),
    amount: l.amount,
    memo: l.memo,
    payee_id: null,
    category_id: l.category_id,
    transfer_account_id: null,
    deleted: false,
  }));
  const split = subtransactions.length > 0;
  const rec = b.stamp<ScheduledTransactionRec>({
    id: b.env.newId(),
    date_first: spec.date_first,
    frequency: spec.frequency,
    amount: split ? subtransactions.reduce((sum, l) => sum + l.amount, 0) : spec.amount,
    memo: spec.memo,
    flag_color: spec.flag_color,
    flag_name: null,
    account_id: account.id,
    payee_id: spec.payee_id,
    category_id: split ? b.rec.split_category_id : scheduledCategory(account, target, spec.category_id),
    transfer_account_id: target?.id ?? null,
    subtransactions,
    deleted: false,
    knowledge: 0,
  });
  b.rec.scheduled_transactions.set(rec.id, rec);
  return rec;
}
