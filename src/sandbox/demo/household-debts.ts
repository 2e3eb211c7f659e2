/**
 * The household's other debts, added to YNAB this month (so their history is only the starting
 * balance): a car loan and a student loan with YNAB's loan terms beside the cabin mortgage, and
 * a store card whose balance is carried from before. They give debt_payoff loans to order and
 * card coverage a card its payment category does not cover. The store card is paid as a real
 * card must be: its minimum is assigned to its payment category and paid this month (no later
 * than today, so the month that opened it has its payment), the rest of the balance carried.
 */
import { monthOf } from '../../api/dates.js';
import { createAccount } from '../domain/accounts.js';
import type { AccountRec } from '../store/records.js';
import { dayIn, type MonthSlot, type Planned } from './history.js';
import type { Household } from './household-state.js';

const U = 1000;
/** The store card's minimum payment: about 1% of its balance and a month's interest at 27%. */
export const STORE_CARD_MINIMUM = 45 * U;

/** Opens the accounts (in the order they are opened); returns the store card's minimum payment of this month. */
export function addHouseholdDebts(h: Household, slot: MonthSlot): Planned[] {
  const [card] = openDebts(h).slice(-1);
  // Budgeting gives a card's payment category the debt it is to pay this month (budgeting.ts).
  h.debts.set(card!.id, STORE_CARD_MINIMUM);
  const date = dayIn(slot.month, Math.min(15, Number(slot.last.slice(8, 10))));
  const pay = () => h.ledger.post({ date, account: h.acc.checking, amount: -STORE_CARD_MINIMUM, payee: h.transferTo(card!), memo: 'Minimum payment' });
  return [{ date, records: 2, run: pay }];
}

function openDebts(h: Household): AccountRec[] {
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
