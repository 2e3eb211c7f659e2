/**
 * The computation of `forecast` (./forecast.ts): the chosen accounts and the horizon from the
 * arguments, the events (./forecast-events.ts) counted in order from today's balances, and the
 * answer (./forecast-answer.ts). Everything from the budget's copy; the same copy and day give the
 * same answer.
 */
import { addMonths, daysBetween, isIsoDate } from '../../api/dates.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { forecastAnswer } from './forecast-answer.js';
import { forecastEvents, type EventInput, type Included } from './forecast-events.js';
import { isPayday, MAX_MONTHS, paydayFloor, simulate } from './forecast-sim.js';
import type { InsightContext, InsightResult } from '../core/types.js';
import type { BudgetView } from '../core/view.js';

/** forecast's arguments, as its input schema (./forecast.ts) parses them. */
export interface ForecastArgs {
  months?: number | undefined;
  account_id?: string | undefined;
  until_date?: string | undefined;
  include?: Included[] | undefined;
  detail?: 'compact' | 'full' | undefined;
}

/** Account types that hold cash (the default choice). */
const CASH = new Set(['checking', 'savings', 'cash']);

function chosenAccounts(view: BudgetView, id: string | undefined): string[] {
  const accounts = [...view.replica.accounts.values()];
  if (id !== undefined) {
    const a = view.replica.accounts.get(id);
    if (!a || a.deleted) throw new ArgumentError(`account_id: no account ${JSON.stringify(id)} in this budget; give an account's id or name`);
    return [a.id];
  }
  const cash = accounts.filter((a) => !a.deleted && !a.closed && a.on_budget && CASH.has(a.type));
  if (!cash.length) throw new ArgumentError('this budget has no open on-budget cash account (checking, savings, cash); give account_id');
  return cash.sort((a, b) => (a.name < b.name ? -1 : 1)).map((a) => a.id);
}

/** The account the assigned money is spent from: the one with the most transactions in the last 90 days. */
function mainAccount(view: BudgetView, accounts: string[], today: string): string {
  const counts = new Map(accounts.map((a) => [a, 0]));
  for (const l of view.lines) if (counts.has(l.account_id) && daysBetween(l.date, today) <= 90) counts.set(l.account_id, counts.get(l.account_id)! + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
}

function horizon(a: ForecastArgs, today: string): { until: string; payday: boolean } {
  const last = addMonths(today, MAX_MONTHS);
  if (a.months !== undefined && a.months < 1) throw new ArgumentError(`months: ${a.months} is below 1; give 1 to ${MAX_MONTHS} (default 3)`);
  if (a.until_date === undefined) return { until: addMonths(today, a.months ?? 3), payday: false };
  if (a.months !== undefined) throw new ArgumentError('give months or until_date, not both');
  const u = a.until_date.trim().toLowerCase();
  if (u === 'next payday' || u === 'payday') return { until: last, payday: true };
  if (!isIsoDate(u)) throw new ArgumentError(`until_date: ${JSON.stringify(a.until_date)} is not a date; give YYYY-MM-DD or "next payday"`);
  if (u < today || u > last) throw new ArgumentError(`until_date ${u} is outside today (${today}) through ${MAX_MONTHS} months ahead (${last})`);
  return { until: u, payday: false };
}

export function forecastRun(ctx: InsightContext, a: ForecastArgs): InsightResult {
  const { view, today } = ctx;
  const accounts = chosenAccounts(view, a.account_id);
  if (a.include?.length === 0)
    throw new ArgumentError('include: name at least one of "scheduled", "recurring", "assigned", "irregular_income" (default the first two)');
  const include = new Set<Included>(a.include ?? ['scheduled', 'recurring']);
  let { until, payday } = horizon(a, today);
  const input: EventInput = { view, today, until, accounts: new Set(accounts), include, main: mainAccount(view, accounts, today) };
  // What counts as pay is decided over the longest horizon, so it is the same whatever the months.
  const longest = forecastEvents({ ...input, until: addMonths(today, MAX_MONTHS) });
  const floor = paydayFloor(longest.events);
  let found = payday ? longest : forecastEvents(input);
  if (payday) {
    // Payday is a regular income (forecast-sim.ts isPayday): one that varies never is.
    const income = found.events.find((e) => isPayday(e, floor));
    if (!income)
      throw new ArgumentError('no regular income (scheduled, or recurring at a steady amount) in the chosen accounts within 24 months; give a date or months');
    until = income.date;
    found = forecastEvents({ ...input, until });
  }
  const sim = simulate(view, accounts, today, until, found.events, floor);
  return forecastAnswer(ctx, { accounts, until, include, main: input.main, sim, ...found, full: a.detail === 'full' });
}
