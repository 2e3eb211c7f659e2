/**
 * Ready to Assign, one figure per month, as YNAB's month holds it (`to_be_budgeted`), said the same
 * way by every tool that reports it (needs_attention, get_month, targets_summary, fund_targets,
 * move_money, the weekly digest): the figure with its month, and, when the furthest month the
 * budget holds shows another figure, that month, its figure and why.
 *
 * Why months differ: Ready to Assign is one pot. YNAB shows a month what is left after the months
 * after it took their assignments, never below zero for that reason ("Ready to Assign will remain
 * $0.00 in the current month—and the $200 will be taken from the future month's Ready to Assign",
 * help article 230), and takes a month's cash overspending from the month after it (article 769).
 * So "your most up-to-date Ready to Assign number is in the future-est month" (article 230).
 * Credit overspending never changes it (article 944): it stays on the card as debt.
 */
import { currentMonth } from '../../api/dates.js';
import type { Money } from './format.js';

/** What a month of the budget's copy says of Ready to Assign. */
interface MonthFigures {
  month: string;
  budgeted: number;
  to_be_budgeted: number;
}

export interface ReadyToAssign {
  /** The month the figure is of (YYYY-MM-01). */
  month: string;
  amount: number;
  /** The furthest month the budget holds, when it is after `month` and its figure differs. */
  latest?: { month: string; amount: number; assignedAfter: number };
}

/**
 * Ready to Assign of `month` (undefined when the budget does not hold that month), and the furthest
 * month's when it differs. A past month's figure is what it closed with: later months take nothing
 * from it, so it names no furthest month.
 */
export function readyToAssignIn(months: ReadonlyMap<string, MonthFigures>, month: string, now: Date = new Date()): ReadyToAssign | undefined {
  const held = months.get(month);
  if (!held) return undefined;
  if (month < currentMonth(now)) return { month, amount: held.to_be_budgeted };
  const later = [...months.values()].filter((m) => m.month > month);
  const last = later.reduce<MonthFigures | undefined>((a, m) => (!a || m.month > a.month ? m : a), undefined);
  if (!last || last.to_be_budgeted === held.to_be_budgeted) return { month, amount: held.to_be_budgeted };
  const assignedAfter = later.reduce((s, m) => s + m.budgeted, 0);
  return { month, amount: held.to_be_budgeted, latest: { month: last.month, amount: last.to_be_budgeted, assignedAfter } };
}

/** The furthest month the budget holds: its Ready to Assign is the up-to-date one (needs_attention, the digest). */
export function latestMonthOf(months: ReadonlyMap<string, MonthFigures>): string | undefined {
  let last: string | undefined;
  for (const m of months.keys()) if (!last || m > last) last = m;
  return last;
}

const ym = (month: string) => month.slice(0, 7);

/** Why the furthest month's figure differs, in short (a compact answer, beside the figures that name both months). */
export const LATEST_WHY = "YNAB takes what later months assign and a month's cash overspending from the furthest month, whose figure is the up-to-date one.";

/** The one line every tool gives when the furthest month's Ready to Assign differs from the month's (undefined when it does not). */
export function readyToAssignLine(rta: ReadyToAssign, money: (milliunits: number) => string): string | undefined {
  const l = rta.latest;
  if (!l) return undefined;
  return (
    `${ym(l.month)}, the furthest month, shows Ready to Assign ${money(l.amount)}, ${ym(rta.month)} ${money(rta.amount)}: YNAB takes what later ` +
    `months assign (${money(l.assignedAfter)}) and a month's cash overspending from the furthest month, whose figure is the up-to-date one.`
  );
}

/** The figure as answer fields: `ready_to_assign` (and its text) with `ready_to_assign_month`, and the furthest month's beside it when it differs. */
export function readyToAssignFields(rta: ReadyToAssign, money: Money, name = 'ready_to_assign'): Record<string, unknown> {
  return {
    ...money(name, rta.amount),
    [`${name}_month`]: rta.month,
    ...(rta.latest ? { ...money('ready_to_assign_latest', rta.latest.amount), ready_to_assign_latest_month: rta.latest.month } : {}),
  };
}
