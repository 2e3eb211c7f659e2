/**
 * The computation of `recurring` (./recurring.ts): the recurring items of the budget's
 * on-budget accounts, transfers between two on-budget accounts left out (moving money is neither a
 * bill nor income; a loan payment to a tracking account is a bill), grouped:
 *  - income: money coming in;
 *  - subscriptions: charges in a category (or group) whose name says subscription, streaming or
 *    membership;
 *  - bills: every other charge.
 * Amounts are positive in every group; the annual cost is the typical amount times how many a year
 * the cadence gives, and the monthly total a twelfth of the annual one.
 */
import { formatMilliunits } from '../api/money.js';
import { present, rowMoney } from './format.js';
import { PER_YEAR, detectRecurring, type Detected } from './recurring-detect.js';
import type { InsightContext, InsightResult } from './types.js';

export type RecurringGroup = 'subscriptions' | 'bills' | 'income';

const SUBSCRIPTION = /subscri|streaming|membership/i;
/** Rows of each group in compact detail, the largest a year first. */
const COMPACT_ROWS = 4;

/** Which group an item is in, or undefined for a move between two on-budget accounts. */
export function groupOf(ctx: InsightContext, item: Detected): RecurringGroup | undefined {
  if (item.transfer_account_id && ctx.view.onBudget(item.transfer_account_id)) return undefined;
  if (item.typical > 0) return 'income';
  const category = item.category_id ? ctx.view.replica.categories.get(item.category_id) : undefined;
  const group = category ? ctx.view.replica.categoryGroups.get(category.category_group_id) : undefined;
  return [category?.name, group?.name].some((n) => !!n && SUBSCRIPTION.test(n)) ? 'subscriptions' : 'bills';
}

export const annualOf = (item: Detected): number => Math.abs(item.typical) * PER_YEAR[item.cadence];

export function recurringList(ctx: InsightContext, full: boolean): InsightResult {
  const groups: Record<RecurringGroup, Detected[]> = { subscriptions: [], bills: [], income: [] };
  for (const item of detectRecurring(ctx.view, ctx.today)) {
    const g = groupOf(ctx, item);
    if (g) groups[g].push(item);
  }
  const fig = rowMoney(ctx.money, full);
  const row = (item: Detected) => {
    const p = item.price_change;
    return present({
      payee_name: ctx.view.payeeName(item.payee_id),
      account_name: full ? ctx.view.accountName(item.account_id) : null,
      category_name: full && item.category_id ? (ctx.view.replica.categories.get(item.category_id)?.name ?? null) : null,
      cadence: item.cadence,
      ...fig('amount', Math.abs(item.typical)),
      varies: item.steady ? null : true,
      last_date: full ? item.last_date : null,
      next_date: full ? item.next_date : null,
      ...(full ? fig('annual', annualOf(item)) : {}),
      price_change: p ? { ...fig('from', p.old), ...fig('to', p.new), date: p.date } : null,
      count: full ? item.count : null,
    });
  };
  const structured: Record<string, unknown> = {};
  const totals: Record<string, unknown> = {};
  for (const [name, items] of Object.entries(groups)) {
    // The largest first: what costs (or brings) the most a year.
    items.sort((a, b) => annualOf(b) - annualOf(a) || (a.payee_id < b.payee_id ? -1 : 1));
    // Compact: the largest few of each group (the totals count them all).
    const shown = full ? items : items.slice(0, COMPACT_ROWS);
    structured[name] = shown.map(row);
    if (shown.length < items.length) structured[`${name}_more`] = items.length - shown.length;
    const year = items.reduce((s, i) => s + annualOf(i), 0);
    totals[name] = {
      per_month: formatMilliunits(Math.round(year / 12), ctx.format),
      per_year: formatMilliunits(year, ctx.format),
      ...(full ? { per_year_milliunits: year } : {}),
    };
  }
  structured.totals = totals;
  structured.assumptions = ['3+ at a steady interval (6+ if amounts vary), the last within 1.5 intervals; median of the last 6'];
  return { structured };
}
