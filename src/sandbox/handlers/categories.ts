/**
 * Category groups and categories: the list (delta-capable), one category (this month or a given
 * month), creation and changes including targets, and assigning money in a month.
 */
import type { z } from 'zod';
import type * as B from '../../api/schemas/bodies.js';
import { createCategory, createGroup, pairedLoan } from '../domain/categories.js';
import { assign } from '../domain/months.js';
import { badRequest, resourceNotFound } from '../errors.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { CategoryGroupRec, CategoryRec, GoalRec } from '../store/records.js';
import * as R from '../../api/read/entities.js';
import * as V from '../store/views.js';
import { assignableMonth, requireCategory, requireMonth, sinceKnowledge, visible } from './common.js';
import type { Handler } from './context.js';

const CADENCE = { monthly: 1, weekly: 2, yearly: 13 } as const;

function requireUserGroup(b: BudgetStore, id: string, field: string): CategoryGroupRec {
  const g = b.rec.category_groups.get(id);
  if (!g || g.deleted) throw badRequest(`${field} ${id} does not exist in this budget`);
  if (g.internal) throw badRequest(`${field} ${id} is an internal group ("${g.name}"); categories can only be placed in your own groups`);
  return g;
}

/**
 * The goal a create/update asks for: undefined = leave as is, null = remove. Follows SaveCategory:
 * a target without a goal creates a monthly one (NEED, MF for a card payment category, DEBT for a
 * category paired to a loan account: API 1.87); goal_frequency replaces the cadence and needs a
 * target and no date. A loan's category takes no date, frequency or goal_needs_whole_amount (1.87).
 */
function goalFrom(b: BudgetStore, c: Pick<CategoryRec, 'goal' | 'role' | 'linked_account_id'>, input: B.SaveCategory): GoalRec | null | undefined {
  const payment = c.role === 'credit_card_payment';
  const loan = pairedLoan(b, c);
  if (loan) {
    const refused = (field: string) =>
      badRequest(`category.${field} is not supported for a category paired to a loan account ("${loan.name}"): its target is DEBT`);
    if (input.goal_target_date) throw refused('goal_target_date');
    if (input.goal_frequency !== undefined) throw refused('goal_frequency');
    if (input.goal_needs_whole_amount != null) throw refused('goal_needs_whole_amount');
  }
  if (input.goal_frequency !== undefined) {
    if (input.goal_target === undefined || input.goal_target === null) throw badRequest('category.goal_frequency requires category.goal_target');
    if (input.goal_target_date) throw badRequest('category.goal_frequency cannot be combined with category.goal_target_date');
    if (payment) throw badRequest('category.goal_frequency is not supported for Credit Card Payment categories');
  }
  if (input.goal_target === null) {
    if (input.goal_target_date || input.goal_needs_whole_amount != null) {
      throw badRequest('category.goal_target null removes the target; do not send goal_target_date or goal_needs_whole_amount with it');
    }
    return null;
  }
  const existing = c.goal;
  if (input.goal_target === undefined && !existing) {
    if (input.goal_target_date || input.goal_needs_whole_amount != null) {
      throw badRequest('this category has no target: send category.goal_target to create one');
    }
    return undefined;
  }
  const month = b.derived().currentMonth;
  const goal: GoalRec = existing
    ? { ...existing }
    : {
        type: loan ? 'DEBT' : payment ? 'MF' : 'NEED',
        target: 0,
        target_date: null,
        needs_whole_amount: payment || loan ? null : true,
        day: null,
        cadence: 1,
        cadence_frequency: 1,
        creation_month: month,
        snoozed_at: null,
      };
  if (input.goal_target !== undefined) goal.target = input.goal_target;
  if (input.goal_target_date !== undefined) goal.target_date = input.goal_target_date;
  if (input.goal_frequency !== undefined) {
    goal.type = 'NEED';
    goal.cadence = CADENCE[input.goal_frequency];
    goal.cadence_frequency = 1;
    goal.target_date = null;
    goal.day = input.goal_frequency === 'weekly' ? new Date(`${b.today()}T00:00:00Z`).getUTCDay() : null;
    goal.needs_whole_amount ??= true;
  }
  if (input.goal_needs_whole_amount !== undefined && input.goal_needs_whole_amount !== null) {
    if (goal.type !== 'NEED') throw badRequest(`category.goal_needs_whole_amount applies only to NEED targets (this target is ${goal.type})`);
    goal.needs_whole_amount = input.goal_needs_whole_amount;
  }
  return goal;
}

function nameOf(input: { name?: string | null }, field: string): string | undefined {
  if (input.name === undefined || input.name === null) return undefined;
  const name = input.name.trim();
  if (!name) throw badRequest(`${field} must not be blank`);
  return name;
}

export const categoryHandlers: Record<string, Handler> = {
  getCategories: (ctx) => {
    const b = ctx.budget;
    b.derived();
    const since = sinceKnowledge(ctx);
    const groups = [...b.rec.category_groups.values()].flatMap((g) => {
      const cats = [...b.rec.categories.values()].filter(
        (c) => c.category_group_id === g.id && visible(b.knowledgeOf(`category:${c.id}`, c.knowledge), c.deleted, since),
      );
      const show = since === undefined ? !g.deleted : g.knowledge > since || cats.length > 0;
      return show ? [{ ...R.categoryGroup(g), categories: cats.map((c) => V.category(b, c)) }] : [];
    });
    return { data: { category_groups: groups, server_knowledge: b.knowledge } };
  },

  getCategoryById: (ctx) => ({ data: { category: V.category(ctx.budget, requireCategory(ctx.budget, ctx.params.category_id!)) } }),

  getMonthCategoryById: (ctx) => {
    const b = ctx.budget;
    const month = requireMonth(b, ctx.params.month!);
    return { data: { category: V.category(b, requireCategory(b, ctx.params.category_id!), month.month) } };
  },

  createCategory: (ctx) => {
    const b = ctx.budget;
    const { category: input } = ctx.body as z.infer<typeof B.PostCategoryWrapper>;
    const group = requireUserGroup(b, input.category_group_id, 'category.category_group_id');
    const name = nameOf(input, 'category.name')!;
    const goal = goalFrom(b, { goal: null, role: null, linked_account_id: null }, input);
    const created = b.change(() => createCategory(b, group.id, name, { note: input.note ?? null, goal: goal ?? null }));
    return { status: 201, data: { category: V.category(b, created), server_knowledge: b.knowledge } };
  },

  updateCategory: (ctx) => {
    const b = ctx.budget;
    const c = requireCategory(b, ctx.params.category_id!);
    const { category: input } = ctx.body as z.infer<typeof B.PatchCategoryWrapper>;
    if (c.role === 'ready_to_assign' || c.role === 'uncategorized') throw badRequest(`"${c.name}" is an internal category and cannot be changed`);
    const name = nameOf(input, 'category.name');
    if (c.role && (name !== undefined || input.category_group_id !== undefined)) {
      throw badRequest(`"${c.name}" is a Credit Card Payment category: its name and group follow the card account`);
    }
    const group = input.category_group_id !== undefined ? requireUserGroup(b, input.category_group_id, 'category.category_group_id') : undefined;
    const goal = goalFrom(b, c, input);
    b.change(() => {
      b.stamp(c);
      if (name !== undefined) c.name = name;
      if (input.note !== undefined) c.note = input.note;
      if (group) c.category_group_id = group.id;
      if (goal !== undefined) c.goal = goal;
    });
    return { data: { category: V.category(b, c), server_knowledge: b.knowledge } };
  },

  updateMonthCategory: (ctx) => {
    const b = ctx.budget;
    const month = assignableMonth(b, ctx.params.month!);
    const c = requireCategory(b, ctx.params.category_id!);
    if (c.role === 'ready_to_assign' || c.role === 'uncategorized') throw badRequest(`money cannot be assigned to the internal category "${c.name}"`);
    const { category: input } = ctx.body as z.infer<typeof B.PatchMonthCategoryWrapper>;
    b.change(() => assign(b, month, [{ categoryId: c.id, budgeted: input.budgeted }], b.now().toISOString()));
    return { data: { category: V.category(b, c, month), server_knowledge: b.knowledge } };
  },

  createCategoryGroup: (ctx) => {
    const b = ctx.budget;
    const { category_group: input } = ctx.body as z.infer<typeof B.PostCategoryGroupWrapper>;
    const name = nameOf(input, 'category_group.name')!;
    const group = b.change(() => createGroup(b, name));
    return { status: 201, data: { category_group: R.categoryGroup(group), server_knowledge: b.knowledge } };
  },

  updateCategoryGroup: (ctx) => {
    const b = ctx.budget;
    const id = ctx.params.category_group_id!;
    const g = b.rec.category_groups.get(id);
    if (!g || g.deleted) throw resourceNotFound(`category group ${id} was not found in this budget`);
    if (g.internal) throw badRequest(`"${g.name}" is an internal category group and cannot be renamed`);
    const { category_group: input } = ctx.body as z.infer<typeof B.PatchCategoryGroupWrapper>;
    const name = nameOf(input, 'category_group.name')!;
    b.change(() => {
      b.stamp(g);
      g.name = name;
    });
    return { data: { category_group: R.categoryGroup(g), server_knowledge: b.knowledge } };
  },
};
