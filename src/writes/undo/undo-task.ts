/**
 * undo_change and list_recent_changes: the task handlers of the undo journal. An undo claims the
 * change first (so two calls cannot both undo it), puts every entity back (undo.ts), and is
 * journaled as a change of its own that says what it undid; the pipeline settles the claim once
 * it is recorded (pipeline.ts). The list reads the journal.
 */
import * as z from 'zod';
import { guardedString, PAGE_SIZE } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { describeEntity, type EntityChange } from '../pipeline/entities.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { rowsWithin } from '../pipeline/plan.js';
import { taskRead, taskWrite, type TaskPlan } from '../pipeline/task.js';
import { applyUndo, checkUndoable, undoEntities, UndoConflictError } from './undo.js';
import { afterUndo } from './undo-after.js';
import { MAX_CHANGES, type ChangeRecord } from '../pipeline/undo-journal.js';

/** Why an undo leaves a payee the change made. */
const PAYEE_STAYS =
  "YNAB's API cannot delete a payee: it stays in the payee list, with no transactions once this undo is done (delete or combine it in YNAB's Manage Payees)";

/** What an undo cannot take back, and why: the payees the change made. */
function stays(ctx: PlanContext, change: ChangeRecord): Record<string, unknown>[] {
  return (change.payees_created ?? []).map((id) => ({ kind: 'payee', id, name: ctx.shown.payee(id) ?? id, why: PAYEE_STAYS }));
}

/**
 * A refusal because the budget changed since: names the latest later change of the journal that
 * touched what changed (undo it first), or says the change came from elsewhere (YNAB itself).
 */
async function refusalNaming(journal: () => Promise<ChangeRecord[]>, change: ChangeRecord, e: UndoConflictError): Promise<UndoConflictError> {
  if (!e.changedSince.length) return e;
  const touched = new Set(e.changedSince);
  const later = (await journal()).find((c) => c.id > change.id && c.undo?.state !== 'undone' && c.entities.some((x) => touched.has(`${x.kind}:${x.id}`)));
  const first = later
    ? `Undo the later change first: change_id ${later.id} (${later.tool}: ${later.summary}), which changed it since; then this one.`
    : 'No later change of this server changed it (it was changed in YNAB itself): put it back there, or leave this change as it is.';
  return new UndoConflictError(e.message.replace(/ Nothing was changed\.$/, ` ${first} Nothing was changed.`), e.changedSince);
}

/**
 * Why undo_change would refuse this change now, or undefined when it would undo it: the one
 * decision behind both undo_change and list_recent_changes' `undoable` (an import listed as
 * undoable that undo_change then refused sent a model the wrong way). `journal` is the recent
 * changes, read once for a whole list.
 */
export async function undoRefusal(
  ctx: PlanContext,
  change: ChangeRecord,
  journal: () => Promise<ChangeRecord[]> = () => ctx.changes.recent(ctx.budgetId, MAX_CHANGES),
): Promise<UndoConflictError | undefined> {
  try {
    checkUndoable(change, ctx.replica, ctx.shown);
    return undefined;
  } catch (e) {
    if (e instanceof UndoConflictError) return refusalNaming(journal, change, e);
    throw e;
  }
}

const UNDO_INPUT = { change_id: guardedString(100) };

async function planUndo(ctx: PlanContext, a: z.infer<z.ZodObject<typeof UNDO_INPUT>>): Promise<TaskPlan> {
  const change = await ctx.changes.get(ctx.budgetId, a.change_id);
  if (!change)
    throw new ArgumentError(
      `change_id ${a.change_id}: no such change in this budget's undo journal (it keeps the last ${ctx.changes.max}); list_recent_changes lists them`,
    );
  const refused = await undoRefusal(ctx, change);
  if (refused) throw refused;
  const kept = stays(ctx, change);
  const keptNotice = kept.length
    ? [`${kept.length} payee${kept.length === 1 ? '' : 's'} the change made stay${kept.length === 1 ? 's' : ''}: ${PAYEE_STAYS}.`]
    : [];
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { change_id: change.id },
    summary: `Undo ${change.id} (${change.summary})`,
    kinds: ['undo'],
    // The entities as they are now: a change in between spends the token.
    entities: undoEntities(change),
    ...(kept.length ? { details: { not_undone: kept }, notices: keptNotice } : {}),
    apply: async (w) => {
      const claimed = await ctx.changes.claim(ctx.budgetId, change.id);
      if ('refused' in claimed) throw new UndoConflictError(claimed.refused);
      try {
        const { draft, notices } = await applyUndo(claimed, w, ctx.shown);
        const restored = rowsWithin(
          draft.entities.map((e) => ({
            action: e.action,
            entity: e.kind,
            id: e.id,
            description: describeEntity(e.kind, e.id, e.after ?? e.before, ctx.shown),
          })),
          RESTORED_CHARS,
        );
        if (restored.length < draft.entities.length)
          notices.unshift(`Only the first ${restored.length} of ${draft.entities.length} restored are listed (all were restored).`);
        // A reconcile undone is no longer this server's reconcile of its account (reconcile.ts records it).
        if (change.tool === 'reconcile_account') await forgetReconcile(ctx, change.entities);
        // The categories it touched and Ready to Assign, as YNAB has them after (undo-after.ts).
        const after = await afterUndo(ctx, draft.entities);
        return {
          result: { undone: change.id, count: draft.entities.length, restored, ...after.fields, ...(kept.length ? { not_undone: kept } : {}) },
          draft,
          notices: [...keptNotice, ...notices, ...after.notices],
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

/** Forgets when this server reconciled the account of a reconcile's transactions; a store that fails leaves the date (and the undo done). */
async function forgetReconcile(ctx: PlanContext, entities: readonly EntityChange[]): Promise<void> {
  const account = entities.map((e) => (e.before ?? e.after)?.account_id).find((id): id is string => typeof id === 'string');
  if (account) await ctx.reconciled?.forget(ctx.budgetId, account).catch(() => undefined);
}

/** An undo's answer lists what it restored while the list stays within this many characters (the answer within 8 KB); the rest are counted. */
const RESTORED_CHARS = 5000;

export const UNDO_CHANGE = taskWrite({ input: UNDO_INPUT, plan: planUndo });

const RECENT_INPUT = { limit: PAGE_SIZE(MAX_CHANGES).optional().describe('Default 20.') };

async function recentChanges(ctx: PlanContext, a: z.infer<z.ZodObject<typeof RECENT_INPUT>>): Promise<Record<string, unknown>> {
  const changes = await ctx.changes.recent(ctx.budgetId, a.limit ?? 20);
  const kept = await ctx.changes.size(ctx.budgetId);
  const more = Math.max(0, kept - changes.length);
  let journal: Promise<ChangeRecord[]> | undefined;
  const recent = () => (journal ??= ctx.changes.recent(ctx.budgetId, MAX_CHANGES));
  const refusals = await Promise.all(changes.map((c) => undoRefusal(ctx, c, recent)));
  return {
    changes: changes.map((c, i) => ({
      change_id: c.id,
      at: c.at,
      tool: c.tool,
      summary: c.summary,
      count: c.entities.filter((e) => !e.linked).length,
      entities: c.entities.slice(0, 5).map((e) => `${e.action} ${describeEntity(e.kind, e.id, e.after ?? e.before, ctx.shown)}`),
      // As undo_change would answer now (undoRefusal): the same refusal, word for word.
      ...(refusals[i] ? { undoable: false, why_not: refusals[i]!.message } : { undoable: true }),
      ...(c.undo?.state === 'undone' && c.undo.by ? { undone_by: c.undo.by } : {}),
      ...(c.undoes ? { undoes: c.undoes } : {}),
    })),
    // As every list: how many there are, how many shown, and how many left (the oldest).
    count: Math.max(kept, changes.length),
    returned: changes.length,
    has_more: more > 0,
    ...(more > 0 ? { more } : {}),
  };
}

// Read as undo_change's preview reads the budget, so `undoable` is what it would answer now.
export const LIST_RECENT_CHANGES = taskRead({ input: RECENT_INPUT, needsNow: true, read: recentChanges });
