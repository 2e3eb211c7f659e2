/**
 * search_transactions: the lines a filter matches (./filter.ts), newest first, paged, with their
 * count and totals (a split's lines match on their own).
 */
import * as z from 'zod';
import { decodeCursor, encodeCursor } from '../../shared/paging.js';
import { DETAIL_ARG, pagingArgs } from '../core/args.js';
import { FILTER_ARGS, lineFilter } from '../core/filter.js';
import { payeesLeftOut } from '../core/payees-left-out.js';
import { flows, present, type Money } from '../core/format.js';
import { fullLine } from '../core/full-row.js';
import { sums } from '../core/group.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';
import type { Line } from '../core/view.js';

const SEARCH_LIMIT = 20;

export const SEARCH_TRANSACTIONS_INPUT = {
  ...FILTER_ARGS,
  spending_only: z.boolean().optional().describe('Only spending, as spending_summary counts it.'),
  ...pagingArgs(String(SEARCH_LIMIT)),
  ...DETAIL_ARG,
};

/**
 * Money as the answer vocabulary names it (src/mcp/output/vocabulary.ts), the same as the API
 * tools' transaction lists: `amount`, `total`, with `<name>_formatted` beside each, compact rows included.
 */
const quotable =
  (money: Money): Money =>
  (name, milliunits) => ({ [name]: milliunits, [`${name}_formatted`]: money(name, milliunits)[`${name}_formatted`]! });

/** A line as a compact search row: what identifies it and what it says (full detail: full-row.ts). */
function searchRow(ctx: InsightContext, l: Line): Record<string, unknown> {
  const t = l.transaction;
  return present({
    id: l.id,
    transaction_id: l.parent_id,
    date: l.date,
    ...quotable(ctx.money)('amount', l.amount),
    payee_name: ctx.view.payeeName(l.payee_id),
    category_name: ctx.view.categoryName(l),
    account_name: ctx.view.accountName(l.account_id),
    memo: l.memo,
    // Compact rows say the status only where it is not the usual one (cleared, approved).
    cleared: t.cleared !== 'cleared' ? t.cleared : null,
    approved: t.approved ? null : false,
    flag_color: t.flag_color || null,
  });
}

export function searchTransactions(ctx: InsightContext, a: InsightArgs<typeof SEARCH_TRANSACTIONS_INPUT>): InsightResult {
  // spending_only: the lines spending_summary counts (a view's drill-down adds up to its bar).
  const lines = a.spending_only ? ctx.view.activity(a.include_off_budget) : ctx.view.lines;
  const matches = lines.filter(lineFilter(ctx.view, a, ctx.digits));
  matches.sort((x, y) => (x.date > y.date ? -1 : x.date < y.date ? 1 : x.id < y.id ? -1 : 1));
  const offset = decodeCursor(a.cursor, ctx.queryKey);
  const page = matches.slice(offset, offset + (a.limit ?? SEARCH_LIMIT));
  const end = offset + page.length;
  const total = sums(matches);
  const full = a.detail === 'full';
  const money = quotable(ctx.money);
  const left = [leftInTracking(ctx, a, lines) ?? trackingNotSpending(ctx, a), payeesLeftOut(ctx.view, a, ctx.digits, lines)].filter((x) => x !== undefined);
  return {
    structured: {
      transactions: page.map((l) => (full ? fullLine(ctx, l) : searchRow(ctx, l))),
      count: matches.length,
      returned: page.length,
      has_more: end < matches.length,
      ...(end < matches.length ? { next_cursor: encodeCursor(end, ctx.queryKey) } : {}),
      ...money('total', total.net),
      ...flows(money, total.outflow, total.inflow, full),
    },
    ...(left.length ? { notices: left } : {}),
  };
}

/**
 * What a search that leaves tracking accounts out left there, in one line, so that it never
 * answers zero for what it did not look at (issue 57): the matching lines of off-budget accounts,
 * closed ones included, and their accounts' names. Undefined when it left nothing.
 */
function leftInTracking(ctx: InsightContext, a: InsightArgs<typeof SEARCH_TRANSACTIONS_INPUT>, lines: readonly Line[]): string | undefined {
  if (a.include_off_budget || a.account_id !== undefined || a.spending_only) return undefined;
  const match = lineFilter(ctx.view, { ...a, include_off_budget: true }, ctx.digits);
  const left = lines.filter((l) => !l.on_budget && match(l));
  if (!left.length) return undefined;
  const names = [...new Set(left.map((l) => ctx.view.accountName(l.account_id)))].sort();
  return `${left.length} matching transactions in tracking accounts (${names.join(', ')}) are left out: include_off_budget: true, or the account named, counts them.`;
}

/**
 * spending_only on a named tracking account: spending is what YNAB's months count, budget accounts
 * only, so the search answers zero there; one line says why and what it finds without
 * spending_only, so the zero is not read as "no transactions" (issue 57, item 8).
 */
function trackingNotSpending(ctx: InsightContext, a: InsightArgs<typeof SEARCH_TRANSACTIONS_INPUT>): string | undefined {
  if (!a.spending_only || a.include_off_budget || a.account_id === undefined) return undefined;
  const match = lineFilter(ctx.view, a, ctx.digits);
  const there = ctx.view.lines.filter((l) => !l.on_budget && match(l));
  if (!there.length) return undefined;
  const name = ctx.view.accountName(there[0]!.account_id);
  return `${name} is a tracking account, which holds no spending (spending_only counts budget accounts, as spending_summary does): without spending_only the search finds ${there.length} matching transactions.`;
}
