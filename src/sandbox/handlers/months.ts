/**
 * Budget months, and the money movements between categories within them.
 */
import * as R from '../../api/read/entities.js';
import * as V from '../store/views.js';
import { parseMonthParam, requireMonth, sinceKnowledge, visible } from './common.js';
import type { Handler } from './context.js';

export const monthHandlers: Record<string, Handler> = {
  getPlanMonths: (ctx) => {
    const b = ctx.budget;
    const d = b.derived();
    const since = sinceKnowledge(ctx);
    const months = d.months.filter((m) => visible(b.knowledgeOf(`month:${m.month}`), false, since));
    return { data: { months: months.map((m) => V.monthSummary(b, m)), server_knowledge: b.knowledge } };
  },

  getPlanMonth: (ctx) => ({ data: { month: V.monthDetail(ctx.budget, requireMonth(ctx.budget, ctx.params.month!)) } }),

  getMoneyMovements: (ctx) => {
    const b = ctx.budget;
    return { data: { money_movements: b.rec.money_movements.map((m) => R.moneyMovement(V.lookup(b), m)), server_knowledge: b.knowledge } };
  },

  getMoneyMovementsByMonth: (ctx) => {
    const b = ctx.budget;
    const month = parseMonthParam(b, ctx.params.month!);
    const list = b.rec.money_movements.filter((m) => m.month === month);
    return { data: { money_movements: list.map((m) => R.moneyMovement(V.lookup(b), m)), server_knowledge: b.knowledge } };
  },

  getMoneyMovementGroups: (ctx) => {
    const b = ctx.budget;
    return { data: { money_movement_groups: b.rec.money_movement_groups.map(R.moneyMovementGroup), server_knowledge: b.knowledge } };
  },

  getMoneyMovementGroupsByMonth: (ctx) => {
    const b = ctx.budget;
    const month = parseMonthParam(b, ctx.params.month!);
    const list = b.rec.money_movement_groups.filter((g) => g.month === month);
    return { data: { money_movement_groups: list.map(R.moneyMovementGroup), server_knowledge: b.knowledge } };
  },
};
