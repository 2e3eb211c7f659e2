/**
 * Payees: created by name, found by name (case-insensitive, as the service matches names),
 * and one transfer payee per account ("Transfer : <account name>").
 */
import type { BudgetStore } from '../store/budget-store.js';
import type { PayeeRec } from '../store/records.js';

export function findPayeeByName(b: BudgetStore, name: string): PayeeRec | undefined {
  const wanted = name.trim().toLowerCase();
  for (const p of b.rec.payees.values()) {
    if (!p.deleted && p.transfer_account_id === null && p.name.toLowerCase() === wanted) return p;
  }
  return undefined;
}

export function createPayee(b: BudgetStore, name: string, transferAccountId: string | null = null): PayeeRec {
  const payee = b.stamp<PayeeRec>({ id: b.env.newId(), name, transfer_account_id: transferAccountId, deleted: false, knowledge: 0 });
  b.rec.payees.set(payee.id, payee);
  return payee;
}

/** The payee named `name`, created if there is none yet. */
export function payeeNamed(b: BudgetStore, name: string): PayeeRec {
  return findPayeeByName(b, name) ?? createPayee(b, name.trim());
}

export const transferPayeeName = (accountName: string) => `Transfer : ${accountName}`;
