/**
 * What "Demo Household" has scheduled and what its bank has ready to import. Recurring
 * schedules may have started in the past (their next date is computed); every other first
 * date is in the future, as the API requires.
 */
import { addDays, addMonths, monthOf } from '../../api/dates.js';
import type { ScheduledTransactionFrequency } from '../../api/schemas/common.js';
import { dayIn } from './history.js';
import type { Household } from './household-state.js';
import { addPendingImport, addScheduled } from './scheduled.js';

const U = 1000;

/** The first date on or after `from` that is day `day` of a month `step` months apart from `anchor`. */
function nextOnCycle(anchor: string, step: number, day: number, from: string): string {
  let date = dayIn(anchor, day);
  while (date <= from) date = dayIn(addMonths(monthOf(date), step), day);
  return date;
}

export function addHouseholdScheduled(h: Household): void {
  const { store, acc, cat, rta, today, firstMonth } = h;
  const nextMonth = addMonths(monthOf(today), 1);
  const s = (frequency: ScheduledTransactionFrequency, date_first: string, rest: Omit<Parameters<typeof addScheduled>[1], 'frequency' | 'date_first'>) =>
    addScheduled(store, { frequency, date_first, ...rest });

  s('monthly', dayIn(firstMonth, 1), { account: acc.checking, payee: h.payee('Oakwood Apartments'), amount: -1650 * U, category: cat.rent });
  s('twiceAMonth', dayIn(firstMonth, 1), { account: acc.checking, payee: h.payee('Acme Corp Payroll'), amount: 2450 * U, category: rta, memo: 'Paycheck' });
  s('monthly', dayIn(firstMonth, 7), { account: acc.visa, payee: h.payee('Netflix'), amount: -15_490, category: cat.subscriptions });
  s('yearly', nextOnCycle(addMonths(firstMonth, 2), 12, 9, today), {
    account: acc.visa,
    payee: h.payee('Amazon Prime'),
    amount: -139 * U,
    category: cat.subscriptions,
    memo: 'Yearly renewal',
  });
  s('every3Months', nextOnCycle(addMonths(firstMonth, 1), 3, 10, today), {
    account: acc.checking,
    payee: h.payee('GEICO'),
    amount: -420 * U,
    category: cat.car_ins,
    memo: 'Auto policy, 3 months',
  });
  s('twiceAYear', dayIn(addMonths(firstMonth, 4), 15), { account: acc.checking, payee: h.payee('State Farm'), amount: -780 * U, category: cat.home_ins });
  // The end-of-month savings transfer (household-months.ts), as the household plans it: next
  // month's is the next one, since this month's move between checking and savings is already in
  // the register, made today (a projection would otherwise count this month's twice).
  s('monthly', dayIn(nextMonth, 31), {
    account: acc.checking,
    payee: h.transferTo(acc.savings),
    amount: -600 * U,
    memo: 'Monthly savings',
  });
  s('monthly', dayIn(firstMonth, 5), {
    account: acc.checking,
    payee: h.transferTo(acc.mortgage),
    amount: -1150 * U,
    category: cat.mortgage,
    memo: 'Cabin loan payment',
  });
  s('never', dayIn(nextMonth, 12), {
    account: acc.checking,
    payee: h.payee('Dr. Patel Dental'),
    amount: -250 * U,
    category: cat.medical,
    memo: 'Crown, second visit',
    flag: 'purple',
  });
  s('everyOtherWeek', addDays(today, 3), {
    account: acc.checking,
    payee: h.payee('Lakeside Lawn Care'),
    amount: -45 * U,
    category: cat.home_maint,
    memo: 'Cabin lawn',
  });
  s('monthly', addDays(today, 6), {
    account: acc.visa,
    payee: h.payee('Costco'),
    amount: 0,
    memo: 'Monthly stock-up',
    lines: [
      { amount: -180 * U, category: cat.groceries! },
      { amount: -55 * U, category: cat.household!, memo: 'Paper goods' },
      { amount: -25_500, category: cat.pets!, memo: 'Dog food' },
    ],
  });

  // The bank's next import: the hand-entered Whole Foods purchase, and two new ones whose
  // amounts match nothing entered by hand lately (so they import as new transactions).
  const entered = new Set<number>();
  const since = addDays(today, -14);
  for (const t of store.rec.transactions.values()) {
    if (t.account_id === acc.checking.id && t.date >= since && t.import_id === null) entered.add(t.amount);
  }
  const fresh = (amount: number) => {
    while (entered.has(amount)) amount -= 10;
    return amount;
  };
  const handEntered = h.extras.find((e) => e.payee.name === 'Whole Foods Market');
  const pending: [number, number, string][] = [
    [1, handEntered ? handEntered.amount : fresh(-h.rng.cents(40, 90)), 'Whole Foods Market'],
    [2, fresh(-h.rng.cents(20, 80)), "Trader Joe's"],
    [3, fresh(-h.rng.cents(30, 60)), 'Arco'],
  ];
  for (const [daysAgo, amount, name] of pending) {
    const date = addDays(today, -daysAgo);
    if (date >= firstMonth) addPendingImport(store, acc.checking, date, amount, name);
  }
}
