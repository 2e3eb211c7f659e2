/**
 * What the scheduled transactions will do in the coming days: each schedule expanded by its
 * frequency into dated occurrences, and every account's balance carried forward through them in
 * date order (a scheduled transfer moves money out of one account and into the other), so each
 * occurrence knows the balance its account is projected to have once it is entered. A day's
 * outflows come before its inflows, as forecast counts them.
 */
import { addDays } from '../../api/dates.js';
import { occurrence } from '../../api/schedule.js';
import type * as E from '../../api/schemas/entities.js';
import type { BudgetView } from './view.js';

export interface Occurrence {
  date: string;
  scheduled: E.ScheduledTransactionSummaryBase;
  /** The account's balance after this occurrence (and every earlier one). */
  balance: number;
}

/** Dates of a schedule from its next date through `until`, on its frequency's lattice from date_first. */
export function datesOf(s: E.ScheduledTransactionSummaryBase, from: string, until: string): string[] {
  const start = s.date_next > from ? s.date_next : from;
  const dates: string[] = [];
  // The next date as the API gives it counts even if it was moved off the lattice.
  if (s.date_next >= from && s.date_next <= until) dates.push(s.date_next);
  if (s.frequency === 'never') return dates;
  let n = 0;
  if (s.frequency === 'daily') n = Math.max(0, Math.round((Date.parse(start) - Date.parse(s.date_first)) / 86_400_000) - 1);
  for (let date = occurrence(s.date_first, s.frequency, n); date <= until; date = occurrence(s.date_first, s.frequency, ++n)) {
    if (date > s.date_next && date >= from) dates.push(date);
    if (n > 100_000) break; // every frequency advances; this only guards against a malformed schedule
  }
  return dates;
}

/**
 * Every occurrence from `today` through `days` days ahead, in date order, with projected
 * balances starting from each account's working balance today.
 */
export function project(view: BudgetView, today: string, days: number): Occurrence[] {
  const until = addDays(today, days);
  const r = view.replica;
  const pending: { date: string; scheduled: E.ScheduledTransactionSummaryBase }[] = [];
  for (const s of r.scheduled.values()) for (const date of datesOf(s, today, until)) pending.push({ date, scheduled: s });
  // A day's outflows before its inflows (as forecast counts a day), then by id.
  pending.sort(
    (a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || a.scheduled.amount - b.scheduled.amount || (a.scheduled.id < b.scheduled.id ? -1 : 1),
  );
  const balances = new Map<string, number>();
  for (const a of r.accounts.values()) balances.set(a.id, a.balance);
  const move = (account: string | null | undefined, amount: number) => {
    if (account && balances.has(account)) balances.set(account, balances.get(account)! + amount);
  };
  return pending.map(({ date, scheduled: s }) => {
    move(s.account_id, s.amount);
    // The other side of a transfer, for the whole schedule or its split lines.
    move(s.transfer_account_id, -s.amount);
    for (const x of r.scheduledLinesOf(s.id)) if (!x.deleted) move(x.transfer_account_id, -x.amount);
    return { date, scheduled: s, balance: balances.get(s.account_id) ?? 0 };
  });
}

/** Occurrences of one schedule listed as overdue at most (a long-missed daily one says the rest by count). */
const OVERDUE_PER_SCHEDULE = 12;

/**
 * The occurrences past their date and not entered: a schedule whose next date is before today,
 * from that date through yesterday on its frequency (YNAB moves the next date on once one is
 * entered, so each of these is still owed), the oldest first.
 */
export function overdue(view: BudgetView, today: string): { date: string; scheduled: E.ScheduledTransactionSummaryBase }[] {
  const out: { date: string; scheduled: E.ScheduledTransactionSummaryBase }[] = [];
  for (const s of view.replica.scheduled.values()) {
    if (s.date_next >= today) continue;
    const dates = datesOf(s, s.date_next, addDays(today, -1)).slice(0, OVERDUE_PER_SCHEDULE);
    for (const date of dates) out.push({ date, scheduled: s });
  }
  return out.sort(
    (a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0) || a.scheduled.amount - b.scheduled.amount || (a.scheduled.id < b.scheduled.id ? -1 : 1),
  );
}
