/**
 * What a careful budgeter would look at now, as a table of checks: each finds its items in the
 * budget's copy, worst or newest first, with a one-line reason. Transaction checks look at every
 * date; category checks at the current month; YNAB's card rules decide what is credit
 * overspending (YNAB "takes the cash out first": an overspent category's shortfall is cash
 * overspending up to what was spent from cash accounts, and credit overspending beyond that, up
 * to what was spent on cards) and when a card's payment category falls short of what is owed.
 */
import { addDays, currentMonth } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import type { Money } from '../core/format.js';
import { present } from '../core/format.js';
import { cardCoverage, type Coverage } from './card-coverage.js';
import { priceIncreases } from '../recurring/price-increase.js';
import { project } from '../core/schedule.js';
import { targetMonth } from '../targets/target-month.js';
import { underfundedRows } from '../targets/underfunded.js';
import type { BudgetView, Line } from '../core/view.js';

export interface AttentionContext {
  view: BudgetView;
  today: string;
  /** Writes the figures of example rows (milliunits only in compact detail). */
  money: Money;
  /** Full detail: ids of categories and accounts too (compact rows name them; tools take names). */
  full: boolean;
  includeOffBudget: boolean;
}

interface Check {
  kind: string;
  /** One line; for a kind whose items say which way it went (Ready to Assign), from its items. */
  reason: string | ((items: Record<string, unknown>[]) => string);
  /** Every item found, worst or newest first. */
  find(ctx: AttentionContext): Record<string, unknown>[];
}

const CASH_TYPES = new Set(['checking', 'savings', 'cash']);
const STALE_DAYS = 30;
const SHORTFALL_DAYS = 14;

function counted(ctx: AttentionContext, accountId: string): boolean {
  const a = ctx.view.replica.accounts.get(accountId);
  return !!a && (a.on_budget || ctx.includeOffBudget);
}

/** A transaction as an example row: enough to recognise it and act on it. */
function txnRow(ctx: AttentionContext, t: E.TransactionSummaryBase): Record<string, unknown> {
  return present({
    id: ctx.full ? t.id : null,
    date: ctx.full ? t.date : null,
    payee_name: ctx.view.payeeName(t.payee_id ?? null),
    ...ctx.money('amount', t.amount),
  });
}

/** A category's or account's id, in full detail only (compact rows name them; every tool takes names). */
const idOf = (ctx: AttentionContext, id: string) => (ctx.full ? { id } : {});

const newestFirst = (a: E.TransactionSummaryBase, b: E.TransactionSummaryBase) => (a.date > b.date ? -1 : a.date < b.date ? 1 : 0);

/** The month's categories, as the API's month view has them. */
function monthCategories(ctx: AttentionContext): E.CategoryBase[] {
  return ctx.view.replica.months.get(currentMonth(new Date(`${ctx.today}T00:00:00Z`)))?.categories.filter((c) => !c.deleted) ?? [];
}

/** What was spent in each category in a month from cash accounts and on cards (each net of refunds, never below zero). */
function spendingBySource(ctx: AttentionContext, month: string): (categoryId: string) => { cash: number; credit: number } {
  const sums = new Map<string, { cash: number; credit: number }>();
  for (const l of ctx.view.activity()) {
    if (!l.category_id || !l.date.startsWith(month.slice(0, 7))) continue;
    let s = sums.get(l.category_id);
    if (!s) sums.set(l.category_id, (s = { cash: 0, credit: 0 }));
    if (ctx.view.isCredit(l.account_id)) s.credit += l.amount;
    else s.cash += l.amount;
  }
  return (id) => {
    const s = sums.get(id) ?? { cash: 0, credit: 0 };
    return { cash: Math.max(0, -s.cash), credit: Math.max(0, -s.credit) };
  };
}

/** A shortfall's cause in a few words: the categories overspent on the card this month, and/or debt carried. */
function why(c: Coverage): string {
  const over = c.overspent.length ? `overspent: ${c.overspent.map((o) => o.category).join(', ')}` : '';
  return [over, c.carried > 0 ? 'debt carried' : ''].filter(Boolean).join('; ');
}

/** A line YNAB shows as uncategorized: budget activity without a category (transfers and starting balances never are). */
export const uncategorizedLine = (view: BudgetView, l: Line) =>
  l.kind === 'activity' && l.on_budget && (!l.category_id || l.category_id === view.uncategorizedId);

export const CHECKS = [
  {
    kind: 'unapproved',
    reason: 'Waiting for approval.',
    find: (ctx) =>
      [...ctx.view.replica.transactions.values()]
        .filter((t) => !t.approved && counted(ctx, t.account_id))
        .sort(newestFirst)
        .map((t) => txnRow(ctx, t)),
  },
  {
    kind: 'uncategorized',
    reason: 'Without a category.',
    find: (ctx) => {
      const ids = new Set(ctx.view.lines.filter((l) => uncategorizedLine(ctx.view, l) && l.transaction.cleared !== 'reconciled').map((l) => l.transaction.id));
      return [...ids]
        .map((id) => ctx.view.replica.transactions.get(id)!)
        .sort(newestFirst)
        .map((t) => txnRow(ctx, t));
    },
  },
  {
    kind: 'overspent',
    reason: 'Below zero: cash is taken from next month, credit becomes card debt.',
    find: (ctx) => {
      const spentIn = spendingBySource(ctx, currentMonth(new Date(`${ctx.today}T00:00:00Z`)));
      return monthCategories(ctx)
        .filter((c) => c.balance < 0 && !c.internal && !ctx.view.isPaymentCategory(c.id))
        .sort((a, b) => a.balance - b.balance)
        .map((c) => {
          const over = -c.balance;
          const spent = spentIn(c.id);
          const credit = Math.min(Math.max(0, over - spent.cash), spent.credit);
          const type = credit === 0 ? 'cash' : credit === over ? 'credit' : 'cash and credit';
          return {
            ...idOf(ctx, c.id),
            name: c.name,
            ...ctx.money('overspent', over),
            type,
            ...(type === 'cash and credit' ? ctx.money('credit_overspent', credit) : {}),
          };
        });
    },
  },
  {
    kind: 'underfunded',
    reason: 'Targets short this month, soonest due first.',
    // The same targets and figures as targets_summary (underfunded.ts): visible ones, card payment categories too.
    find: (ctx) => {
      const r = ctx.view.replica;
      const rows = underfundedRows(r, targetMonth(r, currentMonth(new Date(`${ctx.today}T00:00:00Z`)), ctx.today));
      return rows
        .map((x, i) => ({ x, i }))
        .filter(({ x }) => x.need > 0)
        .sort((a, b) => (a.x.due ?? '9999').localeCompare(b.x.due ?? '9999') || a.i - b.i)
        .map(({ x }) => present({ ...idOf(ctx, x.c.id), name: x.c.name, ...ctx.money('underfunded', x.need), due: x.due }));
    },
  },
  {
    kind: 'card_payment_shortfall',
    reason: 'Payment category holds less than the card owes.',
    // Why (this month's credit overspending on the card, or debt carried) and, in full detail,
    // the move_money arguments that would cover it (card-coverage.ts).
    find: (ctx) =>
      cardCoverage(ctx.view, ctx.today).map((c) => ({
        ...idOf(ctx, c.account.id),
        name: c.account.name,
        ...ctx.money('balance', c.account.balance),
        ...(ctx.full ? ctx.money('payment_available', c.available) : {}),
        ...ctx.money('shortfall', c.shortfall),
        ...(ctx.full
          ? {
              overspent: c.overspent.map((o) => ({ category: o.category, ...ctx.money('amount', o.amount) })),
              ...ctx.money('carried', c.carried),
              cover_with_move_money: c.moves,
            }
          : { why: why(c) }),
      })),
  },
  {
    kind: 'upcoming_shortfall',
    reason: `Scheduled in ${SHORTFALL_DAYS} days takes it below zero.`,
    find: (ctx) => {
      const lowest = new Map<string, { date: string; balance: number }>();
      for (const o of project(ctx.view, ctx.today, SHORTFALL_DAYS)) {
        const low = lowest.get(o.scheduled.account_id);
        if (!low || o.balance < low.balance) lowest.set(o.scheduled.account_id, { date: o.date, balance: o.balance });
      }
      return [...lowest.entries()]
        .map(([id, low]) => ({ a: ctx.view.replica.accounts.get(id)!, low }))
        .filter(({ a, low }) => a && !a.closed && CASH_TYPES.has(a.type) && counted(ctx, a.id) && low.balance < 0)
        .sort((x, y) => x.low.balance - y.low.balance)
        .map(({ a, low }) => ({
          ...idOf(ctx, a.id),
          name: a.name,
          ...ctx.money('balance', a.balance),
          ...ctx.money('lowest_balance', low.balance),
          lowest_on: low.date,
        }));
    },
  },
  {
    kind: 'unreconciled',
    reason: `Not reconciled for ${STALE_DAYS}+ days.`,
    find: (ctx) => {
      const cutoff = addDays(ctx.today, -STALE_DAYS);
      const used = new Set([...ctx.view.replica.transactions.values()].map((t) => t.account_id));
      return [...ctx.view.replica.accounts.values()]
        .filter((a) => !a.closed && counted(ctx, a.id) && used.has(a.id) && (!a.last_reconciled_at || a.last_reconciled_at.slice(0, 10) < cutoff))
        .sort((a, b) => (a.last_reconciled_at ?? '').localeCompare(b.last_reconciled_at ?? ''))
        .map((a) => ({
          ...idOf(ctx, a.id),
          name: a.name,
          last_reconciled_on: a.last_reconciled_at?.slice(0, 10) ?? 'never',
          ...(ctx.full ? ctx.money('cleared_balance', a.cleared_balance) : {}),
        }));
    },
  },
  {
    kind: 'price_increase',
    reason: 'A recurring charge rose 5% or more above its usual amount.',
    find: (ctx) =>
      priceIncreases(ctx.view, ctx.today, ctx.includeOffBudget).map((p) => ({
        ...(ctx.full ? { id: p.payee_id, date: p.date, interval_days: p.interval_days } : {}),
        name: ctx.view.payeeName(p.payee_id),
        ...ctx.money('old', -p.old),
        ...ctx.money('new', -p.new),
      })),
  },
  {
    kind: 'ready_to_assign',
    reason: (items) => (items[0]?.state === 'negative' ? 'Negative: more assigned than the budget holds.' : 'Money waiting for a job.'),
    find: (ctx) => {
      // The latest month holds the up-to-date figure (money assigned ahead comes out of it).
      const months = [...ctx.view.replica.months.keys()].sort();
      const month = months[months.length - 1];
      const value = month ? ctx.view.replica.months.get(month)!.to_be_budgeted : 0;
      return value === 0 ? [] : [{ ...(ctx.full ? { month } : {}), ...ctx.money('ready_to_assign', value), state: value < 0 ? 'negative' : 'waiting' }];
    },
  },
] as const satisfies readonly Check[];

export type AttentionKind = (typeof CHECKS)[number]['kind'];

/** The kinds, in the order answers list them (the values of needs_attention's kind argument). */
export const ATTENTION_KINDS: readonly AttentionKind[] = CHECKS.map((c) => c.kind);

/**
 * Every check that found something: count, reason and up to `examples` items; and the ones that
 * found nothing. With `kind`, that check alone.
 */
export interface Found {
  kind: string;
  count: number;
  reason: string;
  examples: Record<string, unknown>[];
}

export function attention(ctx: AttentionContext, examples: number, kind?: string): { attention: Found[]; clear: string[] } {
  const found: Found[] = [];
  const clear: string[] = [];
  for (const check of CHECKS.filter((c) => !kind || c.kind === kind)) {
    const items = check.find(ctx);
    if (!items.length) clear.push(check.kind);
    else
      found.push({
        kind: check.kind,
        count: items.length,
        reason: typeof check.reason === 'string' ? check.reason : check.reason(items),
        examples: items.slice(0, examples),
      });
  }
  return { attention: found, clear };
}
