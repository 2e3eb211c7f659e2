/**
 * What is true of a budget now, as conditions the occurrence log turns into events: each with its
 * event type, a stable key (type, entity, period) and its payload. Computed from the budget's copy
 * with the insight computations the tools answer with (needs_attention's checks, card coverage,
 * the scheduled-transaction projection, price increases), so an alert and the tool that explains
 * it never disagree. A condition that holds on the next scan keeps its key and does not fire
 * again (log.ts); one that clears and comes back later fires again, under its new period.
 */
import { DEFAULT_DIGEST, type DigestTime } from './digest-time.js';
import { digestDue, digestReadyToAssign, digestSpending } from './digest.js';
import { currentMonth } from '../api/dates.js';
import { CHECKS, type AttentionContext } from '../insights/attention/attention.js';
import { overLines } from './over-lines.js';
import { project } from '../insights/core/schedule.js';
import type { BudgetView } from '../insights/core/view.js';
import type { ReconciledAt } from '../sync/reconciled.js';
import type { EventName } from './catalog.js';
import { payload, payloadName } from './payload.js';

export interface Condition {
  name: EventName;
  /** (type, entity, period): the same key on the next scan is the same occurrence. */
  key: string;
  data: Record<string, unknown>;
  /** A level that must rise to fire again (the review queue's size). */
  level?: number;
}

/** How far ahead bill.uncovered looks. */
export const BILL_DAYS = 7;

type Row = Record<string, any>;

function rows(ctx: AttentionContext, kind: (typeof CHECKS)[number]['kind']): Row[] {
  return CHECKS.find((c) => c.kind === kind)!.find(ctx) as Row[];
}

/**
 * Every condition of the budget now. `now` decides the month, the window and the digest's week;
 * `reconciled`, when this server reconciled each account (YNAB's last_reconciled_at cannot say).
 */
export function detect(view: BudgetView, now: Date, digest: DigestTime = DEFAULT_DIGEST, reconciled: ReconciledAt = {}): Condition[] {
  const today = now.toISOString().slice(0, 10);
  const month = currentMonth(now);
  const budget = view.replica.summary.id;
  const ctx: AttentionContext = { view, today, money: (n, v) => ({ [n]: v }), full: true, includeOffBudget: false, reconciled };
  const out: Condition[] = [];
  const add = (name: EventName, entity: string, period: string, fields: Record<string, unknown>, level?: number) =>
    out.push({ name, key: `${name}|${entity}|${period}`, data: payload(budget, fields), ...(level === undefined ? {} : { level }) });

  // The checks over every transaction, brought up to date from what the sync changed (over-lines.ts).
  const lines = overLines(ctx);
  const { unapproved, uncategorized } = lines;
  let queue = unapproved.size;
  for (const id of uncategorized) if (!unapproved.has(id)) queue++;
  if (queue > 0) add('review.queue_grew', budget, String(queue), { queue_size: queue, unapproved: unapproved.size, uncategorized: uncategorized.size }, queue);

  for (const r of rows(ctx, 'overspent'))
    add('category.overspent', r.id, month, { month, category_id: r.id, category: payloadName(r.name), amount: r.overspent });
  for (const r of rows(ctx, 'underfunded'))
    add('target.due_underfunded', r.id, month, { month, category_id: r.id, category: payloadName(r.name), amount: r.underfunded });
  for (const r of rows(ctx, 'card_payment_shortfall'))
    add('card.payment_short', r.id, month, { month, account_id: r.id, account: payloadName(r.name), amount: r.shortfall });
  for (const r of rows(ctx, 'upcoming_shortfall'))
    add('forecast.below_zero', r.id, r.lowest_on.slice(0, 7), {
      account_id: r.id,
      account: payloadName(r.name),
      lowest_on: r.lowest_on,
      amount: -r.lowest_balance,
    });
  for (const r of rows(ctx, 'unreconciled'))
    add('account.reconcile_due', r.id, r.last_reconciled_on, { account_id: r.id, account: payloadName(r.name), last_reconciled_on: r.last_reconciled_on });
  for (const r of lines.price_increase)
    add('price.increased', r.id, r.date, { payee_id: r.id, payee: payloadName(r.name), date: r.date, old: r.old, amount: r.new });

  for (const o of project(view, today, BILL_DAYS)) {
    const s = o.scheduled;
    const account = view.replica.accounts.get(s.account_id);
    if (s.amount >= 0 || o.balance >= 0 || !account || account.closed || !account.on_budget || view.isCredit(account.id)) continue;
    add('bill.uncovered', s.id, o.date, {
      scheduled_transaction_id: s.id,
      account_id: account.id,
      account: payloadName(account.name),
      payee: s.payee_id ? payloadName(view.payeeName(s.payee_id)) : null,
      date: o.date,
      bill: -s.amount,
      amount: -o.balance,
    });
  }

  const due = digestDue(now, digest);
  if (due) {
    const open: Record<string, number> = {};
    for (const c of out) open[c.name] = (open[c.name] ?? 0) + 1;
    add('digest.weekly', budget, due.week, { week: due.week, ...digestSpending(view, due), queue_size: queue, ...digestReadyToAssign(view, month), open });
  }
  return out;
}
