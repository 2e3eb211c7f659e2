/**
 * forecast's count: each chosen account's balance carried from today through the events in
 * order, the total of them all kept per day (where it changes) and per month (its end and lowest),
 * the lowest point (within a day, outflows first, and at a day's end), the first date any one account goes below zero, and the next pay.
 */
import { addMonths, monthOf } from '../../api/dates.js';
import type { FlowEvent } from './forecast-events.js';
import type { BudgetView } from '../core/view.js';

export const MAX_MONTHS = 24;
/** Days after today with a point per day (where the balance changes). */
export const DAILY_DAYS = 60;

export interface Point {
  date: string;
  balance: number;
}

export interface Simulation {
  start: number;
  end: number;
  /** The total after each day whose events changed it, through the horizon. */
  days: Point[];
  /** Each month's end and its low at a day's end (the balance it opened with counted). */
  months: { month: string; end: number; low: number; accounts: Map<string, number> }[];
  /** The least the accounts hold together at any moment (a day's outflows counted before its inflows). */
  lowest: Point;
  /** The least at a day's end (what the day list shows). */
  lowestDayEnd: Point;
  belowZero: (Point & { account_id: string }) | null;
  nextIncome: (FlowEvent & { lowest: Point }) | null;
}

/** Payday: a regular income (scheduled, or recurring at a steady amount), not a refund or interest: at least `floor`. */
export const isPayday = (e: FlowEvent, floor: number): boolean => e.income && !e.irregular && e.amount >= floor;

/** Pay, not a refund or interest: regular income of at least a quarter of the largest regular income coming. */
export function paydayFloor(events: readonly FlowEvent[]): number {
  return Math.ceil(Math.max(0, ...events.filter((e) => e.income && !e.irregular).map((e) => e.amount)) / 4);
}

export function simulate(view: BudgetView, accounts: string[], today: string, until: string, events: FlowEvent[], payday: number): Simulation {
  const bal = new Map(accounts.map((id) => [id, view.replica.accounts.get(id)!.balance]));
  let total = [...bal.values()].reduce((s, b) => s + b, 0);
  const start = total;
  const days: Point[] = [];
  const months: Simulation['months'] = [];
  let lowest: Point = { date: today, balance: total };
  let belowZero: Simulation['belowZero'] = null;
  for (const [id, b] of bal) if (b < 0 && !belowZero) belowZero = { date: today, balance: b, account_id: id };
  let nextIncome: Simulation['nextIncome'] = null;
  let month = { month: monthOf(today), end: total, low: total, accounts: new Map(bal) };
  const closeMonth = (to: string) => {
    while (month.month < monthOf(to)) {
      months.push(month);
      month = { month: addMonths(month.month, 1), end: total, low: total, accounts: new Map(bal) };
    }
  };
  for (const e of events) {
    if (e.date > until) break;
    closeMonth(e.date);
    if (isPayday(e, payday) && !nextIncome) nextIncome = { ...e, lowest };
    const b = bal.get(e.account_id)! + e.amount;
    bal.set(e.account_id, b);
    total += e.amount;
    if (b < 0 && !belowZero) belowZero = { date: e.date, balance: b, account_id: e.account_id };
    if (total < lowest.balance) lowest = { date: e.date, balance: total };
    const lastDay = days[days.length - 1];
    if (lastDay?.date === e.date) lastDay.balance = total;
    else days.push({ date: e.date, balance: total });
    month.end = total;
    month.accounts = new Map(bal);
  }
  closeMonth(until);
  months.push(month);
  let lowestDayEnd: Point = { date: today, balance: start };
  for (const d of days) if (d.balance < lowestDayEnd.balance) lowestDayEnd = d;
  // A month's low at its days' ends, as `lowest` is (its opening balance is month.low already).
  const byMonth = new Map(months.map((m) => [m.month, m]));
  for (const d of days) {
    const m = byMonth.get(monthOf(d.date));
    if (m) m.low = Math.min(m.low, d.balance);
  }
  const changed = days.filter((d, i) => d.balance !== (i ? days[i - 1]!.balance : start));
  return { start, end: total, days: changed, months, lowest, lowestDayEnd: { ...lowestDayEnd }, belowZero, nextIncome };
}
