/**
 * upcoming: the scheduled transactions due in the coming days (./schedule.ts), each with its
 * account's projected balance, paged, with the inflow and outflow of them all.
 */
import * as z from 'zod';
import { addDays, daysBetween } from '../api/dates.js';
import { sumMilliunits } from '../api/money.js';
import { IsoDate } from '../api/schemas/common.js';
import { ArgumentError } from '../shared/argument-error.js';
import { decodeCursor, encodeCursor } from '../shared/paging.js';
import { DETAIL_ARG, pagingArgs } from './args.js';
import { OFF_BUDGET_ARG } from './filter.js';
import { present, rowMoney } from './format.js';
import { overdue, project } from './schedule.js';
import type { InsightArgs, InsightContext, InsightResult } from './types.js';

/** Occurrences per page: a few in compact detail (the totals cover them all), more in full. */
const UPCOMING_ROWS = { compact: 7, full: 100 };

export const UPCOMING_INPUT = {
  days: z.int().min(1).max(366).optional().describe('Days ahead (default 30).'),
  from: IsoDate.optional(),
  to: IsoDate.optional().describe('Or days'),
  ...OFF_BUDGET_ARG,
  ...pagingArgs(`${UPCOMING_ROWS.compact}, full ${UPCOMING_ROWS.full}`),
  ...DETAIL_ARG,
};

export function upcoming(ctx: InsightContext, a: InsightArgs<typeof UPCOMING_INPUT>): InsightResult {
  const r = ctx.view.replica;
  const { from, to } = windowOf(ctx.today, a);
  const listed = (o: { scheduled: { account_id: string } }) => ctx.view.onBudget(o.scheduled.account_id) || a.include_off_budget;
  // Balances are carried from today, so occurrences before the window still count in them.
  const all = project(ctx.view, ctx.today, daysBetween(ctx.today, to)).filter((o) => o.date >= from && listed(o));
  const late = overdue(ctx.view, ctx.today).filter(listed);
  const full = a.detail === 'full';
  const offset = decodeCursor(a.cursor, ctx.queryKey);
  const shown = all.slice(offset, offset + (a.limit ?? (full ? UPCOMING_ROWS.full : UPCOMING_ROWS.compact)));
  const end = offset + shown.length;
  const fig = rowMoney(ctx.money, full);
  const amounts = all.map((o) => o.scheduled.amount);
  const category = (s: (typeof all)[number]['scheduled']) =>
    r.scheduledLinesOf(s.id).some((x) => !x.deleted) ? 'Split' : s.category_id ? (r.categories.get(s.category_id)?.name ?? null) : null;
  return {
    structured: {
      // Compact: when, who, from where, how much and what is left (the payee says what it is for).
      occurrences: shown.map((o) =>
        present({
          date: o.date,
          scheduled_transaction_id: full ? o.scheduled.id : null,
          payee_name: ctx.view.payeeName(o.scheduled.payee_id ?? null),
          category_name: full ? category(o.scheduled) : null,
          account_name: ctx.view.accountName(o.scheduled.account_id),
          frequency: full ? o.scheduled.frequency : null,
          ...fig('amount', o.scheduled.amount),
          ...fig('projected_balance', o.balance),
        }),
      ),
      count: all.length,
      returned: shown.length,
      has_more: end < all.length,
      ...(end < all.length ? { next_cursor: encodeCursor(end, ctx.queryKey) } : {}),
      ...ctx.money('inflow', sumMilliunits(amounts.filter((x) => x > 0))),
      ...ctx.money('outflow', sumMilliunits(amounts.filter((x) => x < 0))),
      // Past their date and not entered: apart, since today's balances do not hold them yet.
      ...(late.length
        ? {
            overdue: late.slice(0, full ? UPCOMING_ROWS.full : UPCOMING_ROWS.compact).map((o) =>
              present({
                date: o.date,
                scheduled_transaction_id: full ? o.scheduled.id : null,
                payee_name: ctx.view.payeeName(o.scheduled.payee_id ?? null),
                account_name: ctx.view.accountName(o.scheduled.account_id),
                ...fig('amount', o.scheduled.amount),
              }),
            ),
            overdue_count: late.length,
            ...ctx.money('overdue_total', sumMilliunits(late.map((o) => o.scheduled.amount))),
          }
        : {}),
    },
  };
}

/** The window: from (default today, not before it: what is past is overdue) to `to`, or `days` after from. */
function windowOf(today: string, a: InsightArgs<typeof UPCOMING_INPUT>): { from: string; to: string } {
  if (a.to !== undefined && a.days !== undefined) throw new ArgumentError('give days or to, not both');
  const from = a.from !== undefined && a.from > today ? a.from : today;
  const to = a.to ?? addDays(from, a.days ?? 30);
  if (to < from) throw new ArgumentError(`to ${to} is before ${from}; give a window that ends on or after it starts (past occurrences are listed as overdue)`);
  if (daysBetween(today, to) > 366 * 2) throw new ArgumentError(`to ${to} is more than two years ahead; give an earlier date`);
  return { from, to };
}
