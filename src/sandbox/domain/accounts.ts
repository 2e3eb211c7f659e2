/**
 * Accounts: each comes with its transfer payee, a starting balance transaction, and, for an
 * on-budget credit card or line of credit, a payment category. A credit account's opening debt
 * is debt, not spending: it does not touch Ready to Assign (budget-math.ts), and its payment
 * category gets the target YNAB's "budget for my entire balance" gives it, the opening debt
 * as a "Pay Specific Amount Each Month" (MF) target, so it shows as underfunded until the user
 * assigns to it.
 */
import { monthOf } from '../../api/dates.js';
import type { AccountType } from '../../api/schemas/common.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, GoalRec } from '../store/records.js';
import { createPaymentCategory, goalRec } from './categories.js';
import { createPayee, payeeNamed, transferPayeeName } from './payees.js';
import { insertTransaction } from './transactions.js';

/** Account types the service budgets by default (tracking types are off budget). */
export const ON_BUDGET_BY_DEFAULT = new Set<AccountType>(['checking', 'savings', 'cash', 'creditCard', 'lineOfCredit']);
const CREDIT_TYPES = new Set<AccountType>(['creditCard', 'lineOfCredit']);

export interface NewAccount {
  name: string;
  type: AccountType;
  /** Starting balance in milliunits. */
  balance: number;
  date: string;
  on_budget?: boolean;
  note?: string | null;
  direct_import_linked?: boolean;
  debt?: Pick<AccountRec, 'debt_interest_rates' | 'debt_minimum_payments' | 'debt_escrow_amounts'>;
}

export function createAccount(b: BudgetStore, spec: NewAccount): AccountRec {
  const id = b.env.newId();
  const transferPayee = createPayee(b, transferPayeeName(spec.name), id);
  const account = b.stamp<AccountRec>({
    id,
    name: spec.name,
    type: spec.type,
    on_budget: spec.on_budget ?? ON_BUDGET_BY_DEFAULT.has(spec.type),
    closed: false,
    note: spec.note ?? null,
    transfer_payee_id: transferPayee.id,
    direct_import_linked: spec.direct_import_linked ?? false,
    direct_import_in_error: false,
    last_reconciled_at: null,
    debt_interest_rates: spec.debt?.debt_interest_rates ?? null,
    debt_minimum_payments: spec.debt?.debt_minimum_payments ?? null,
    debt_escrow_amounts: spec.debt?.debt_escrow_amounts ?? null,
    deleted: false,
    knowledge: 0,
  });
  b.rec.accounts.set(id, account);
  if (account.on_budget && CREDIT_TYPES.has(account.type)) {
    const payment = createPaymentCategory(b, id, account.name);
    if (spec.balance < 0) payment.goal = openingDebtTarget(-spec.balance, monthOf(spec.date));
  }
  // The starting balance is categorized to Ready to Assign on a budget account: cash is income,
  // a credit account's debt only debt (budget-math.ts).
  insertTransaction(b, {
    account_id: id,
    date: spec.date,
    amount: spec.balance,
    payee_id: payeeNamed(b, 'Starting Balance').id,
    category_id: account.on_budget ? (b.categoryByRole('ready_to_assign')?.id ?? null) : null,
    cleared: 'cleared',
    approved: true,
    memo: null,
  });
  return account;
}

/** The target a credit account's payment category gets for its opening debt. */
export function openingDebtTarget(debt: number, month: string): GoalRec {
  return goalRec(month, { type: 'MF', target: debt });
}
