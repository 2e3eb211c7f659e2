/**
 * delete_transactions: several transactions deleted in one call, by id or by the
 * search_transactions filter (the selection of bulk.ts), always after one preview, as one change
 * that undo_change puts back. A transfer's other side goes with it (as delete_transaction's does)
 * and is sent once when both sides are selected. Each delete is sent exactly once through the
 * pipeline; a failure part way journals what was deleted and says how many were.
 */
import { pairOf } from '../api-tools/api-writes.js';
import { currentState, type EntityChange } from '../pipeline/entities.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { StepError } from '../pipeline/steps.js';
import { taskWrite, type TaskPlan } from '../pipeline/task.js';
import { MAX_SELECTED, SELECTION, selected, type Selection } from './bulk.js';
import { ArgumentError } from '../../shared/argument-error.js';

/** Each delete to send: the selected transaction, with its transfer's other side (linked) unless that was taken already. */
function deletions(ctx: PlanContext, ids: string[]): EntityChange[][] {
  const r = ctx.replica;
  const out: EntityChange[][] = [];
  const taken = new Set<string>();
  for (const id of ids) {
    if (taken.has(id)) continue;
    taken.add(id);
    const pair = pairOf(r, id);
    const linked = pair && !taken.has(pair.id) ? [pair] : [];
    if (pair) taken.add(pair.id);
    out.push([{ kind: 'transaction', id, action: 'delete', before: currentState(r, 'transaction', id), after: null }, ...linked]);
  }
  return out;
}

async function plan(ctx: PlanContext, a: Selection): Promise<TaskPlan> {
  const { ids, counted } = selected(ctx, a);
  if (ids.length > MAX_SELECTED)
    throw new ArgumentError(`${ids.length} transactions match; at most ${MAX_SELECTED} are deleted in one call: narrow the filter (dates, account)`);
  const groups = deletions(ctx, ids);
  const entities = groups.flat();
  const n = entities.length;
  const summary = `Delete ${n} transaction${n === 1 ? '' : 's'}`;
  const kinds = ['delete' as const, ...(a.expected_count !== undefined && a.expected_count !== counted ? ['count' as const] : [])];
  const details = { matched: ids.length, ...(a.expected_count !== undefined ? { expected_count: a.expected_count } : {}) };
  const notices = kinds.includes('count') ? [`expected_count ${a.expected_count} does not hold: ${counted} match. Check the list before confirming.`] : [];
  const { transaction_ids, expected_count, ...filter } = a;
  const args = { ...(transaction_ids ? { transaction_ids: ids } : { filter }), ...(expected_count !== undefined ? { expected_count } : {}) };
  const base = { tool: ctx.tool, budgetId: ctx.budgetId, args, summary, kinds, entities, details, notices };
  if (!ids.length)
    return { ...base, answer: { deleted: 0, ...details, message: 'Nothing to delete: no transaction matches.' }, apply: async () => ({ result: {} }) };
  return {
    ...base,
    apply: async (w) => {
      const done: EntityChange[] = [];
      for (const group of groups) {
        try {
          await w.deleteTransaction(group[0]!.id);
        } catch (err) {
          const partial = done.length ? { summary: `Delete ${done.length} of ${n} transactions (stopped)`, entities: done } : undefined;
          throw new StepError(`${(err as Error).message}. ${done.length} of the ${n} were deleted before this; the others were not`, partial);
        }
        done.push(...group);
      }
      return { result: { deleted: done.length }, draft: { summary: `Deleted ${n} transaction${n === 1 ? '' : 's'}`, entities: done } };
    },
  };
}

export const DELETE_TRANSACTIONS = taskWrite({ input: SELECTION, plan });
