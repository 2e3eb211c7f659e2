/**
 * The user, the budget list, a budget's full export (or its delta) and its settings.
 */
import type { BudgetSummary, BudgetDetail } from '../../api/schemas/entities.js';
import type { BudgetStore } from '../store/budget-store.js';
import * as R from '../../api/read/entities.js';
import { exportSegments } from '../store/export-segments.js';
import * as V from '../store/views.js';
import { sinceKnowledge, visible } from './common.js';
import type { Handler } from './context.js';
import { userOf } from '../state.js';

function summary(b: BudgetStore, includeAccounts: boolean): BudgetSummary {
  const d = b.derived();
  const s: BudgetSummary = {
    id: b.id,
    name: b.rec.name,
    last_modified_on: b.rec.last_modified_on,
    first_month: d.firstMonth,
    last_month: d.lastMonth,
    date_format: b.rec.date_format,
    currency_format: b.rec.currency_format,
  };
  if (includeAccounts) s.accounts = [...b.rec.accounts.values()].filter((a) => !a.deleted).map((a) => V.account(b, a));
  return s;
}

/**
 * The normalized export: every collection flat, split lines apart from their transactions. A full
 * export (no `since`) takes its transactions and split lines from the segments encoded once
 * (export-segments.ts); a delta builds the few that changed.
 */
export function budgetDetail(b: BudgetStore, since: number | undefined): BudgetDetail {
  const d = b.derived();
  const r = b.rec;
  const transactions = since === undefined ? [] : [...r.transactions.values()].filter((t) => visible(t.knowledge, t.deleted, since));
  const scheduled = [...r.scheduled_transactions.values()].filter((s) => visible(b.knowledgeOf(`scheduled:${s.id}`, s.knowledge), s.deleted, since));
  return {
    ...summary(b, false),
    accounts: [...r.accounts.values()].filter((a) => visible(b.knowledgeOf(`account:${a.id}`, a.knowledge), a.deleted, since)).map((a) => V.accountBase(b, a)),
    payees: [...r.payees.values()].filter((p) => visible(p.knowledge, p.deleted, since)).map(R.payee),
    payee_locations: [...r.payee_locations.values()].filter((l) => visible(l.knowledge, l.deleted, since)).map(R.payeeLocation),
    category_groups: [...r.category_groups.values()].filter((g) => visible(g.knowledge, g.deleted, since)).map(R.categoryGroup),
    categories: [...r.categories.values()]
      .filter((c) => visible(b.knowledgeOf(`category:${c.id}`, c.knowledge), c.deleted, since))
      .map((c) => V.categoryBase(b, c)),
    months: d.months.filter((m) => visible(b.knowledgeOf(`month:${m.month}`), false, since)).map((m) => V.monthDetailBase(b, m)),
    // Segments serialize as the arrays they stand for (json.ts).
    ...(since === undefined
      ? (exportSegments(b) as unknown as Pick<BudgetDetail, 'transactions' | 'subtransactions'>)
      : { transactions: transactions.map(V.transactionSummary), subtransactions: transactions.flatMap((t) => V.subtransactions(b, t)) }),
    scheduled_transactions: scheduled.map((s) => V.scheduledBase(b, s)),
    scheduled_subtransactions: scheduled.flatMap((s) => V.scheduledSubs(b, s)),
  };
}

export const budgetHandlers: Record<string, Handler> = {
  getUser: (ctx) => ({ data: { user: { id: userOf(ctx.state, ctx.token).id } } }),

  getPlans: (ctx) => {
    const include = ctx.query.include_accounts === true;
    const budgets = userOf(ctx.state, ctx.token).budgets;
    const defaultBudget = ctx.token.defaultBudgetId ? budgets.find((b) => b.id === ctx.token.defaultBudgetId) : undefined;
    return {
      data: {
        plans: budgets.map((b) => summary(b, include)),
        default_plan: defaultBudget ? summary(defaultBudget, include) : null,
      },
    };
  },

  getPlanById: (ctx) => {
    const b = ctx.budget;
    const since = sinceKnowledge(ctx);
    // Computed figures may move when the day changes; settle them before reading the knowledge.
    b.derived();
    return { data: { plan: budgetDetail(b, since), server_knowledge: b.knowledge } };
  },

  getPlanSettingsById: (ctx) => ({
    data: { settings: { date_format: ctx.budget.rec.date_format, currency_format: ctx.budget.rec.currency_format } },
  }),
};
