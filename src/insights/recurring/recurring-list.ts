/**
 * The computation of `recurring` (./recurring.ts): the items of ./recurring-sources.ts (the
 * schedules first, then the history), grouped as income, subscriptions (a category or group whose
 * name says subscription, streaming or membership) and bills (every other charge). Amounts are
 * positive in every group, in whole minor units; the annual cost is the amount times how many a
 * year the cadence gives, the monthly one a twelfth of that, and each group's totals are the sums
 * of its items' figures (so the listed figures add up to them). Compact detail names every item
 * with its monthly amount, as far as the answer's 2 KB allow (the rest are counted); when nothing
 * qualifies, the answer says why.
 */
import { formatMilliunits } from '../../api/money.js';
import { present, rowMoney, textByKey } from '../core/format.js';
import { recurringItems, type ListedItem, type RecurringGroup } from './recurring-sources.js';
import type { InsightContext, InsightResult } from '../core/types.js';

/** What a compact answer may take (the rest of the 2 KB is the envelope: the budget, freshness). */
const COMPACT_CHARS = 1560;
const GROUPS: RecurringGroup[] = ['subscriptions', 'bills', 'income'];
/** Each group's name in the answer: `incomes`, since `income` is the money term (a month's income). */
const LISTED: Record<RecurringGroup, string> = { subscriptions: 'subscriptions', bills: 'bills', income: 'incomes' };

export function recurringList(ctx: InsightContext, full: boolean): InsightResult {
  const { items, everyday } = recurringItems(ctx);
  const fig = rowMoney(ctx.money, full);
  const name = (i: ListedItem) => ctx.view.payeeName(i.payee_id) ?? 'no payee';
  const row = (i: ListedItem) => {
    const p = i.price_change;
    return present({
      payee_name: name(i),
      account_name: ctx.view.accountName(i.account_id),
      category_name: i.category_id ? (ctx.view.replica.categories.get(i.category_id)?.name ?? null) : null,
      source: i.source,
      cadence: i.cadence,
      ...fig('amount', Math.abs(i.amount)),
      varies: i.varies || null,
      last_date: i.last_date,
      next_date: i.next_date,
      ...fig('per_month', i.monthly),
      ...fig('annual', i.annual),
      price_change: p ? { ...fig('old', p.old), ...fig('new', p.new), date: p.date } : null,
    });
  };
  const structured: Record<string, unknown> = {};
  const totals: Record<string, unknown> = {};
  const sorted = new Map<RecurringGroup, ListedItem[]>();
  for (const g of GROUPS) {
    // The largest first: what costs (or brings) the most a year.
    const list = items.filter((i) => i.group === g).sort((a, b) => b.annual - a.annual || name(a).localeCompare(name(b)));
    sorted.set(g, list);
    if (full) structured[LISTED[g]] = list.map(row);
    const month = list.reduce((s, i) => s + i.monthly, 0);
    const year = list.reduce((s, i) => s + i.annual, 0);
    // Compact: the monthly totals; full adds the year's.
    totals[LISTED[g]] = { count: list.length, ...ctx.money('per_month', month), ...(full ? ctx.money('per_year', year) : {}) };
  }
  if (!full) Object.assign(structured, compactGroups(ctx, sorted, items.length));
  structured.totals = totals;
  if (everyday.length) structured.left_out = `Everyday purchases, not bills: ${everyday.map((id) => ctx.view.payeeName(id)).join(', ')}.`;
  if (!items.length) structured.none_because = whyNone(ctx);
  structured.rule = 'Schedules first; history adds 3+ at a steady interval (6+ if amounts vary), the last within 1.5 intervals.';
  if (!full) fit(structured, sorted, (g, shown) => Object.assign(structured, compactGroups(ctx, sorted, shown, g)));
  return { structured };
}

/**
 * Compact: each group as payee name → monthly amount formatted (`<group>_per_month_formatted`,
 * textByKey; full detail gives the numbers), the largest first (a name two accounts share gets its account
 * in brackets), and the names whose price rose or whose amount varies.
 */
function compactGroups(ctx: InsightContext, sorted: Map<RecurringGroup, ListedItem[]>, limit: number, only?: RecurringGroup): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const risen: string[] = [];
  const varies: string[] = [];
  for (const [g, list] of sorted) {
    if (only && g !== only) continue;
    const names = list.map((i) => ctx.view.payeeName(i.payee_id) ?? 'no payee');
    const rows: Record<string, number> = {};
    list.forEach((i, k) => {
      const n = names.indexOf(names[k]!) !== names.lastIndexOf(names[k]!) ? `${names[k]} (${ctx.view.accountName(i.account_id)})` : names[k]!;
      // Every rise named, shown or not: needs_attention and the alerts report each (price-rises.ts).
      if (i.price_change) risen.push(n);
      if (k >= limit) return;
      rows[n] = i.monthly;
      if (i.varies) varies.push(n);
    });
    const shown = list.slice(0, limit);
    out[`${LISTED[g]}_per_month_formatted`] = textByKey(ctx.format, rows);
    out[`${LISTED[g]}_more`] = list.length > shown.length ? list.length - shown.length : undefined;
  }
  if (!only) Object.assign(out, { price_rose: risen.length ? risen : undefined, amount_varies: varies.length ? varies : undefined });
  return out;
}

/** Compact past its share: the smallest items of the longest group leave first, counted in `<group>_more` (LISTED names). */
function fit(structured: Record<string, unknown>, sorted: Map<RecurringGroup, ListedItem[]>, show: (g: RecurringGroup, n: number) => void): void {
  const shown = new Map([...sorted].map(([g, l]) => [g, l.length]));
  while (JSON.stringify(structured).length > COMPACT_CHARS) {
    const [g, n] = [...shown].sort((a, b) => b[1] - a[1])[0]!;
    if (n === 0) return;
    shown.set(g, n - 1);
    show(g, n - 1);
  }
}

/** Why nothing qualifies: no repeating schedule, and the history's latest date against the staleness rule. */
function whyNone(ctx: InsightContext): string {
  let latest = '';
  for (const l of ctx.view.lines) if (l.on_budget && l.date > latest) latest = l.date;
  const history = latest
    ? `latest transaction ${latest}; a series is stale once its latest is more than 1.5 intervals before today (${ctx.today})`
    : 'no transactions in on-budget accounts';
  return `No repeating scheduled transaction in an open on-budget account, and no payee charged 3+ times at a steady interval that is still going: ${history}.`;
}
