/**
 * Scheduled transactions and bank-side pending imports for the demo budgets, through the same
 * domain function the API uses.
 */
import type { ScheduledTransactionFrequency, TransactionFlagColor } from '../../api/schemas/common.js';
import type { BudgetStore } from '../store/budget-store.js';
import { insertScheduled } from '../domain/scheduled.js';
import type { AccountRec, CategoryRec, PayeeRec, ScheduledTransactionRec } from '../store/records.js';

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
  return insertScheduled(store, {
    account_id: s.account.id,
    date_first: s.date_first,
    frequency: s.frequency,
    amount: s.amount,
    memo: s.memo ?? null,
    flag_color: s.flag ?? null,
    payee_id: s.payee.id,
    category_id: s.category?.id ?? null,
    lines: s.lines?.map((l) => ({ amount: l.amount, category_id: l.category?.id ?? null, memo: l.memo ?? null })),
  });
}

/** A transaction the linked account's bank has ready for `POST /transactions/import`. */
export function addPendingImport(store: BudgetStore, account: AccountRec, date: string, amount: number, payeeName: string, memo: string | null = null): void {
  store.rec.pending_imports.push({ account_id: account.id, date, amount, payee_name: payeeName, memo });
}
