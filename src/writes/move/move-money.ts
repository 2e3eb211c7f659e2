/**
 * move_money: two monthly assignments, from one category to another; if the second fails, the
 * first is put back, or the result says exactly where the budget stands. It computes from YNAB's
 * figures (what each category has assigned), so its plan reads the budget as it is now.
 */
import * as z from 'zod';
import { currentMonth } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import { MONTH_ARG, NameOrId } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { ambiguous } from '../../sync/creates.js';
import { monthCategoryId, monthCategoryState, type EntityChange } from '../pipeline/entities.js';
import type { Draft } from '../pipeline/plan.js';
import { readFor } from '../pipeline/reads.js';
import { StepError, type Writer } from '../pipeline/steps.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { moneyPair, positive, taskWrite, type TaskPlan } from '../pipeline/task.js';
import { moneyOf } from '../pipeline/after-state.js';
import { readyToAssignFields, readyToAssignIn, readyToAssignLine } from '../../insights/core/ready-to-assign.js';

const INPUT = {
  from_category_id: NameOrId,
  to_category_id: NameOrId,
  ...moneyPair('Amount moved in currency units, above zero.'),
  month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (default).'),
  // A move that leaves the source overspent is previewed first (policy.ts); this skips that.
  allow_overspend: z.boolean().optional(),
};

/** The move as planned: the month, the two categories as they are now, the amount, and the plan's entities. */
interface Move {
  month: string;
  from: E.CategoryBase;
  to: E.CategoryBase;
  amount: number;
  entities: EntityChange[];
}

/** A category of the month that money can be moved from or to. */
function categoryOf(ctx: PlanContext, month: string, id: string, label: string): E.CategoryBase {
  const c = ctx.replica.monthCategory(month, id);
  if (!c || c.deleted) throw new ArgumentError(`${label} ${id}: no such category in ${month.slice(0, 7)}`);
  if (c.internal) throw new ArgumentError(`${label}: ${JSON.stringify(c.name)} is YNAB's own; to assign money from Ready to Assign use update_month_category`);
  return c;
}

async function planMove(ctx: PlanContext, a: z.infer<z.ZodObject<typeof INPUT>>): Promise<TaskPlan> {
  const r = ctx.replica;
  const month = !a.month || a.month === 'current' ? currentMonth(new Date(`${ctx.today}T00:00:00Z`)) : a.month;
  if (!r.months.has(month))
    throw new ArgumentError(`month ${month} is not in this budget (its months run from ${r.summary.first_month ?? '?'} to ${r.summary.last_month ?? '?'})`);
  if (a.from_category_id === a.to_category_id) throw new ArgumentError('from_category_id and to_category_id are the same category');
  const from = categoryOf(ctx, month, a.from_category_id, 'from_category_id');
  const to = categoryOf(ctx, month, a.to_category_id, 'to_category_id');
  const amount = positive(a, ctx.digits);
  const state = (c: E.CategoryBase, delta: number) => monthCategoryState(month, { ...c, budgeted: c.budgeted + delta, balance: c.balance + delta });
  const entities: EntityChange[] = [
    { kind: 'month_category', id: monthCategoryId(month, from.id), action: 'update', before: monthCategoryState(month, from), after: state(from, -amount) },
    { kind: 'month_category', id: monthCategoryId(month, to.id), action: 'update', before: monthCategoryState(month, to), after: state(to, amount) },
  ];
  const move: Move = { month, from, to, amount, entities };
  const left = from.balance - amount;
  const summary = `Move ${ctx.shown.money(amount)} from ${JSON.stringify(from.name)} to ${JSON.stringify(to.name)} in ${month.slice(0, 7)}`;
  const notices = left < 0 ? [`${JSON.stringify(from.name)} will have ${ctx.shown.money(left)} available (overspent).`] : [];
  // Leaving the source overspent is held for a preview, which says what it would leave.
  const overspends = left < 0 && a.allow_overspend !== true;
  // A category as YNAB's answer to its assignment left it.
  const side = (c: E.CategoryBase, now: E.CategoryBase) => ({
    category_id: c.id,
    name: c.name,
    ...moneyOf(ctx.shown, 'assigned_before', c.budgeted),
    ...moneyOf(ctx.shown, 'assigned', now.budgeted),
    ...moneyOf(ctx.shown, 'available', now.balance),
  });
  // Moving between two categories of one month leaves its Ready to Assign as it was (read within the last second).
  // Named with its month, and the furthest month's beside it when it differs (ready-to-assign.ts).
  const readyToAssign = readyToAssignIn(r.months, month)!;
  const rtaLine = readyToAssignLine(readyToAssign, (v) => ctx.shown.money(v));
  if (rtaLine) notices.push(rtaLine);
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { month, from_category_id: from.id, to_category_id: to.id, amount },
    summary: overspends ? `${summary}, leaving ${JSON.stringify(from.name)} at ${ctx.shown.money(left)} available (overspent)` : summary,
    kinds: overspends ? ['update', 'overspend'] : ['update'],
    entities,
    notices,
    ...(overspends ? { details: moneyOf(ctx.shown, 'from_available_after', left) } : {}),
    apply: async (w) => {
      const took = await w.setAssigned(month, from.id, from.budgeted - amount);
      let gave: E.CategoryBase;
      try {
        gave = await w.setAssigned(month, to.id, to.budgeted + amount);
      } catch (e) {
        gave = await secondStep(w, ctx, move, e, took);
      }
      const done: EntityChange[] = [
        { ...entities[0]!, after: monthCategoryState(month, took) },
        { ...entities[1]!, after: monthCategoryState(month, gave) },
      ];
      return {
        result: {
          month,
          ...moneyOf(ctx.shown, 'moved', amount),
          from: side(from, took),
          to: side(to, gave),
          ...readyToAssignFields(readyToAssign, (name, v) => moneyOf(ctx.shown, name, v)),
        },
        draft: { summary, entities: done },
      };
    },
  };
}

/**
 * The second assignment failed: when YNAB may have applied it anyway (an answer lost every
 * time), look; when it did not, give the first category its money back; say exactly where the
 * budget stands when even that fails.
 */
async function secondStep(w: Writer, c: PlanContext, move: Move, e: unknown, took: E.CategoryBase): Promise<E.CategoryBase> {
  const { month: m, from, to: target, amount, entities } = move;
  const wanted = target.budgeted + amount;
  // What stays applied when the money cannot be put back: the first assignment alone.
  const tookOnly: Draft = {
    summary: `Took ${c.shown.money(amount)} from ${JSON.stringify(from.name)} in ${m.slice(0, 7)} (moving it to ${JSON.stringify(target.name)} failed)`,
    entities: [{ ...entities[0]!, after: monthCategoryState(m, took) }],
  };
  if (ambiguous(e)) {
    const now = await readFor(c.service.replicas, c.budgetId, 'read-back')
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

export const MOVE_MONEY = taskWrite({ input: INPUT, needsNow: true, plan: planMove });
