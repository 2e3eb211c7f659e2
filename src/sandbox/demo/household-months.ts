/**
 * One month of "Demo Household" transactions: the fixed backbone (pay, rent, bills, transfers
 * between accounts, loan payments, seasonal and one-off events) and the everyday purchases that
 * fill the month up to the requested count. Amounts that depend on balances (the card
 * statement, the loan payoff, the cash top-up) are taken when planned, from the month's
 * opening balances, or when posted, from what the month planned.
 */
import { addDays } from '../../api/dates.js';
import { dayIn, type MonthSlot, type Planned } from './history.js';
import type { Household } from './household-state.js';
import type { DemoLine, Entry } from './ledger.js';

const U = 1000;

/** Cents-exact interest for a month: balance × rate (milliunits of a percent) / 12. */
function monthlyInterest(balance: number, rate: number): number {
  return Math.floor((Math.abs(balance) * rate) / (100_000 * 12) / 10) * 10;
}

/** The rate in effect on `date` in a map keyed by ISO date. */
export function rateOn(rates: Record<string, number>, date: string): number {
  let rate = 0;
  for (const [from, value] of Object.entries(rates).sort()) if (from <= date) rate = value;
  return rate;
}

export function planHouseholdMonth(h: Household, slot: MonthSlot): Planned[] {
  const { acc, cat, rng, ledger } = h;
  const items: Planned[] = [];
  const month = Number(slot.month.slice(5, 7));
  const i = slot.index;
  const at = (date: string, make: () => Entry, records = 1) => {
    if (date >= slot.month && date <= slot.last) items.push({ date, records, run: () => ledger.post(make()) });
  };
  const on = (day: number, make: () => Entry, records = 1) => at(dayIn(slot.month, day), make, records);
  const spend = (day: number, account: Entry['account'], payee: string, units: number, category: string, memo: string | null = null) =>
    on(day, () => ({ date: dayIn(slot.month, day), account, amount: -units, payee: h.payee(payee), category: cat[category], memo }));

  // Pay, twice a month, and a bonus every March.
  for (const day of [1, 16])
    on(day, () => ({
      date: dayIn(slot.month, day),
      account: acc.checking,
      amount: 2450 * U,
      payee: h.payee('Acme Corp Payroll'),
      category: h.rta,
      memo: null,
    }));
  if (month === 3)
    on(20, () => ({
      date: dayIn(slot.month, 20),
      account: acc.checking,
      amount: 2500 * U,
      payee: h.payee('Acme Corp Payroll'),
      category: h.rta,
      memo: 'Annual bonus',
    }));

  // Housing and the cabin loan: interest and escrow charged on the loan, the payment from checking.
  spend(1, acc.checking, 'Oakwood Apartments', 1650 * U, 'rent', rng.chance(0.3) ? 'Rent' : null);
  const mortgageOwed = ledger.balance(acc.mortgage);
  on(1, () => ({
    date: dayIn(slot.month, 1),
    account: acc.mortgage,
    amount: -monthlyInterest(mortgageOwed, rateOn(acc.mortgage.debt_interest_rates ?? {}, slot.month)),
    payee: h.payee('Columbia Bank'),
    memo: 'Interest',
    debtType: 'interest',
    flag: null,
  }));
  on(1, () => ({
    date: dayIn(slot.month, 1),
    account: acc.mortgage,
    amount: -200 * U,
    payee: h.payee('Columbia Bank'),
    memo: 'Escrow',
    debtType: 'escrow',
    flag: null,
  }));
  on(
    5,
    () => ({
      date: dayIn(slot.month, 5),
      account: acc.checking,
      amount: -1150 * U,
      payee: h.transferTo(acc.mortgage),
      category: cat.mortgage,
      memo: 'Cabin loan payment',
      pairDebtType: 'payment',
    }),
    2,
  );

  // Utilities and subscriptions.
  const winter = month <= 3 || month >= 11;
  spend(12, acc.checking, 'Portland General Electric', rng.cents(winter ? 110 : 65, winter ? 165 : 110), 'electric');
  spend(20, acc.checking, 'Portland Water Bureau', rng.cents(40, 65), 'water');
  spend(5, acc.checking, 'Comcast Xfinity', 70 * U, 'internet');
  spend(8, acc.visa, 'Verizon Wireless', 85 * U, 'phone');
  spend(7, acc.visa, 'Netflix', 15_490, 'subscriptions');
  spend(14, acc.visa, 'Spotify', 10_990, 'subscriptions');
  spend(21, acc.visa, 'Apple iCloud', 2_990, 'subscriptions');
  if (month === h.primeMonth) spend(9, acc.visa, 'Amazon Prime', 139 * U, 'subscriptions', 'Yearly renewal');
  spend(15, acc.checking, 'Oregon Food Bank', 50 * U, 'charity');
  if (i <= 5) spend(3, acc.checking, '24 Hour Fitness', 45 * U, 'gym');

  // Irregular bills the True Expenses categories save for.
  if (i % 3 === 1) spend(10, acc.checking, 'GEICO', 420 * U, 'car_ins', 'Auto policy, 3 months');
  if (i % 6 === 4) spend(15, acc.checking, 'State Farm', 780 * U, 'home_ins', 'Renters + cabin policy, 6 months');
  if (month === 6) spend(20, acc.checking, 'Oregon DMV', 180 * U, 'car_reg');
  if (month === 11) {
    // The money saved for it sits in savings until the bill is due.
    on(9, () => ({ date: dayIn(slot.month, 9), account: acc.savings, amount: -2400 * U, payee: h.transferTo(acc.checking), memo: 'For the property tax' }), 2);
    spend(10, acc.checking, 'Lake County Treasurer', 2400 * U, 'property_tax', 'Cabin property tax');
  }
  if (month === 11 || month === 12) {
    const gifts = ['Gift for Mom', 'Stocking stuffers', 'Secret Santa', 'Gift for Sam', null];
    for (let n = month === 11 ? 2 : 4; n > 0; n--) {
      spend(rng.int(1, 20), acc.visa, rng.pick(['Amazon', 'Target', "Powell's Books", 'REI']), rng.cents(40, 260), 'christmas', rng.pick(gifts));
    }
  }
  if (slot.index > 0 && !slot.isCurrent && rng.chance(0.22)) {
    const big = rng.pick([
      { payee: 'IKEA', min: 300, max: 900, category: 'home_maint', memo: 'New bookshelf' },
      { payee: 'Best Buy', min: 400, max: 1200, category: 'stuff', memo: 'Replacement laptop' },
      { payee: 'REI', min: 200, max: 600, category: 'hobbies', memo: 'Tent and sleeping bags' },
      { payee: 'Apple Store', min: 500, max: 1400, category: 'stuff', memo: 'Phone screen + case' },
    ]);
    const day = rng.int(2, 27);
    on(day, () => ({
      date: dayIn(slot.month, day),
      account: acc.visa,
      amount: -rng.cents(big.min, big.max),
      payee: h.payee(big.payee),
      category: cat[big.category],
      memo: big.memo,
      flag: rng.pick(['blue', 'purple', null]),
    }));
  }

  // Moving money between accounts. Savings at the end of the month (today, in the current one),
  // after everything else of that day: checking keeps a buffer and never ends a month overdrawn.
  items.push({ date: slot.last, records: 2, late: true, run: () => ledger.post(savingsSweep(h, slot.last)) });
  const savings = ledger.balance(acc.savings);
  const lastDay = dayIn(slot.month, 31);
  on(31, () => ({
    date: lastDay,
    account: acc.savings,
    amount: monthlyInterest(savings, 4100),
    payee: h.payee('Ally Bank Interest'),
    category: h.rta,
    memo: null,
    flag: null,
  }));
  // The card: paid in full most months; now and then only part of it, and the rest carried.
  for (const card of [acc.visa, acc.loc]) h.debts.set(card.id, Math.max(0, -ledger.balance(card)));
  const statement = -ledger.balance(acc.visa);
  const partly = i > 0 && !slot.isCurrent && rng.chance(0.15);
  const payment = partly ? Math.round((statement * rng.int(40, 70)) / 100 / (10 * U)) * 10 * U : statement;
  if (payment > 0) {
    on(
      22,
      () => ({
        date: dayIn(slot.month, 22),
        account: acc.checking,
        amount: -payment,
        payee: h.transferTo(acc.visa),
        memo: partly ? 'Part of the statement' : 'Statement balance',
      }),
      2,
    );
  }
  const walletStart = ledger.balance(acc.wallet);
  h.walletPlanned = 0;
  on(
    3,
    () => ({
      date: dayIn(slot.month, 3),
      account: acc.checking,
      amount: -Math.max(60 * U, Math.ceil((h.walletPlanned + 40 * U - walletStart) / (20 * U)) * 20 * U),
      payee: h.transferTo(acc.wallet),
      memo: 'ATM',
    }),
    2,
  );
  if (i % 3 === 2) {
    const day = rng.int(4, 26);
    on(
      day,
      () => {
        const lines: DemoLine[] = [
          { amount: -rng.cents(80, 200), category: cat.groceries },
          { amount: -rng.cents(15, 50), category: cat.household },
          { amount: -rng.int(2, 5) * 20 * U, payee: h.transferTo(acc.wallet), memo: 'Cash back' },
        ];
        return { date: dayIn(slot.month, day), account: acc.checking, amount: lines.reduce((s, l) => s + l.amount, 0), payee: h.payee('Costco'), lines };
      },
      2,
    );
  }
  for (let day = 1; day <= 31; day++) {
    const date = dayIn(slot.month, day);
    if (date.slice(8) !== String(day).padStart(2, '0') || new Date(`${date}T00:00:00Z`).getUTCDay() !== 5) continue;
    const amount = rng.cents(4, 7) + rng.int(0, 1) * 250;
    h.walletPlanned += amount;
    at(date, () => ({ date, account: acc.wallet, amount: -amount, payee: h.payee('Blue Bottle Coffee'), category: cat.coffee }));
  }

  // The old credit union account: a fee, then its money moves to checking and it is closed.
  if (i === 1) spend(28, acc.oldBank, 'Old Credit Union', 5 * U, 'stuff', 'Monthly service fee');
  if (i === 2)
    on(
      10,
      () => ({
        date: dayIn(slot.month, 10),
        account: acc.oldBank,
        amount: -ledger.balance(acc.oldBank),
        payee: h.transferTo(acc.checking),
        memo: 'Closing the account',
      }),
      2,
    );

  // The home equity line: one draw for the roof, then monthly repayments until it is paid off.
  if (i === h.drawMonth) {
    on(3, () => ({ date: dayIn(slot.month, 3), account: acc.loc, amount: -2500 * U, payee: h.transferTo(acc.checking), memo: 'Draw for the roof repair' }), 2);
    on(6, () => ({
      date: dayIn(slot.month, 6),
      account: acc.checking,
      amount: -2500 * U,
      payee: h.payee('Summit Roofing'),
      category: cat.home_maint,
      memo: 'Roof repair',
      flag: 'orange',
    }));
  }
  const owed = -ledger.balance(acc.loc);
  if (i > h.drawMonth && owed > 0) {
    on(
      25,
      () => ({ date: dayIn(slot.month, 25), account: acc.checking, amount: -Math.min(150 * U, owed), payee: h.transferTo(acc.loc), memo: 'HELOC payment' }),
      2,
    );
  }

  for (const extra of h.extras) if (extra.date >= slot.month && extra.date <= slot.last) at(extra.date, () => extra, 1);
  return items;
}

/** What checking keeps at the end of a month, and what the household saves a month when it can. */
const BUFFER = 1000 * U;
const MONTHLY_SAVINGS = 600 * U;

/**
 * The end-of-month move between checking and savings: what checking holds above its buffer goes
 * to savings (up to the monthly amount, in $50 steps); when the month left checking below the
 * buffer, savings tops it up (in $100 steps), as a household does before its bank would charge
 * for an overdraft. Either way one transfer, so the month's record count is known when planned.
 */
export function savingsSweep(h: Household, date: string): Entry {
  const { acc, ledger } = h;
  const spare = ledger.balance(acc.checking) - BUFFER;
  if (spare >= 50 * U) {
    const amount = Math.min(MONTHLY_SAVINGS, Math.floor(spare / (50 * U)) * 50 * U);
    return { date, account: acc.checking, amount: -amount, payee: h.transferTo(acc.savings), memo: 'Monthly savings' };
  }
  const short = Math.max(100 * U, Math.ceil(-spare / (100 * U)) * 100 * U);
  // Savings gives what it has (a household that has spent all its savings is overdrawn).
  const amount = Math.min(short, Math.max(ledger.balance(acc.savings), 10));
  return { date, account: acc.savings, amount: -amount, payee: h.transferTo(acc.checking), memo: 'From savings: checking ran low' };
}

/** Recent one-offs: uncategorized ones to sort out, and one the bank has not imported yet. */
export function householdExtras(h: Household, wholeFoods: number): Entry[] {
  const { acc, today } = h;
  const extras: Entry[] = [
    {
      date: addDays(today, -3),
      account: acc.checking,
      amount: -35 * U,
      payee: h.payee('Venmo'),
      category: null,
      memo: 'Concert tickets?',
      approved: false,
      imported: false,
      flag: 'yellow',
    },
    { date: addDays(today, -8), account: acc.checking, amount: 60 * U, payee: h.payee('Zelle'), category: null, memo: null, approved: false },
    // Entered by hand; the pending import of the same amount will match it.
    {
      date: addDays(today, -2),
      account: acc.checking,
      amount: -wholeFoods,
      payee: h.payee('Whole Foods Market'),
      category: h.cat.groceries,
      memo: 'Entered at the till',
      cleared: 'uncleared',
      approved: true,
      imported: false,
    },
  ];
  return extras.filter((e) => e.date >= h.firstMonth);
}
