/**
 * fund_targets' plan (fund-targets.ts declares the tool): the month's categories in group order
 * (YNAB's month, or one after the budget's last as projected: ../insights/targets/target-month.ts), each
 * one's new assigned amount by the option (auto-assign.ts), Ready to Assign after, and what
 * happens when Ready to Assign cannot cover the increases: underfunded funds in YNAB's order
 * (overspending first, then targets soonest due first: ../insights/targets/underfunded.ts), the other
 * options the decreases first, then the increases in group order; each while money is left, the
 * last one in part. Every call answers with a preview first (policy.ts: it may change 60
 * categories at once). Before anything is sent, the request ledger must have room for one request
 * per category. Applying sets each category's assigned amount (an idempotent request: one resent
 * after a lost answer cannot double anything); a step that fails for good stops the rest, and
 * what was applied is journaled as the change, so undo_change puts it back.
 */
import type * as z from 'zod';
import { monthOf } from '../../api/dates.js';
import { QuotaExhaustedError } from '../../api/client/errors.js';
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { ambiguous } from '../../sync/creates.js';
import { minorUnit, monthArg, targetMonth, type TargetMonth } from '../../insights/targets/target-month.js';
import { fundInOrder, scopedCategories, underfundedRows } from '../../insights/targets/underfunded.js';
import { assignedBy, type FUND_TARGETS_INPUT } from './auto-assign.js';
import { monthCategoryId, monthCategoryState, type EntityChange } from '../pipeline/entities.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { readFor } from '../pipeline/reads.js';
import { StepError, type Writer } from '../pipeline/steps.js';
import type { TaskPlan } from '../pipeline/task.js';
import { moneyOf } from '../pipeline/after-state.js';
import { latestMonthOf, readyToAssignIn, readyToAssignLine } from '../../insights/core/ready-to-assign.js';

type Args = z.infer<z.ZodObject<typeof FUND_TARGETS_INPUT>>;

/** Requests one call may make: the API sets one month category per request. */
export const MAX_CATEGORIES = 60;

interface Change {
  c: E.CategoryBase;
  to: number;
}

/** The scope's categories of the month; a group or category named that is not there is refused. */
function categoriesOf(ctx: PlanContext, tm: TargetMonth, a: Args): E.CategoryBase[] {
  const r = ctx.replica;
  if (a.category_group_id && !r.categoryGroups.get(a.category_group_id))
    throw new ArgumentError(`category_group_id ${a.category_group_id}: no such category group`);
  const base = a.category_id ? r.categories.get(a.category_id) : undefined;
  if (base?.internal) throw new ArgumentError(`category_id ${a.category_id}: "${base.name}" is YNAB's own category; money cannot be assigned to it`);
  const out = scopedCategories(r, tm, a).map((x) => x.c);
  if (a.category_id && !out.length)
    throw new ArgumentError(`category_id ${a.category_id}: no such category in ${tm.month.slice(0, 7)}${a.category_group_id ? ' in that group' : ''}`);
  return out;
}

/** The changes Ready to Assign can pay for: decreases first, then increases in order, the last one in part. */
function inOrder(changes: Change[], rta: number): { funded: Change[]; left: Change[] } {
  let money = rta;
  const funded: Change[] = [];
  const left: Change[] = [];
  for (const ch of changes) if (ch.to < ch.c.budgeted) money += ch.c.budgeted - ch.to;
  for (const ch of changes) {
    const delta = ch.to - ch.c.budgeted;
    if (delta <= 0) funded.push(ch);
    else if (money <= 0) left.push(ch);
    else {
      const give = Math.min(delta, money);
      money -= give;
      funded.push({ c: ch.c, to: ch.c.budgeted + give });
      if (give < delta) left.push(ch);
    }
  }
  return { funded: funded.filter((ch) => ch.to !== ch.c.budgeted), left };
}

/** Why a category of the scope is left as it is, by reason: the answer names each (issue 58 item 8). */
type LeftOut = Record<string, string[]>;

function leave(out: LeftOut, why: string, c: E.CategoryBase): void {
  (out[why] ??= []).push(c.name);
}

/** Underfunded YNAB's way: each category's need and the overspending it covers, in YNAB's order while Ready to Assign lasts. */
function underfunded(ctx: PlanContext, tm: TargetMonth, a: Args): { changes: Change[]; left: Change[]; leftOut: LeftOut } {
  const rows = underfundedRows(ctx.replica, tm, a);
  const leftOut: LeftOut = {};
  for (const x of rows) if (x.need + x.cover <= 0) leave(leftOut, x.c.goal_type ? 'already funded' : 'no target', x.c);
  const all = rows.filter((x) => x.need + x.cover > 0);
  const wanted = all.reduce((s, x) => s + x.need + x.cover, 0);
  const { given, short } = fundInOrder(all, wanted <= tm.rta ? wanted : tm.rta);
  return {
    changes: all.filter((x) => given.has(x.c.id)).map((x) => ({ c: x.c, to: x.c.budgeted + given.get(x.c.id)! })),
    left: short.map((x) => ({ c: x.c, to: x.c.budgeted + x.need + x.cover })),
    leftOut,
  };
}

/** The ledger has room for every request before the first goes out; else refused, saying when. */
async function checkRoom(ctx: PlanContext, requests: number): Promise<void> {
  const room = await ctx.service.client.currentLedger()?.room?.(requests, 'write');
  if (room && !room.ok) throw new QuotaExhaustedError(room.nextSlotAt, `fund_targets was not started: ${room.message}`);
}

export async function planFundTargets(ctx: PlanContext, a: Args): Promise<TaskPlan> {
  const r = ctx.replica;
  const month = monthArg(r, a.month, ctx.today);
  const tm = targetMonth(r, month, ctx.today);
  const unit = minorUnit(r);
  const categories = categoriesOf(ctx, tm, a);
  let changes: Change[] = [];
  let left: Change[] = [];
  let leftOut: LeftOut = {};
  if (a.option === 'underfunded') ({ changes, left, leftOut } = underfunded(ctx, tm, a));
  else {
    for (const c of categories) {
      const to = assignedBy(a.option, r, month, c, unit);
      if (to !== null && to !== c.budgeted) changes.push({ c, to });
      else leave(leftOut, to === null ? 'no history to average' : `already as ${a.option} asks`, c);
    }
    if (total(changes) > 0 && total(changes) > tm.rta) ({ funded: changes, left } = inOrder(changes, tm.rta));
  }
  const rta = tm.rta;
  const rtaAfter = rta - total(changes);
  const summary = `${a.option} in ${month.slice(0, 7)}: ${changes.length} categories, ${ctx.shown.money(total(changes))} assigned in all; Ready to Assign ${ctx.shown.money(rta)} → ${ctx.shown.money(rtaAfter)}`;
  // The month the figure is of (a projected month's is the furthest month's), and the furthest month's when it differs.
  const named = readyToAssignIn(r.months, tm.projected ? (latestMonthOf(r.months) ?? month) : month);
  const rtaLine = named && readyToAssignLine(named, (v) => ctx.shown.money(v));
  const details = {
    ...money(ctx, 'assigned_total', total(changes)),
    ...money(ctx, 'ready_to_assign_before', rta),
    ...(named ? { ready_to_assign_month: named.month } : {}),
    ...(named?.latest ? { ...money(ctx, 'ready_to_assign_latest', named.latest.amount), ready_to_assign_latest_month: named.latest.month } : {}),
    ...money(ctx, 'ready_to_assign_after', rtaAfter),
    categories: changes.map((ch) => ({
      name: ch.c.name,
      ...money(ctx, 'assigned_before', ch.c.budgeted),
      ...money(ctx, 'assigned', ch.to),
      ...money(ctx, 'available', ch.c.balance + ch.to - ch.c.budgeted),
    })),
    ...(left.length ? { not_funded: left.map((ch) => ch.c.name) } : {}),
    ...(Object.keys(leftOut).length ? { left_out: leftOut } : {}),
  };
  if (!changes.length)
    return {
      ...base(ctx, month, a, summary, []),
      answer: {
        ...details,
        message: left.length
          ? `Nothing was changed: Ready to Assign (${ctx.shown.money(rta)}) funds none of the ${left.length} categories ${a.option} would fund.`
          : `Nothing to change: ${a.option} leaves every category as it is.`,
        ...(rtaLine ? { notices: [rtaLine] } : {}),
      },
      apply: never,
    };
  if (changes.length > MAX_CATEGORIES)
    throw new ArgumentError(
      `${a.option} would change ${changes.length} categories; one call changes at most ${MAX_CATEGORIES} (one request each): narrow it with category_group_id`,
    );
  await checkRoom(ctx, changes.length);
  const state = (c: E.CategoryBase, to: number) => monthCategoryState(month, { ...c, budgeted: to, balance: c.balance + to - c.budgeted });
  const entities: EntityChange[] = changes.map((ch) => ({
    kind: 'month_category',
    id: monthCategoryId(month, ch.c.id),
    action: 'update',
    before: monthCategoryState(month, ch.c),
    after: state(ch.c, ch.to),
  }));
  const order = a.option === 'underfunded' ? "YNAB's order (overspending, then targets soonest due first)" : 'group order';
  return {
    ...base(ctx, month, a, summary, entities),
    details,
    listed: 0,
    notices: [
      ...(left.length
        ? [`Ready to Assign runs out, funding in ${order}: ${left.length} categories are not (fully) funded: ${left.map((ch) => ch.c.name).join(', ')}.`]
        : []),
      ...(rtaLine ? [rtaLine] : []),
    ],
    apply: (w) => applyAll(w, ctx, month, changes, entities, summary, details),
  };
}

const total = (list: Change[]) => list.reduce((s, ch) => s + ch.to - ch.c.budgeted, 0);

const money = (ctx: PlanContext, name: string, v: number) => moneyOf(ctx.shown, name, v);

const never = (): never => {
  throw new Error('nothing to apply');
};

function base(ctx: PlanContext, month: string, a: Args, summary: string, entities: EntityChange[]) {
  const args = { ...a, month };
  return { tool: ctx.tool, budgetId: ctx.budgetId, args, summary, kinds: ['targets' as const], entities };
}

/** Sets each category in turn; a step that fails for good stops the rest, and what was done is journaled. */
async function applyAll(
  w: Writer,
  ctx: PlanContext,
  month: string,
  changes: Change[],
  entities: EntityChange[],
  summary: string,
  details: Record<string, unknown>,
) {
  const done: EntityChange[] = [];
  for (const [i, ch] of changes.entries()) {
    let after: E.CategoryBase | undefined;
    try {
      after = await w.setAssigned(month, ch.c.id, ch.to);
    } catch (e) {
      // An answer lost every time: the copy, read again, says whether it landed.
      if (ambiguous(e)) {
        const now = await readFor(ctx.service.replicas, ctx.budgetId, 'read-back')
          .then((f) => f.replica.monthCategory(month, ch.c.id))
          .catch(() => undefined);
        if (now?.budgeted === ch.to) after = now;
      }
      if (!after) {
        const rest = changes.slice(i).map((x) => x.c.name);
        const partial = done.length ? { summary: `${summary} (stopped after ${done.length} of ${changes.length})`, entities: done } : undefined;
        throw new StepError(
          `${(e as Error).message}. ${done.length} of ${changes.length} categories were set; not set: ${rest.join(', ')} (${JSON.stringify(ch.c.name)} may or may not have been, if YNAB could not answer)`,
          partial,
        );
      }
    }
    done.push({ ...entities[i]!, after: monthCategoryState(month, after) });
  }
  // A later month's Ready to Assign is YNAB's to say (what later months took from it): read back.
  let after = details;
  if (month > monthOf(ctx.today)) {
    const rta = await readFor(ctx.service.replicas, ctx.budgetId, 'read-back')
      .then((f) => f.replica.months.get(month)?.to_be_budgeted)
      .catch(() => undefined);
    if (rta !== undefined) after = { ...details, ...money(ctx, 'ready_to_assign_after', rta) };
  }
  return { result: { month, ...after, count: changes.length }, draft: { summary, entities: done } };
}
