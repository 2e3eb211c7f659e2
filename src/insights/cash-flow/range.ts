/**
 * cash_flow over a date range (issue 58 item 2): "how much have we saved so far this year" is one
 * figure, income, spending and saved from `since_date` to `until_date` (default today), the current
 * month's days so far counted with the complete months before them. `since_date: "year"` (or an
 * `until_date` alone) starts on January 1 of the range's year. The range's months are its rows,
 * the first and last counting only the range's days.
 */
import * as z from 'zod';
import { addMonths, currentMonth, isIsoDate, monthOf } from '../../api/dates.js';
import { ArgumentError, checkDateRange } from '../../shared/argument-error.js';
import type { InsightContext } from '../core/types.js';

export const RANGE_SINCE = z
  .string()
  .refine((v) => v === 'year' || isIsoDate(v), { message: 'must be a date as YYYY-MM-DD, or "year" for January 1' })
  .optional()
  .describe('YYYY-MM-DD or "year" (Jan 1): totals to until_date.');

export interface Range {
  since: string;
  until: string;
  current: string;
  /** The range's months the budget has, first to last. */
  counted: string[];
  complete: string[];
  /** Said when the range starts before the budget's first month. */
  notice?: string;
}

export function rangeOf(
  ctx: InsightContext,
  a: { since_date?: string; until_date?: string; months?: number; complete_months_only?: boolean },
): Range | undefined {
  if (a.since_date === undefined && a.until_date === undefined) return undefined;
  if (a.months !== undefined || a.complete_months_only !== undefined) {
    throw new ArgumentError('give months (and complete_months_only), or since_date/until_date, not both');
  }
  const until = a.until_date ?? ctx.today;
  const since = a.since_date === undefined || a.since_date === 'year' ? `${until.slice(0, 4)}-01-01` : a.since_date;
  checkDateRange({ since_date: since, until_date: until });
  const months = ctx.view.replica.months;
  const counted: string[] = [];
  for (let m = monthOf(since); m <= until; m = addMonths(m, 1)) if (months.has(m)) counted.push(m);
  const first = ctx.view.replica.summary.first_month;
  const notice = first && since < first ? `The range starts ${since}, before the budget's first month, ${first}: it counts from ${first}.` : undefined;
  return { since, until, current: currentMonth(new Date(`${ctx.today}T00:00:00Z`)), counted, complete: counted, ...(notice ? { notice } : {}) };
}
