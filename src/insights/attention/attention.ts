/**
 * What a careful budgeter would look at now, as a table of checks: each finds its items in the
 * budget's copy, worst or newest first, with a one-line reason. Transaction checks look at every
 * date; category checks at the current month; YNAB's card rules decide what is credit
 * overspending (YNAB "takes the cash out first": an overspent category's shortfall is cash
 * overspending up to what was spent from cash accounts, and credit overspending beyond that, up
 * to what was spent on cards) and when a card's payment category falls short of what is owed.
 */
import { addDays, currentMonth } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import { transactionDetail } from '../../api/read/transactions.js';
import type { Money } from '../core/format.js';
import { present } from '../core/format.js';
import { queueCount } from './queue-count.js';
import { unapprovedIn, uncategorizedOf } from './queue.js';

export { uncategorizedLine, uncategorizedOf } from './queue.js';
import { cardCoverage, type Coverage } from './card-coverage.js';
import { priceIncreases } from '../recurring/price-rises.js';
import type { PriceIncrease } from '../recurring/price-increase.js';
import { project, type Occurrence } from '../core/schedule.js';
import { targetMonth } from '../targets/target-month.js';
import { LATEST_WHY, readyToAssignFields, readyToAssignIn, readyToAssignLine } from '../core/ready-to-assign.js';
import { underfundedRows } from '../targets/underfunded.js';
import { isActivity, type BudgetView, type Line } from '../core/view.js';
import { lastReconciled, type ReconciledAt } from '../../sync/reconciled.js';

export interface AttentionContext {
  view: BudgetView;
  today: string;
  /** Writes a figure: the number and, for an answer, its `_formatted` text beside it. */
  money: Money;
  /** Full detail: ids of categories and accounts too (compact rows name them; tools take names). */
  full: boolean;
  includeOffBudget: boolean;
  /** When this server reconciled each account (src/sync/reconciled.ts): YNAB's API cannot set last_reconciled_at. */
  reconciled?: ReconciledAt;
}

interface Check {
  kind: string;
  /** One line; for a kind whose items say which way it went (Ready to Assign), from its items. */
  reason: string | ((items: Record<string, unknown>[], ctx: AttentionContext) => string);
  /** Every item found, worst or newest first. */
  find(ctx: AttentionContext): Record<string, unknown>[];
  /** What the whole list adds up to (every item, not only the examples shown), as answer fields. */
  total?(ctx: AttentionContext, items: Record<string, unknown>[]): Record<string, unknown>;
}

const CASH_TYPES = new Set(['checking', 'savings', 'cash']);
const STALE_DAYS = 30;
const SHORTFALL_DAYS = 14;

function counted(ctx: AttentionContext, accountId: string): boolean {
  const a = ctx.view.replica.accounts.get(accountId);
  return !!a && (a.on_budget || ctx.includeOffBudget);
}

/**
 * A transaction as an example row: compact, enough to recognise it (payee and amount; every tool
 * takes names); full, lean (id, date, account, payee, category, amount, memo), so that every item
 * of a kind fits the answer: get_transaction gives every field of one.
 */
function txnRow(ctx: AttentionContext, t: E.TransactionSummaryBase): Record<string, unknown> {
  const payee = { payee_name: ctx.view.payeeName(t.payee_id ?? null), ...ctx.money('amount', t.amount) };
  if (!ctx.full) return present(payee);
  // Named as the API names them (a split's category is "Split").
  const r = ctx.view.replica;
  const d = transactionDetail(
    r.lookup(),
    t,
    r.linesOf(t.id).filter((x) => !x.deleted),
  );
  return present({ id: t.id, date: t.date, account_name: d.account_name, ...payee, category_name: d.category_name, memo: t.memo });
}

/** The sum of one money field of the items (each an integer of milliunits). */
const sumOf = (items: Record<string, unknown>[], field: string) =>
  items.reduce((s: number, x) => {
    const v = x[field];
    return s + (typeof v === 'number' ? v : 0);
  }, 0);

/** The unapproved transactions the check counts, newest first. */
/** A price rise as needs_attention and the alerts' scan give it (events/over-lines.ts). */
export const priceRow = (ctx: AttentionContext, p: PriceIncrease) => ({
  ...(ctx.full ? { id: p.payee_id, date: p.date, interval_days: p.interval_days } : {}),
  name: ctx.view.payeeName(p.payee_id),
  ...ctx.money('old', p.old), // a price, positive, as recurring and the alert give it
  ...ctx.money('new', p.new),
});

export const unapprovedOf = (ctx: AttentionContext) => unapprovedIn(ctx.view, (id) => counted(ctx, id));

/** What the unapproved count leaves in tracking accounts (without include_off_budget), in one line: review_transactions counts them. */
function trackingLeftOut(ctx: AttentionContext): Record<string, string> {
  if (ctx.includeOffBudget) return {};
  const left = [...ctx.view.replica.transactions.values()].filter((t) => !t.approved && !ctx.view.onBudget(t.account_id));
  if (!left.length) return {};
  const names = [...new Set(left.map((t) => ctx.view.accountName(t.account_id)))].sort();
  return { tracking_left_out: `${left.length} more in tracking accounts (${names.join(', ')}): include_off_budget: true counts them.` };
}

/** A category's or account's id, in full detail only (compact rows name them; every tool takes names). */
const idOf = (ctx: AttentionContext, id: string) => (ctx.full ? { id } : {});

/** The month's categories, as the API's month view has them. */
function monthCategories(ctx: AttentionContext): E.CategoryBase[] {
  return ctx.view.replica.months.get(currentMonth(new Date(`${ctx.today}T00:00:00Z`)))?.categories.filter((c) => !c.deleted) ?? [];
}

/** What was spent in each category in a month from cash accounts and on cards (each net of refunds, never below zero). */
function spendingBySource(ctx: AttentionContext, month: string): (categoryId: string) => { cash: number; credit: number } {
  const sums = new Map<string, { cash: number; credit: number }>();
  for (const l of ctx.view.lines) {
    if (!isActivity(l) || !l.category_id || !l.date.startsWith(month.slice(0, 7))) continue;
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

export const CHECKS = [
  {
    kind: 'unapproved',
    reason: 'Waiting for approval.',
    find: (ctx) => unapprovedOf(ctx).map((t) => txnRow(ctx, t)),
    // The count's transfer sides and the total's transfers apart (queue-count.ts); what it left in tracking accounts.
    total: (ctx) => ({ ...queueCount(ctx.view, unapprovedOf(ctx), ctx.money), ...trackingLeftOut(ctx) }),
  },
  {
    kind: 'uncategorized',
    reason: 'Without a category.',
    find: (ctx) => uncategorizedOf(ctx.view).transactions.map((t) => txnRow(ctx, t)),
    // What has no category: the lines without one (a split's categorized lines are not in it; transfers never are).
    total: (ctx) =>
      ctx.money(
        'total',
        uncategorizedOf(ctx.view).lines.reduce((s, l) => s + l.amount, 0),
      ),
  },
  {
    kind: 'overspent',
    reason: 'Below zero: cash comes off next month, credit becomes card debt.',
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
    total: (ctx, items) => ctx.money('overspent_total', sumOf(items, 'overspent')),
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
    total: (ctx, items) => ctx.money('underfunded_total', sumOf(items, 'underfunded')),
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
              overspent_by_category: c.overspent.map((o) => ({ category: o.category, ...ctx.money('amount', o.amount) })),
              ...ctx.money('carried', c.carried),
              cover_with_move_money: c.moves,
            }
          : { why: why(c) }),
      })),
    total: (ctx, items) => ctx.money('shortfall_total', sumOf(items, 'shortfall')),
  },
  {
    kind: 'upcoming_shortfall',
    reason: `Scheduled in ${SHORTFALL_DAYS} days takes it below zero.`,
    find: (ctx) => {
      // Each account's lowest balance, and the bill that first takes it below zero.
      const lowest = new Map<string, { date: string; balance: number; bill?: Occurrence }>();
      for (const o of project(ctx.view, ctx.today, SHORTFALL_DAYS)) {
        const low = lowest.get(o.scheduled.account_id);
        const bill = low?.bill ?? (o.balance < 0 ? o : undefined);
        if (!low || o.balance < low.balance) lowest.set(o.scheduled.account_id, { date: o.date, balance: o.balance, bill });
        else low.bill = bill;
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
          bill: {
            payee_name: ctx.view.payeeName(low.bill!.scheduled.payee_id ?? null),
            ...ctx.money('amount', low.bill!.scheduled.amount),
            date: low.bill!.date,
          },
        }));
    },
    // How far below zero the accounts would go, together: what would cover them all.
    total: (ctx, items) => ctx.money('shortfall_total', -sumOf(items, 'lowest_balance')),
  },
  {
    kind: 'unreconciled',
    reason: `Not reconciled for ${STALE_DAYS}+ days.`,
    find: (ctx) => {
      const cutoff = addDays(ctx.today, -STALE_DAYS);
      const used = new Set<string>();
      for (const t of ctx.view.replica.transactions.values()) used.add(t.account_id);
      // The later of YNAB's date and this server's reconcile: YNAB's app keeps showing its own.
      const last = (a: E.Account) => lastReconciled(a.last_reconciled_at, ctx.reconciled?.[a.id])?.slice(0, 10);
      return [...ctx.view.replica.accounts.values()]
        .filter((a) => !a.closed && counted(ctx, a.id) && used.has(a.id) && (last(a) ?? '') < cutoff)
        .sort((a, b) => (last(a) ?? '').localeCompare(last(b) ?? ''))
        .map((a) => ({
          ...idOf(ctx, a.id),
          name: a.name,
          last_reconciled_on: last(a) ?? 'never',
          ...(last(a) !== a.last_reconciled_at?.slice(0, 10) ? { ynab_app_shows: a.last_reconciled_at?.slice(0, 10) ?? 'never' } : {}),
          ...(ctx.full ? ctx.money('cleared_balance', a.cleared_balance) : {}),
        }));
    },
  },
  {
    kind: 'price_increase',
    reason: 'A recurring charge rose 5% or more above its steady price.',
    find: (ctx) => priceIncreases(ctx.view, ctx.today, ctx.includeOffBudget).map((p) => priceRow(ctx, p)),
    // What the rises add, one charge of each.
    total: (ctx, items) => ctx.money('increase_total', sumOf(items, 'new') - sumOf(items, 'old')),
  },
  {
    kind: 'ready_to_assign',
    // The month named in the reason too: compact rows leave ready_to_assign_month out (2 KB).
    reason: (items, ctx) => {
      // The month whose figure decides the state: the furthest month's when it differs (find below).
      const rta = readyToAssignIn(ctx.view.replica.months, currentMonth(new Date(`${ctx.today}T00:00:00Z`)));
      const month = (rta?.latest?.month ?? rta?.month ?? ctx.today).slice(0, 7);
      return items[0]?.state === 'negative'
        ? `Negative in ${month}: more assigned than the budget holds (cash overspending comes off the next month's).`
        : `Money waiting for a job in ${month}.`;
    },
    find: (ctx) => {
      // The current month's figure, as get_month current gives it; the furthest month's beside it when it differs (ready-to-assign.ts).
      const rta = readyToAssignIn(ctx.view.replica.months, currentMonth(new Date(`${ctx.today}T00:00:00Z`)));
      if (!rta || (rta.amount === 0 && !rta.latest?.amount)) return [];
      const acted = rta.latest?.amount ?? rta.amount;
      // Compact rows leave the month to the kind's own fields beside the count (2 KB).
      const fields = ctx.full ? readyToAssignFields(rta, ctx.money) : ctx.money('ready_to_assign', rta.amount);
      return [{ ...fields, state: acted < 0 ? 'negative' : 'waiting' }];
    },
    // Beside the count, so that the figure and its month stay when a compact answer drops its examples.
    total: (ctx, items) => {
      const rta = readyToAssignIn(ctx.view.replica.months, currentMonth(new Date(`${ctx.today}T00:00:00Z`)))!;
      const fields = readyToAssignFields(rta, ctx.money);
      if (ctx.full) {
        const line = readyToAssignLine(rta, (v) => formatMilliunits(v, ctx.view.replica.summary.currency_format ?? null));
        return { ...fields, ...(line && items.length ? { note: line } : {}) };
      }
      // Compact (2 KB): the figures name both months, the note says why in short.
      delete fields.ready_to_assign_month;
      return { ...fields, ...(rta.latest && items.length ? { note: LATEST_WHY } : {}) };
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
  [total: string]: unknown;
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
        ...('total' in check ? check.total(ctx, items) : {}),
        reason: typeof check.reason === 'string' ? check.reason : check.reason(items, ctx),
        examples: items.slice(0, examples),
      });
  }
  return { attention: found, clear };
}
