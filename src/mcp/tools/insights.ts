/**
 * The insight tools, declared as a table: each row is a name, title, description (when to use
 * it), its arguments, the members of its answer, and a small compute function over the budget's
 * local copy (src/insights: the view of the budget as YNAB counts it, periods, the transaction
 * filter, grouping, schedules, attention checks). They are registered, validated and answered
 * by the same code as the API tools (definitions.ts, run.ts, ../answer.ts): the budget resolved
 * by id, name or alias, names turned into ids, freshness, the data notice.
 */
import * as z from 'zod';
import { addDays, addMonths, currentMonth, monthOf } from '../../api/dates.js';
import { sumMilliunits } from '../../api/money.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';
import { attention, ATTENTION_KINDS } from '../../insights/attention.js';
import { FILTER_ARGS, lineFilter, OFF_BUDGET_ARG, SCOPE_ARGS, WINDOW_ARGS, type FilterArgs } from '../../insights/filter.js';
import { flows, present, rowMoney, type Money } from '../../insights/format.js';
import { combined, GROUP_BY, groupLines, sums, topGroups, type Group, type GroupBy } from '../../insights/group.js';
import { monthsOf, resolvePeriod, within, type Period } from '../../insights/period.js';
import { project } from '../../insights/schedule.js';
import type { BudgetView, Line } from '../../insights/view.js';
import { decodeCursor, encodeCursor } from '../../shared/paging.js';
import { MONTH_ARG, PAGING } from '../../shared/arg-schemas.js';

/** What a compute function gets: the budget as YNAB counts it, today (UTC), money formatting. */
export interface InsightContext {
  view: BudgetView;
  today: string;
  money: Money;
  format: CurrencyFormat | null;
  /** Decimal digits of the budget's currency (amount arguments may not have more). */
  digits?: number;
  /** Fingerprint of the call's arguments, for cursors. */
  queryKey: string;
}

export type InsightCompute = (ctx: InsightContext, args: Record<string, any>) => { structured: Record<string, unknown>; notices?: string[] };

export interface InsightSpec {
  name: string;
  title: string;
  description: string;
  input: Record<string, z.ZodType>;
  output: Record<string, z.ZodType>;
  compute: InsightCompute;
}

const MONEY = 'Milliunits (1000 = 1 unit); totals formatted.';
/**
 * Compact rows by default: figures in milliunits (totals formatted too), no ids a name stands
 * for, usual values left out (the server's instructions say so once for all five tools).
 */
const DETAIL_ARG = { detail: z.enum(['compact', 'full']).optional().describe('full: every field, formatted.') };
/** Paging with the tool's own page size (the API tools' default of 50 is not theirs). */
const paging = (size: string) => ({ ...PAGING, limit: PAGING.limit.describe(`Page size (default ${size}).`) });
const rows = z.array(z.unknown());
const object = z.looseObject({});

/** What was assigned to each category (or group) in the months a period touches. */
function assignedIn(view: BudgetView, period: Period, by: GroupBy): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of monthsOf(period)) {
    for (const c of view.replica.months.get(m)?.categories ?? []) {
      const key = by === 'category' ? c.id : c.category_group_id;
      out.set(key, (out.get(key) ?? 0) + c.budgeted);
    }
  }
  return out;
}

const spendingSummary: InsightCompute = (ctx, a) => {
  const by: GroupBy = a.group_by ?? 'category';
  const { current, previous } = resolvePeriod(a, ctx.today);
  // The period picks dates (and the previous period's); the filter picks everything else.
  const { since_date: _since, until_date: _until, ...scope } = a as FilterArgs;
  const lines = ctx.view.activity(a.include_off_budget).filter(lineFilter(ctx.view, scope, ctx.digits));
  const now = lines.filter((l) => within(l.date, current));
  // Month rows compare with the month before each; other rows with the previous equal period.
  const before =
    by === 'month'
      ? lines.filter((l) => l.date >= addMonths(monthOf(current.since), -1) && l.date < monthOf(current.since)).concat(now)
      : lines.filter((l) => within(l.date, previous));
  const key = (g: { id: string | null; name: string }) => g.id ?? `name:${g.name}`;
  const prevNet = new Map<string, number>();
  for (const g of groupLines(ctx.view, before, by)) prevNet.set(by === 'month' ? addMonths(g.id!, 1) : key(g), g.net);
  const assigned = by === 'category' || by === 'category_group' ? assignedIn(ctx.view, current, by) : undefined;
  const { rows: kept, others } = topGroups(groupLines(ctx.view, now, by), by, a.top ?? 10);
  const full = a.detail === 'full';
  const fig = rowMoney(ctx.money, full);
  // Compact rows name what they are (follow-up tools take names), give outflow and inflow only
  // where they differ from the net (money went both ways) and leave what was assigned to full
  // detail: ten rows of every figure would not fit a typical answer (2 KB).
  // A group that is no entity (no payee, no category) says `id: null` in both details: its name
  // is ours, not one a tool takes. The combined "everything else" row is no group and has no id.
  const row = (g: Group, previousNet: number, assignedSum?: number, combinedRow = false): Record<string, unknown> => {
    const id = combinedRow ? undefined : g.id === null ? null : full ? g.id : undefined;
    return {
      ...(id !== undefined ? { id } : {}),
      ...present({
        name: g.name,
        ...flows(fig, g.outflow, g.inflow, full),
        ...fig('net', g.net),
        count: g.count,
        ...fig('previous_net', previousNet),
        ...(full && assignedSum !== undefined ? fig('assigned', assignedSum) : {}),
      }),
    };
  };
  const assignedTo = (groups: readonly Group[]) => (assigned ? sumMilliunits(groups.map((g) => (g.id ? (assigned.get(g.id) ?? 0) : 0))) : undefined);
  const out = kept.map((g) => row(g, prevNet.get(key(g)) ?? 0, assignedTo([g])));
  if (others.length) {
    const previousNet = sumMilliunits(others.map((g) => prevNet.get(key(g)) ?? 0));
    out.push({ ...row(combined(others, 'everything else'), previousNet, assignedTo(others), true), groups: others.length });
  }
  const total = sums(now);
  const previousTotal = sums(lines.filter((l) => within(l.date, previous)));
  return {
    structured: {
      // The month a period was asked as is its since date: said again in full detail only.
      period: present({ ...current, month: full ? current.month : null }),
      previous_period: { since: previous.since, until: previous.until },
      group_by: by,
      rows: out,
      totals: {
        ...flows(ctx.money, total.outflow, total.inflow, full),
        ...ctx.money('net', total.net),
        count: total.count,
        ...ctx.money('previous_net', previousTotal.net),
      },
    },
  };
};

/** A line as a search row: what identifies it and what it says. */
function searchRow(ctx: InsightContext, l: Line, full: boolean): Record<string, unknown> {
  const t = l.transaction;
  return present({
    id: l.id,
    transaction_id: l.parent_id,
    date: l.date,
    ...rowMoney(ctx.money, full)('amount', l.amount),
    payee_name: ctx.view.payeeName(l.payee_id),
    category_name: ctx.view.categoryName(l),
    account_name: ctx.view.accountName(l.account_id),
    memo: l.memo,
    // Compact rows say the status only where it is not the usual one (cleared, approved).
    cleared: full || t.cleared !== 'cleared' ? t.cleared : null,
    approved: t.approved ? null : false,
    flag_color: t.flag_color || null,
  });
}

const SEARCH_LIMIT = 20;

const searchTransactions: InsightCompute = (ctx, a) => {
  // spending_only: the lines spending_summary counts (a view's drill-down adds up to its bar).
  const lines = a.spending_only ? ctx.view.activity(a.include_off_budget) : ctx.view.lines;
  const matches = lines.filter(lineFilter(ctx.view, a as FilterArgs, ctx.digits));
  matches.sort((x, y) => (x.date > y.date ? -1 : x.date < y.date ? 1 : x.id < y.id ? -1 : 1));
  const offset = decodeCursor(a.cursor, ctx.queryKey);
  const page = matches.slice(offset, offset + (a.limit ?? SEARCH_LIMIT));
  const end = offset + page.length;
  const total = sums(matches);
  const full = a.detail === 'full';
  return {
    structured: {
      transactions: page.map((l) => searchRow(ctx, l, full)),
      count: matches.length,
      returned: page.length,
      has_more: end < matches.length,
      ...(end < matches.length ? { next_cursor: encodeCursor(end, ctx.queryKey) } : {}),
      ...ctx.money('total', total.net),
      ...flows(ctx.money, total.outflow, total.inflow, full),
    },
  };
};

/** Examples per kind: a few in compact detail, the five of the full answer, every item of one kind asked for. */
const EXAMPLES = { compact: 2, full: 5, kind: 100 };

const needsAttention: InsightCompute = (ctx, a) => {
  const full = a.detail === 'full';
  const examples = a.kind ? EXAMPLES.kind : full ? EXAMPLES.full : EXAMPLES.compact;
  const found = attention(
    { view: ctx.view, today: ctx.today, money: rowMoney(ctx.money, full), full, includeOffBudget: a.include_off_budget === true },
    examples,
    a.kind,
  );
  return { structured: { as_of: ctx.today, ...found } };
};

const cashFlow: InsightCompute = (ctx, a) => {
  const last = currentMonth(new Date(`${ctx.today}T00:00:00Z`));
  const out: Record<string, unknown>[] = [];
  const totals = { income: 0, spending: 0 };
  const full = a.detail === 'full';
  const fig = rowMoney(ctx.money, full);
  for (let i = (a.months ?? 6) - 1; i >= 0; i--) {
    const month = addMonths(last, -i);
    const m = ctx.view.replica.months.get(month);
    if (!m) continue;
    const monthEnd = month === last ? ctx.today : addDays(addMonths(month, 1), -1);
    totals.income += m.income;
    totals.spending -= m.activity;
    out.push(
      present({
        month,
        ...fig('income', m.income),
        ...fig('spending', -m.activity),
        // The net is income minus spending: said in full detail, left to the reader in compact.
        ...(full ? fig('net', m.income + m.activity) : {}),
        ...fig('net_worth', ctx.view.netWorthOn(monthEnd)),
        partial: month === last ? true : null,
      }),
    );
  }
  return {
    structured: {
      months: out,
      totals: {
        ...ctx.money('income', totals.income),
        ...ctx.money('spending', totals.spending),
        ...(full ? ctx.money('net', totals.income - totals.spending) : {}),
      },
    },
  };
};

/** Occurrences per page: a few in compact detail (the totals cover them all), more in full. */
const UPCOMING_ROWS = { compact: 7, full: 100 };

const upcoming: InsightCompute = (ctx, a) => {
  const r = ctx.view.replica;
  const all = project(ctx.view, ctx.today, a.days ?? 30).filter((o) => ctx.view.onBudget(o.scheduled.account_id) || a.include_off_budget);
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
    },
  };
};

export const INSIGHTS: readonly InsightSpec[] = [
  {
    name: 'spending_summary',
    title: 'Spending summary',
    description: `Use for "how much did we spend on…": spending in a month or date range by category, group, payee, account or month, against the previous period. Transfers, income and starting balances are not spending. ${MONEY}`,
    input: {
      month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (the default); or give since_date.'),
      ...WINDOW_ARGS,
      group_by: z.enum(GROUP_BY).optional().describe('Default category.'),
      top: z.int().min(1).max(50).optional().describe('Rows kept (default 10); the rest are summed as "everything else".'),
      ...SCOPE_ARGS,
      ...OFF_BUDGET_ARG,
      ...DETAIL_ARG,
    },
    output: { period: object, rows, totals: object },
    compute: spendingSummary,
  },
  {
    name: 'search_transactions',
    title: 'Search transactions',
    description: `Use to find or total transactions by text, amount, date, account, category, payee, status or flag: newest first, with count and totals (split lines match on their own). ${MONEY}`,
    input: {
      ...FILTER_ARGS,
      spending_only: z.boolean().optional().describe('Only spending, as spending_summary counts it.'),
      ...paging(String(SEARCH_LIMIT)),
      ...DETAIL_ARG,
    },
    output: { transactions: rows },
    compute: searchTransactions,
  },
  {
    name: 'needs_attention',
    title: 'What needs attention',
    description: `Use for "what needs my attention" or a check-up: unapproved or uncategorized transactions, overspent or underfunded categories, card payment shortfalls, bills an account cannot cover, stale reconciliation, Ready to Assign. ${MONEY}`,
    input: { kind: z.enum(ATTENTION_KINDS).optional().describe('One kind, up to 100 items.'), ...OFF_BUDGET_ARG, ...DETAIL_ARG },
    output: { attention: rows },
    compute: needsAttention,
  },
  {
    name: 'cash_flow',
    title: 'Cash flow',
    description: `Use for trends and "are we saving": income, spending, net and net worth for each recent month (the current one partial). ${MONEY}`,
    input: { months: z.int().min(1).max(36).optional().describe('How many months, up to this one (default 6).'), ...DETAIL_ARG },
    output: { months: rows },
    compute: cashFlow,
  },
  {
    name: 'upcoming',
    title: 'Upcoming scheduled transactions',
    description: `Use for "what bills are coming": scheduled transactions due in the coming days, each with its account's projected balance. ${MONEY}`,
    input: {
      days: z.int().min(1).max(366).optional().describe('Days ahead (default 30).'),
      ...OFF_BUDGET_ARG,
      ...paging(`${UPCOMING_ROWS.compact}, full ${UPCOMING_ROWS.full}`),
      ...DETAIL_ARG,
    },
    output: { occurrences: rows },
    compute: upcoming,
  },
];
