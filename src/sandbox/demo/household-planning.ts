/**
 * What "Demo Household" gives the planning tools to find (issue 35 item 10): a streaming
 * subscription whose price went up with its latest charge (recurring and needs_attention see the
 * rise), and irregular income, a design retainer paid around the 25th in amounts that vary. Posted
 * with every choice made here, none left to the demo's random stream, so the rest of the budget
 * is what it was; the fill makes room for them in the month's count.
 */
import { addDays, addMonths, daysInMonth, monthOf } from '../../api/dates.js';
import type { Household } from './household-state.js';
import type { Entry } from './ledger.js';

const U = 1000;
/** The subscription: monthly on the 17th for a year, the latest charge at the new price. */
const STREAM = { payee: 'Hulu', day: 17, months: 12, price: 17_990, raised: 18_990 };
/** The retainer: days off the 25th and amounts (whole units) for each of the last ten months. */
const RETAINER = {
  payee: 'Willamette Design Co',
  day: 25,
  shift: [0, -1, 1, 0, -1, 1, 0, 1, -1, 0],
  units: [1200, 950, 1380, 1100, 875, 1240, 1010, 1325, 990, 1150],
};

const on = (month: string, day: number) =>
  `${month.slice(0, 8)}${String(Math.min(day, daysInMonth(Number(month.slice(0, 4)), Number(month.slice(5, 7))))).padStart(2, '0')}`;

export function planningExtras(h: Household): Entry[] {
  const { acc, cat, today } = h;
  // As the rest of the demo: statements reconciled through the end of the month before last.
  const reconciledThrough = addDays(monthOf(addMonths(today, -1)), -1);
  const settled = (date: string, account: Household['acc']['checking']) =>
    ({
      cleared: account.id === acc.checking.id || account.id === acc.visa.id ? (date <= reconciledThrough ? 'reconciled' : 'cleared') : 'cleared',
      approved: true,
      imported: false,
      flag: null,
    }) as const;
  const out: Entry[] = [];
  const charges: string[] = [];
  for (let k = STREAM.months; k >= 0; k--) {
    const date = on(addMonths(monthOf(today), -k), STREAM.day);
    if (date <= today) charges.push(date);
  }
  charges.forEach((date, i) =>
    out.push({
      date,
      account: acc.visa,
      amount: -(i === charges.length - 1 ? STREAM.raised : STREAM.price),
      payee: h.payee(STREAM.payee),
      category: cat.subscriptions,
      memo: null,
      ...settled(date, acc.visa),
    }),
  );
  RETAINER.units.forEach((units, i) => {
    const date = on(addMonths(monthOf(today), -(RETAINER.units.length - i)), RETAINER.day + RETAINER.shift[i]!);
    out.push({
      date,
      account: acc.checking,
      amount: units * U,
      payee: h.payee(RETAINER.payee),
      category: h.rta,
      memo: 'Retainer',
      ...settled(date, acc.checking),
    });
  });
  return out.filter((e) => e.date >= h.firstMonth);
}
