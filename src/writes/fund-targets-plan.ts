/**
 * fund_targets' plan (fund-targets.ts declares the tool): the month's categories in group order,
 * each one's new assigned amount by the option (auto-assign.ts), Ready to Assign after, and what
 * happens when Ready to Assign cannot cover the increases: refused, or (`fund_in_order`) the
 * decreases first, then the increases in group order while money is left, the last one in part.
 * Before anything is sent, the request ledger must have room for one request per category.
 * Applying sets each category's assigned amount (an idempotent request: one resent after a lost
 * answer cannot double anything); a step that fails for good stops the rest, and what was applied
 * is journaled as the change, so undo_change puts it back.
 */
import type * as z from 'zod';
import { QuotaExhaustedError } from '../api/client/errors.js';
import type * as E from '../api/schemas/entities.js';
import { ArgumentError } from '../shared/argument-error.js';
import { ambiguous } from '../sync/creates.js';
import { monthArg } from '../insights/targets.js';
import { assignedBy, type FUND_TARGETS_INPUT } from './auto-assign.js';
import { monthCategoryId, monthCategoryState, type EntityChange } from './entities.js';
import type { PlanContext } from './pipeline.js';
import { readFor } from './reads.js';
import { StepError, type Writer } from './steps.js';
import type { TaskPlan } from './task.js';

type Args = z.infer<z.ZodObject<typeof FUND_TARGETS_INPUT>>;

/** Requests one call may make: the API sets one month category per request. */
export const MAX_CATEGORIES = 60;

interface Change {
  c: E.CategoryBase;
  to: number;
}

/** The month's categories the call is about, in group order: visible ones, or the one named. */
function categoriesOf(ctx: PlanContext, month: string, a: Args): E.CategoryBase[] {
  const r = ctx.replica;
  if (a.category_group_id && !r.categoryGroups.get(a.category_group_id))
    throw new ArgumentError(`category_group_id ${a.category_group_id}: no such category group`);
  const out: E.CategoryBase[] = [];
  for (const g of r.categoryGroups.values()) {
    if (g.deleted || g.internal || (a.category_group_id ? g.id !== a.category_group_id : g.hidden)) continue;
    for (const base of r.categories.values()) {
      if (base.category_group_id !== g.id || base.deleted || base.internal) continue;
      if (a.category_id ? base.id !== a.category_id : base.hidden) continue;
      const c = r.monthCategory(month, base.id);
      if (c) out.push(c);
    }
  }
  if (a.category_id && !out.length)
    throw new ArgumentError(`category_id ${a.category_id}: no such category in ${month.slice(0, 7)}${a.category_group_id ? ' in that group' : ''}`);
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

/** The ledger has room for every request before the first goes out; else refused, saying when. */
async function checkRoom(ctx: PlanContext, requests: number): Promise<void> {
  const room = await ctx.service.client.currentLedger()?.room?.(requests, 'write');
  if (room && !room.ok) throw new QuotaExhaustedError(room.nextSlotAt, `fund_targets was not started: ${room.message}`);
}

export async function planFundTargets(ctx: PlanContext, a: Args): Promise<TaskPlan> {
  const r = ctx.replica;
  const month = monthArg(r, a.month, ctx.today);
  const unit = 10 ** Math.max(0, 3 - (ctx.digits ?? 2));
  let changes: Change[] = [];
  for (const c of categoriesOf(ctx, month, a)) {
    const to = assignedBy(a.option, r, month, c, unit);
    if (to !== null && to !== c.budgeted) changes.push({ c, to });
  }
  const rta = r.months.get(month)?.to_be_budgeted ?? 0;
  const total = (list: Change[]) => list.reduce((s, ch) => s + ch.to - ch.c.budgeted, 0);
  let left: Change[] = [];
  if (total(changes) > 0 && rta - total(changes) < 0) {
    const short = ctx.shown.money(total(changes) - rta);
    if (a.fund_in_order !== true)
      throw new ArgumentError(
        `Ready to Assign (${ctx.shown.money(rta)}) cannot cover ${a.option} in ${month.slice(0, 7)}: it needs ${ctx.shown.money(total(changes))}, ${short} more. Nothing was changed; fund_in_order: true funds the categories in group order until Ready to Assign runs out`,
      );
    ({ funded: changes, left } = inOrder(changes, rta));
  }
  const rtaAfter = rta - total(changes);
  const summary = `${a.option} in ${month.slice(0, 7)}: ${changes.length} categories, ${ctx.shown.money(total(changes))} assigned in all; Ready to Assign ${ctx.shown.money(rta)} → ${ctx.shown.money(rtaAfter)}`;
  const details = {
    ...money(ctx, 'ready_to_assign_before', rta),
    ...money(ctx, 'ready_to_assign_after', rtaAfter),
    categories: changes.map((ch) => ({
      name: ch.c.name,
      assigned_before_milliunits: ch.c.budgeted,
      assigned_milliunits: ch.to,
      available_milliunits: ch.c.balance + ch.to - ch.c.budgeted,
    })),
    ...(left.length ? { not_funded: left.map((ch) => ch.c.name) } : {}),
  };
  if (!changes.length)
    return {
      ...base(ctx, month, a, summary, []),
      answer: {
        ...details,
        message: left.length
          ? `Nothing was changed: Ready to Assign (${ctx.shown.money(rta)}) funds none of the ${left.length} categories ${a.option} would fund.`
          : `Nothing to change: ${a.option} leaves every category as it is.`,
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
  return {
    ...base(ctx, month, a, summary, entities),
    details,
    listed: 0,
    notices: left.length ? [`Ready to Assign runs out: ${left.length} categories are not (fully) funded: ${left.map((ch) => ch.c.name).join(', ')}.`] : [],
    apply: (w) => applyAll(w, ctx, month, changes, entities, summary, details),
  };
}

const money = (ctx: PlanContext, name: string, v: number) => ({ [`${name}_milliunits`]: v, [`${name}_formatted`]: ctx.shown.money(v) });

const never = (): never => {
  throw new Error('nothing to apply');
};

function base(ctx: PlanContext, month: string, a: Args, summary: string, entities: EntityChange[]) {
  const args = { ...a, month };
  return { tool: ctx.tool, budgetId: ctx.budgetId, args, summary, kinds: ['update' as const], entities };
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
  return { result: { month, ...details, count: changes.length }, draft: { summary, entities: done } };
}
