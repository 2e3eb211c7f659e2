/**
 * Scheduled transactions and bank-side pending imports for the demo budgets. There is no domain
 * function for scheduled transactions (the handler builds them), so the records are made here
 * the same way: a transfer names its account, a transfer between two budget accounts has no
 * category, and a split's lines (which the API cannot create, but the apps can) sum to it.
 */
import type { ScheduledTransactionFrequency, TransactionFlagColor } from '../../api/schemas/common.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, CategoryRec, PayeeRec, ScheduledSubtransactionRec, ScheduledTransactionRec } from '../store/records.js';

export interface ScheduledSpec {
  date_first: string;
  frequency: ScheduledTransactionFrequency;
  account: AccountRec;
  payee: PayeeRec;
  /** Milliunits; ignored for a split (the lines' sum is used). */
  amount: number;
  category?: CategoryRec | null;
  memo?: string | null;
  flag?: TransactionFlagColor;
  lines?: { amount: number; category: CategoryRec | null; memo?: string | null }[];
}

/** Adds one scheduled transaction. Must run inside `store.change()`. */
export function addScheduled(store: BudgetStore, s: ScheduledSpec): ScheduledTransactionRec {
  const target = s.payee.transfer_account_id ? store.rec.accounts.get(s.payee.transfer_account_id) : undefined;
  const budgetTransfer = target !== undefined && target.on_budget && s.account.on_budget;
  const id = store.env.newId();
  const subtransactions = (s.lines ?? []).map(
    (l): ScheduledSubtransactionRec => ({
      id: store.env.newId(),
      amount: l.amount,
      memo: l.memo ?? null,
      payee_id: null,
      category_id: l.category?.id ?? null,
      transfer_account_id: null,
      deleted: false,
    }),
  );
  const rec = store.stamp<ScheduledTransactionRec>({
    id,
    date_first: s.date_first,
    frequency: s.frequency,
    amount: subtransactions.length ? subtransactions.reduce((sum, l) => sum + l.amount, 0) : s.amount,
    memo: s.memo ?? null,
    flag_color: s.flag ?? null,
    flag_name: null,
    account_id: s.account.id,
    payee_id: s.payee.id,
    category_id: subtransactions.length || budgetTransfer || !s.account.on_budget ? null : (s.category?.id ?? null),
    transfer_account_id: target?.id ?? null,
    subtransactions,
    deleted: false,
    knowledge: 0,
  });
  store.rec.scheduled_transactions.set(id, rec);
  return rec;
}

/** A transaction the linked account's bank has ready for `POST /transactions/import`. */
export function addPendingImport(store: BudgetStore, account: AccountRec, date: string, amount: number, payeeName: string, memo: string | null = null): void {
  store.rec.pending_imports.push({ account_id: account.id, date, amount, payee_name: payeeName, memo });
}
