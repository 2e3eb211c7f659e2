/**
 * The kinds of account people total their money by, as YNAB's account list groups them: cash and
 * savings (checking, savings, cash), credit cards, lines of credit (apart: "what do we owe on our
 * cards" is not a home equity line's balance), loans and mortgages (YNAB's debt account types),
 * and other tracking accounts (other assets and liabilities). Net worth is every open account's
 * balance, whatever its kind.
 */
import type { AccountType } from './schemas/common.js';

export const ACCOUNT_KINDS = ['cash_and_savings', 'credit_cards', 'lines_of_credit', 'loans_and_mortgages', 'other_tracking'] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

const KIND_OF: Record<AccountType, AccountKind> = {
  checking: 'cash_and_savings',
  savings: 'cash_and_savings',
  cash: 'cash_and_savings',
  creditCard: 'credit_cards',
  lineOfCredit: 'lines_of_credit',
  mortgage: 'loans_and_mortgages',
  autoLoan: 'loans_and_mortgages',
  studentLoan: 'loans_and_mortgages',
  personalLoan: 'loans_and_mortgages',
  medicalDebt: 'loans_and_mortgages',
  otherDebt: 'loans_and_mortgages',
  otherAsset: 'other_tracking',
  otherLiability: 'other_tracking',
};

/** The kind an account's type falls under (an unknown type, from a newer API, as other tracking). */
export function accountKind(type: string): AccountKind {
  return KIND_OF[type as AccountType] ?? 'other_tracking';
}
