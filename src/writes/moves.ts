/**
 * Money moves: create_transfer (one create with the other account's transfer payee, so YNAB
 * makes both sides; the side on budget carries a category only where YNAB needs one, budget to
 * tracking) and move_money (two monthly assignments; if the second fails, the first is put back,
 * or the result says exactly where the budget stands).
 */
import { currentMonth } from '../api/dates.js';
import type * as E from '../api/schemas/entities.js';
import { ArgumentError } from '../shared/argument-error.js';
import { ambiguous } from '../sync/creates.js';
import { duplicateCandidates } from './duplicates.js';
import { currentState, monthCategoryId, monthCategoryState, transactionState, type EntityChange } from './entities.js';
import type { Draft } from './plan.js';
import type { WriteKind } from './policy.js';
import { StepError, type Writer } from './steps.js';
import { accountOf, positive, txnRow, type TaskContext, type TaskPlan } from './task.js';

// ---- create_transfer -------------------------------------------------------------------------

export async function planTransfer(ctx: TaskContext, a: Record<string, any>): Promise<TaskPlan> {
  const r = ctx.replica;
  const from = accountOf(r, a.from_account_id, 'from_account_id');
  const to = accountOf(r, a.to_account_id, 'to_account_id');
  if (from.id === to.id) throw new ArgumentError('from_account_id and to_account_id are the same account; a transfer needs two');
  const amount = positive(a, ctx.digits);
  const date = a.date ?? ctx.today;
  if (date > ctx.today)
    throw new ArgumentError(`date ${date} is in the future; YNAB takes future transfers as scheduled transactions (create_scheduled_transaction)`);
  // The side that is on budget carries the category; when only one is, the transaction is made there.
  let side = from;
  let other = to;
  let sign = -1;
  let category: string | null = null;
  if (from.on_budget && !to.on_budget) {
    if (!a.category_id)
      throw new ArgumentError(
        `category_id is needed: money moving from the budget account ${JSON.stringify(from.name)} to the tracking account ${JSON.stringify(to.name)} leaves the budget, so YNAB spends it from a category`,
      );
    category = a.category_id;
  } else if (!from.on_budget && to.on_budget) {
    [side, other, sign] = [to, from, 1];
    category = a.category_id ?? ctx.view.readyToAssignId;
  } else if (a.category_id) {
    throw new ArgumentError(
      `category_id is only taken for a transfer between a budget account and a tracking account; between ${JSON.stringify(from.name)} and ${JSON.stringify(to.name)} YNAB puts no category`,
    );
  }
  if (!other.transfer_payee_id) throw new ArgumentError(`the account ${JSON.stringify(other.name)} has no transfer payee; YNAB cannot transfer to it`);
  const item = {
    account_id: side.id,
    date,
    amount: sign * amount,
    payee_id: other.transfer_payee_id,
    category_id: category,
    memo: a.memo ?? null,
    cleared: 'uncleared',
    approved: true,
  };
  const summary = `Transfer ${ctx.shown.money(amount)} from ${JSON.stringify(from.name)} to ${JSON.stringify(to.name)} on ${date}`;
  const after = transactionState(item);
  const pairAfter = transactionState({ ...item, account_id: other.id, amount: -item.amount, payee_id: side.transfer_payee_id, category_id: null });
  const entities: EntityChange[] = [
    { kind: 'transaction', id: 'new', action: 'create', before: null, after },
    { kind: 'transaction', id: 'new-other-side', action: 'create', before: null, after: pairAfter, linked: true },
  ];
  const base = {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { ...item, allow_duplicate: a.allow_duplicate === true },
    summary,
    kinds: ['create'] as WriteKind[],
    entities,
  };
  const dup = a.allow_duplicate ? [] : duplicateCandidates(r, [item]);
  if (dup.length) {
    return {
      ...base,
      answer: {
        held: 'duplicate',
        summary,
        duplicate_candidates: dup[0]!.candidates.map((t) => txnRow(ctx.shown, t.id, transactionState(t, r.linesOf(t.id)))),
        message: `Nothing was created: ${JSON.stringify(side.name)} already has a transfer of this amount with ${JSON.stringify(other.name)} within 3 days. Show the user; if they mean another one, call again with allow_duplicate: true.`,
      },
      apply: async () => ({ structured: {} }),
    };
  }
  return {
    ...base,
    apply: async (w) => {
      const { created } = await w.createTransactions([item]);
      const made = created[0]!;
      // Both sides: the answer shows the one made; the other is read back with one delta.
      const fresh = (await ctx.service.replicas.fresh(ctx.budgetId, 0)).replica;
      const pairId = made.transfer_transaction_id ?? '';
      const pair = currentState(fresh, 'transaction', pairId);
      const notices = pair ? [] : [`YNAB's answer did not show the other side in ${JSON.stringify(other.name)} yet; list_account_transactions shows it.`];
      const mine = transactionState(made);
      const sides =
        sign < 0
          ? { from: txnRow(ctx.shown, made.id, mine), to: pair ? txnRow(ctx.shown, pairId, pair) : null }
          : { from: pair ? txnRow(ctx.shown, pairId, pair) : null, to: txnRow(ctx.shown, made.id, mine) };
      return {
        structured: { transfer: sides, transaction_ids: [made.id, ...(pair ? [pairId] : [])] },
        draft: {
          summary,
          entities: [
            { kind: 'transaction', id: made.id, action: 'create', before: null, after: mine },
            ...(pair ? [{ kind: 'transaction' as const, id: pairId, action: 'create' as const, before: null, after: pair, linked: true }] : []),
          ],
        },
        notices,
      };
    },
  };
}

// ---- move_money ------------------------------------------------------------------------------

export async function planMove(ctx: TaskContext, a: Record<string, any>): Promise<TaskPlan> {
  const r = ctx.replica;
  const month = !a.month || a.month === 'current' ? currentMonth(new Date(`${ctx.today}T00:00:00Z`)) : a.month;
  if (!r.months.has(month))
    throw new ArgumentError(`month ${month} is not in this budget (its months run from ${r.summary.first_month ?? '?'} to ${r.summary.last_month ?? '?'})`);
  if (a.from_category_id === a.to_category_id) throw new ArgumentError('from_category_id and to_category_id are the same category');
  const cat = (id: string, label: string) => {
    const c = r.monthCategory(month, id);
    if (!c || c.deleted) throw new ArgumentError(`${label} ${id}: no such category in ${month.slice(0, 7)}`);
    if (c.internal)
      throw new ArgumentError(`${label}: ${JSON.stringify(c.name)} is YNAB's own; to assign money from Ready to Assign use update_month_category`);
    return c;
  };
  const from = cat(a.from_category_id, 'from_category_id');
  const to = cat(a.to_category_id, 'to_category_id');
  const amount = positive(a, ctx.digits);
  const fromId = monthCategoryId(month, from.id);
  const toId = monthCategoryId(month, to.id);
  const state = (c: E.CategoryBase, delta: number) => monthCategoryState(month, { ...c, budgeted: c.budgeted + delta, balance: c.balance + delta });
  const entities: EntityChange[] = [
    { kind: 'month_category', id: fromId, action: 'update', before: monthCategoryState(month, from), after: state(from, -amount) },
    { kind: 'month_category', id: toId, action: 'update', before: monthCategoryState(month, to), after: state(to, amount) },
  ];
  const summary = `Move ${ctx.shown.money(amount)} from ${JSON.stringify(from.name)} to ${JSON.stringify(to.name)} in ${month.slice(0, 7)}`;
  const notices = from.balance - amount < 0 ? [`${JSON.stringify(from.name)} will have ${ctx.shown.money(from.balance - amount)} available (overspent).`] : [];
  const side = (c: E.CategoryBase, delta: number) => ({
    category_id: c.id,
    name: c.name,
    assigned_before_formatted: ctx.shown.money(c.budgeted),
    assigned_milliunits: c.budgeted + delta,
    assigned_formatted: ctx.shown.money(c.budgeted + delta),
    available_milliunits: c.balance + delta,
    available_formatted: ctx.shown.money(c.balance + delta),
  });
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { month, from_category_id: from.id, to_category_id: to.id, amount },
    summary,
    kinds: ['update'],
    entities,
    notices,
    apply: async (w) => {
      const took = await w.setAssigned(month, from.id, from.budgeted - amount);
      let gave: E.CategoryBase;
      try {
        gave = await w.setAssigned(month, to.id, to.budgeted + amount);
      } catch (e) {
        gave = await secondStep(w, ctx, month, to, to.budgeted + amount, e, took);
      }
      const done: EntityChange[] = [
        { ...entities[0]!, after: monthCategoryState(month, took) },
        { ...entities[1]!, after: monthCategoryState(month, gave) },
      ];
      return {
        structured: { month, moved_milliunits: amount, moved_formatted: ctx.shown.money(amount), from: side(from, -amount), to: side(to, amount) },
        draft: { summary, entities: done },
      };
    },
  };

  /**
   * The second assignment failed: when YNAB may have applied it anyway (an answer lost every
   * time), look; when it did not, give the first category its money back; say exactly where the
   * budget stands when even that fails.
   */
  async function secondStep(
    w: Writer,
    c: TaskContext,
    m: string,
    target: E.CategoryBase,
    wanted: number,
    e: unknown,
    took: E.CategoryBase,
  ): Promise<E.CategoryBase> {
    // What stays applied when the money cannot be put back: the first assignment alone.
    const tookOnly: Draft = {
      summary: `Took ${c.shown.money(amount)} from ${JSON.stringify(from.name)} in ${m.slice(0, 7)} (moving it to ${JSON.stringify(target.name)} failed)`,
      entities: [{ ...entities[0]!, after: monthCategoryState(m, took) }],
    };
    if (ambiguous(e)) {
      const now = await c.service.replicas
        .fresh(c.budgetId, 0)
        .then((f) => f.replica.monthCategory(m, target.id))
        .catch(() => undefined);
      if (now?.budgeted === wanted) return now;
      if (!now) {
        throw new StepError(
          `${(e as Error).message}. ${JSON.stringify(from.name)} now has ${c.shown.money(from.budgeted - amount)} assigned (was ${c.shown.money(from.budgeted)}); whether ${JSON.stringify(target.name)} got the ${c.shown.money(amount)} cannot be known now (YNAB could not be read). Look at both in get_month before trying again`,
          tookOnly,
        );
      }
    }
    try {
      await w.setAssigned(m, from.id, from.budgeted);
    } catch (back) {
      throw new StepError(
        `${(e as Error).message}. The money was taken from ${JSON.stringify(from.name)} (assigned now ${c.shown.money(from.budgeted - amount)}, was ${c.shown.money(from.budgeted)}) but not given to ${JSON.stringify(target.name)} (assigned still ${c.shown.money(target.budgeted)}), and putting it back failed too (${(back as Error).message}): that ${c.shown.money(amount)} is in Ready to Assign. Assign it with update_month_category`,
        tookOnly,
      );
    }
    throw new StepError(`${(e as Error).message}. Nothing was moved: ${JSON.stringify(from.name)} was given back its ${c.shown.money(from.budgeted)}`);
  }
}
