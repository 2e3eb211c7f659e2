/**
 * upcoming: the scheduled transactions due in a window (./schedule.ts), each with its account's
 * projected balance, paged, with the inflow and outflow of them all (the outflow split into money
 * moved to on-budget accounts and money leaving the budget), and what is past its date and not
 * entered (overdue), its inflows and outflows totalled apart. A window before today answers what
 * was due in it. The answer states its window, both days inclusive, and each account's count,
 * inflow and outflow over it (by_account); `account_id` narrows it to one account's schedules.
 */
import * as z from 'zod';
import { addDays, daysBetween } from '../../api/dates.js';
import { sumMilliunits } from '../../api/money.js';
import { IsoDate } from '../../api/schemas/common.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { decodeCursor, encodeCursor } from '../../shared/paging.js';
import { DETAIL_ARG, pagingArgs } from '../core/args.js';
import { OFF_BUDGET_ARG } from '../core/filter.js';
import { present, rowMoney } from '../core/format.js';
import { overdue, project, type Occurrence } from '../core/schedule.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

/** Occurrences per page: a few in compact detail (the totals cover them all), more in full. */
// Compact rows carry each figure's text (issue 43): five fit a typical answer (2 KB); the cursor gives the rest.
const UPCOMING_ROWS = { compact: 5, full: 100 };

export const UPCOMING_INPUT = {
  days: z.int().min(1).max(366).optional().describe('Days ahead (default 30).'),
  from: IsoDate.optional().describe('YYYY-MM-DD; default today.'),
  to: IsoDate.optional().describe('YYYY-MM-DD, or give days.'),
  account_id: NameOrId.optional(),
  ...OFF_BUDGET_ARG,
  ...pagingArgs(`${UPCOMING_ROWS.compact}, full ${UPCOMING_ROWS.full}`),
  ...DETAIL_ARG,
};

export function upcoming(ctx: InsightContext, a: InsightArgs<typeof UPCOMING_INPUT>): InsightResult {
  const r = ctx.view.replica;
  const { from, to } = windowOf(ctx.today, a);
  // One account's schedules when named (a tracking account's too), else the budget accounts' (and tracking ones when asked).
  const listed = (o: { scheduled: { account_id: string } }) =>
    a.account_id !== undefined ? o.scheduled.account_id === a.account_id : ctx.view.onBudget(o.scheduled.account_id) || a.include_off_budget;
  // Balances are carried from today, so occurrences before the window still count in them.
  const all = to < ctx.today ? [] : project(ctx.view, ctx.today, daysBetween(ctx.today, to)).filter((o) => o.date >= from && listed(o));
  // A window that starts before today: what was due in it and is not entered yet.
  const late = overdue(ctx.view, ctx.today).filter((o) => listed(o) && (from >= ctx.today || (o.date >= from && o.date <= to)));
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
      window: { first_day: from, last_day: to },
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
      ...outflowSplit(ctx, all),
      by_account: byAccount(ctx, all, full),
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
            ...ctx.money('overdue_inflow', sumMilliunits(late.map((o) => o.scheduled.amount).filter((x) => x > 0))),
            ...ctx.money('overdue_outflow', sumMilliunits(late.map((o) => o.scheduled.amount).filter((x) => x < 0))),
            ...(from < ctx.today ? { was_due: `In the window before today, not entered: ${late.length} (listed as overdue).` } : {}),
          }
        : {}),
    },
  };
}

/**
 * Each account's outflow over the whole window (not only the page), in the order they first come;
 * its count and inflow too in full detail (compact answers stay within 2 KB).
 */
function byAccount(ctx: InsightContext, all: readonly Occurrence[], full: boolean): Record<string, Record<string, unknown>> {
  const sums = new Map<string, { count: number; inflow: number; outflow: number }>();
  for (const o of all) {
    const name = ctx.view.accountName(o.scheduled.account_id);
    const row = sums.get(name) ?? { count: 0, inflow: 0, outflow: 0 };
    sums.set(name, row);
    row.count += 1;
    if (o.scheduled.amount > 0) row.inflow += o.scheduled.amount;
    else row.outflow += o.scheduled.amount;
  }
  return Object.fromEntries(
    [...sums].map(([name, v]) => [name, { ...(full ? { count: v.count, ...ctx.money('inflow', v.inflow) } : {}), ...ctx.money('outflow', v.outflow) }]),
  );
}

/**
 * The outflow split: money moved to on-budget accounts that are not cards (savings: it stays in
 * the budget) apart from money leaving it (bills, card payments, loan payments to tracking accounts).
 */
function outflowSplit(ctx: InsightContext, all: readonly Occurrence[]): Record<string, unknown> {
  let kept = 0;
  let leaving = 0;
  for (const o of all) {
    const s = o.scheduled;
    if (s.amount >= 0) continue;
    const to = s.transfer_account_id;
    if (to && ctx.view.onBudget(to) && !ctx.view.isCredit(to)) kept += s.amount;
    else leaving += s.amount;
  }
  return { ...ctx.money('outflow_to_budget_accounts', kept), ...ctx.money('outflow_leaving_budget', leaving) };
}

/**
 * The window, both days inclusive: from (default today) to `to`, or `days` after from. A window
 * before today answers what was due in it (the occurrences not entered, as overdue).
 */
function windowOf(today: string, a: InsightArgs<typeof UPCOMING_INPUT>): { from: string; to: string } {
  if (a.to !== undefined && a.days !== undefined) throw new ArgumentError('give days or to, not both');
  const from = a.from ?? today;
  const to = a.to ?? addDays(from, a.days ?? 30);
  if (to < from) throw new ArgumentError(`to ${to} is before from ${from}; give a window that ends on or after it starts`);
  if (daysBetween(today, to) > 366 * 2) throw new ArgumentError(`to ${to} is more than two years ahead; give an earlier date`);
  return { from, to };
}
