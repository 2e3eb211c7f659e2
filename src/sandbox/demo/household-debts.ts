/**
 * The household's other debts, added to YNAB this month (so their history is only the starting
 * balance): a car loan and a student loan with YNAB's loan terms beside the cabin mortgage, and
 * a store card whose balance is carried from before, with nothing set aside for it yet. They give
 * debt_payoff loans to order and card coverage a card its payment category does not cover.
 */
import { monthOf } from '../../api/dates.js';
import { createAccount } from '../domain/accounts.js';
import type { AccountRec } from '../store/records.js';
import type { Household } from './household-state.js';

const U = 1000;

/** The accounts, in the order they are opened. */
export function addHouseholdDebts(h: Household): AccountRec[] {
  const { store, firstMonth } = h;
  const month = monthOf(h.today);
  return [
    createAccount(store, {
      name: 'Subaru Auto Loan',
      type: 'autoLoan',
      balance: -18_450 * U,
      date: month,
      note: 'Five years from the dealer, two in',
      // Rates in thousandths of a percent (6900 = 6.9%), as YNAB sends them.
      debt: { debt_interest_rates: { [firstMonth]: 6900 }, debt_minimum_payments: { [firstMonth]: 425 * U }, debt_escrow_amounts: null },
    }),
    createAccount(store, {
      name: 'Federal Student Loan',
      type: 'studentLoan',
      balance: -23_800 * U,
      date: month,
      debt: { debt_interest_rates: { [firstMonth]: 4500 }, debt_minimum_payments: { [firstMonth]: 260 * U }, debt_escrow_amounts: null },
    }),
    createAccount(store, { name: 'Citi Store Card', type: 'creditCard', balance: -1_240 * U, date: month, note: 'Carried from before YNAB' }),
  ];
}
