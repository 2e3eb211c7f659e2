/**
 * The task-shaped writes, declared as a table like the insights: each row is a name, title,
 * description (when to use it, and that it may answer with a preview first), arguments, the
 * members of its answer, the kinds of write it makes (whether it takes confirm_token in a mode),
 * and a plan function over the budget's copy read nearly now. A plan says what would change
 * (src/writes/plan.ts); the shared gate (../guard.ts) lets it through or answers with a preview;
 * `apply` makes it through the service, each request exactly once (src/writes/steps.ts), and
 * what it did is journaled for undo. Accounts, categories and payees may be named (../resolve.ts).
 *  - create_transfer: one create with the other account's transfer payee; YNAB makes both sides.
 *  - move_money: two monthly assignments; if the second fails, the first is put back.
 *  - approve_transactions / recategorize_transactions: by ids or the search_transactions filter,
 *    with expected_count; a count that does not hold previews (nothing written).
 *  - split_transaction: src/writes/split.ts. undo_change: src/writes/undo.ts.
 *  - list_recent_changes: the undo journal, read.
 */
import * as z from 'zod';
import { IsoDate } from '../../api/schemas/common.js';
import { FILTER_ARGS } from '../../insights/filter.js';
import { approve, MAX_SELECTED, recategorize } from '../../writes/bulk.js';
import { MAX_CHANGES } from '../../writes/undo-journal.js';
import { describeEntity, transactionState, type EntityChange } from '../../writes/entities.js';
import { planMove, planTransfer } from '../../writes/moves.js';
import type { WriteKind } from '../../writes/policy.js';
import { applySplit, planSplit, type SplitLine } from '../../writes/split.js';
import { txnRow, type TaskContext, type TaskPlan } from '../../writes/task.js';
import { applyUndo, checkUndoable, undoEntities, UndoConflictError } from '../../writes/undo.js';
import type { McpToolset } from '../toolsets.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { guardedString, MONTH_ARG, NameOrId } from '../../shared/arg-schemas.js';
import { optionalMoney, requiredMoney } from '../../shared/money-args.js';
import { MILLIUNITS_DOC } from '../../shared/field-docs.js';

export type { TaskContext, TaskPlan } from '../../writes/task.js';

export interface TaskSpec {
  name: string;
  title: string;
  description: string;
  toolset: McpToolset;
  access: 'read' | 'write';
  /** The kinds of write it can make: with the mode, whether it can be held (and takes confirm_token). */
  kinds: WriteKind[];
  /** Removes or overwrites data (annotations). */
  destructive: boolean;
  /** Computes from YNAB's figures (a month's assignments): its plan always reads the budget as it is now. */
  needsNow?: boolean;
  input: Record<string, z.ZodType>;
  output: Record<string, z.ZodType>;
  read?: (ctx: TaskContext, args: Record<string, any>) => Promise<Record<string, unknown>>;
  plan?: (ctx: TaskContext, args: Record<string, any>) => Promise<TaskPlan>;
}

const object = z.looseObject({});
const rows = z.array(z.looseObject({}));
const MONEY_PAIR = (doc: string) => ({ amount: z.number().optional().describe(doc), amount_milliunits: z.int().optional().describe(MILLIUNITS_DOC) });

// ---- split_transaction, undo_change, list_recent_changes --------------------------------------

async function planSplitTool(ctx: TaskContext, a: Record<string, any>): Promise<TaskPlan> {
  const lines: SplitLine[] = (a.subtransactions as Record<string, unknown>[]).map((l, i) => ({
    amount: requiredMoney(l, 'amount', { where: `subtransactions[${i}]`, digits: ctx.digits }),
    category_id: (l.category_id as string | null | undefined) ?? null,
    payee_id: (l.payee_id as string | null | undefined) ?? null,
    payee_name: (l.payee_name as string | undefined) ?? null,
    memo: (l.memo as string | undefined) ?? null,
  }));
  const total = optionalMoney(a, 'amount', { digits: ctx.digits });
  const p = planSplit(ctx.replica, ctx.shown, a.transaction_id, lines, total, ctx.today);
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { transaction_id: a.transaction_id, amount: total ?? null, subtransactions: lines },
    summary: p.summary,
    kinds: ['split'],
    entities: p.entities,
    details: { kept: p.kept, ...(p.lost.length ? { not_kept: p.lost } : {}) },
    notices: p.notices,
    apply: async (w) => {
      const done = await applySplit(p, a.transaction_id, w, ctx.shown);
      return {
        structured: {
          transaction: txnRow(ctx.shown, done.transaction.id, transactionState(done.transaction)),
          ...(p.rewrite ? { replaced: a.transaction_id } : {}),
          kept: p.kept,
          ...(p.lost.length ? { not_kept: p.lost } : {}),
        },
        draft: done.draft,
        notices: done.notices,
      };
    },
  };
}

async function planUndo(ctx: TaskContext, a: Record<string, any>): Promise<TaskPlan> {
  const change = await ctx.changes.get(ctx.budgetId, a.change_id);
  if (!change)
    throw new ArgumentError(
      `change_id ${a.change_id}: no such change in this budget's undo journal (it keeps the last ${MAX_CHANGES}); list_recent_changes lists them`,
    );
  checkUndoable(change, ctx.replica, ctx.shown);
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { change_id: change.id },
    summary: `Undo ${change.id} (${change.summary})`,
    kinds: ['undo'],
    // The entities as they are now: a change in between spends the token.
    entities: undoEntities(change),
    apply: async (w) => {
      const claimed = await ctx.changes.claim(ctx.budgetId, change.id);
      if ('refused' in claimed) throw new UndoConflictError(claimed.refused);
      try {
        const { draft, notices } = await applyUndo(claimed, w, ctx.shown);
        return {
          structured: {
            undone: change.id,
            restored: draft.entities.map((e) => ({
              action: e.action,
              entity: e.kind,
              id: e.id,
              description: describeEntity(e.kind, e.id, e.after ?? e.before, ctx.shown),
            })),
          },
          draft,
          notices,
        };
      } catch (e) {
        const partial = (e as { undoneSoFar?: EntityChange[] }).undoneSoFar;
        if (partial?.length)
          await ctx.changes
            .append(ctx.budgetId, { tool: ctx.tool, summary: `Partly undid ${change.id}`, entities: partial, undoes: change.id })
            .catch(() => undefined);
        await ctx.changes.settle(ctx.budgetId, change.id, undefined).catch(() => undefined);
        throw e;
      }
    },
  };
}

async function recentChanges(ctx: TaskContext, a: Record<string, any>): Promise<Record<string, unknown>> {
  const changes = await ctx.changes.recent(ctx.budgetId, a.limit ?? 20);
  return {
    changes: changes.map((c) => ({
      change_id: c.id,
      at: c.at,
      tool: c.tool,
      summary: c.summary,
      count: c.entities.filter((e) => !e.linked).length,
      entities: c.entities.slice(0, 5).map((e) => `${e.action} ${describeEntity(e.kind, e.id, e.after ?? e.before, ctx.shown)}`),
      ...(c.not_undoable
        ? { undoable: false, why_not: c.not_undoable }
        : c.undo?.state === 'undone'
          ? { undoable: false, undone_by: c.undo.by }
          : { undoable: true }),
      ...(c.undoes ? { undoes: c.undoes } : {}),
    })),
    count: changes.length,
  };
}

const LINE = z.strictObject({
  amount: z.number().optional(),
  amount_milliunits: z.int().optional(),
  category_id: NameOrId.nullable().optional(),
  payee_id: NameOrId.nullable().optional(),
  payee_name: guardedString(200).optional(),
  memo: z.string().max(500).nullable().optional(),
});

const SELECTION = {
  transaction_ids: z.array(guardedString(100)).min(1).max(MAX_SELECTED).optional().describe('Or a filter, as search_transactions takes it.'),
  ...FILTER_ARGS,
  expected_count: z.int().min(0).optional().describe('The count search_transactions gave for the filter (split lines count); needed with a filter.'),
};

export const TASKS: readonly TaskSpec[] = [
  {
    name: 'create_transfer',
    title: 'Transfer between accounts',
    description:
      'Use to move money between two accounts: makes both sides of the transfer once. A category is needed only from a budget to a tracking account.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['create'],
    destructive: false,
    input: {
      from_account_id: NameOrId.describe('Id or name.'),
      to_account_id: NameOrId.describe('Id or name.'),
      ...MONEY_PAIR('Amount moved, above zero.'),
      date: IsoDate.optional().describe('YYYY-MM-DD; default today.'),
      memo: z.string().max(500).optional(),
      category_id: NameOrId.optional().describe('Only from a budget to a tracking account.'),
      allow_duplicate: z.boolean().optional(),
    },
    output: { transfer: object },
    plan: planTransfer,
  },
  {
    name: 'move_money',
    title: 'Move money between categories',
    description: 'Use to move assigned money from one category to another in a month (e.g. to cover overspending).',
    toolset: 'categories',
    access: 'write',
    kinds: ['update'],
    destructive: true,
    needsNow: true,
    input: {
      from_category_id: NameOrId.describe('Id or name.'),
      to_category_id: NameOrId.describe('Id or name.'),
      ...MONEY_PAIR('Amount moved, above zero.'),
      month: MONTH_ARG.optional().describe('YYYY-MM-01 or "current" (default).'),
    },
    output: { from: object, to: object },
    plan: planMove,
  },
  {
    name: 'approve_transactions',
    title: 'Approve transactions',
    description: 'Use to approve transactions by id, or all matching a search_transactions filter with expected_count.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['update', 'bulk', 'count'],
    destructive: true,
    input: SELECTION,
    output: { updated: z.int().optional() },
    plan: approve,
  },
  {
    name: 'recategorize_transactions',
    title: 'Recategorize transactions',
    description: 'Use to set the category of transactions by id, or of all matching a search_transactions filter with expected_count.',
    toolset: 'transactions',
    access: 'write',
    kinds: ['update', 'bulk', 'count'],
    destructive: true,
    input: { new_category_id: NameOrId.describe('The category to set: id or name.'), ...SELECTION },
    output: { updated: z.int().optional() },
    plan: recategorize,
  },
  {
    name: 'split_transaction',
    title: 'Split a transaction',
    description:
      "Use to make a transaction a split or change a split's lines (or total). A split is deleted and created again; the preview says what survives.",
    toolset: 'transactions',
    access: 'write',
    kinds: ['split'],
    destructive: true,
    input: {
      transaction_id: guardedString(100),
      subtransactions: z.array(LINE).min(2).max(100).describe('The lines (amount, category_id; payee, memo), summing to the total.'),
      ...MONEY_PAIR('New total; default the current amount.'),
    },
    output: { transaction: object },
    plan: planSplitTool,
  },
  {
    name: 'list_recent_changes',
    title: 'Recent changes',
    description: 'Use to see what this server changed in the budget (the last 100 changes), with change_id for undo_change.',
    toolset: 'changes',
    access: 'read',
    kinds: [],
    destructive: false,
    input: { limit: z.int().min(1).max(MAX_CHANGES).optional().describe('Default 20.') },
    output: { changes: rows },
    read: recentChanges,
  },
  {
    name: 'undo_change',
    title: 'Undo a change',
    description: "Use to undo a change this server made (change_id from a write's answer or list_recent_changes). Refused if the budget changed since.",
    toolset: 'changes',
    access: 'write',
    kinds: ['undo'],
    destructive: true,
    input: { change_id: guardedString(100) },
    output: { restored: rows },
    plan: planUndo,
  },
];
