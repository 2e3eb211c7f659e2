/**
 * approve_transactions and recategorize_transactions: the transactions named by id, or every
 * one matching the search_transactions filter (the shared filter of src/insights/filter.ts),
 * with expected_count. A count that does not hold, or more than 5 to change, answers with a
 * preview first; what is already as asked is left alone, and what cannot be changed so (a split,
 * a transfer between budget accounts, a tracking account) is listed as skipped with the reason.
 * Sent a hundred per request, each exactly once; a failure part way says how many were changed.
 */
import type * as E from '../api/schemas/entities.js';
import { FILTER_ARGS, matchingTransactions, type FilterArgs } from '../insights/filter.js';
import { ArgumentError } from '../shared/argument-error.js';
import { absentText } from './checks.js';
import { currentState, transactionState, type EntityChange } from './entities.js';
import { BULK_LIMIT, type WriteKind } from './policy.js';
import { txnRow, type TaskContext, type TaskPlan } from './task.js';

// ---- approve_transactions / recategorize_transactions ---------------------------------------

export const MAX_SELECTED = 1000;
const FILTER_KEYS = Object.keys(FILTER_ARGS);

type Decide = (t: E.TransactionSummaryBase, split: boolean) => { change: Record<string, unknown> } | { unchanged: string } | { skip: string };

function planBulk(verb: string, decide: Decide) {
  return async (ctx: TaskContext, a: Record<string, any>, extra: Record<string, unknown> = {}): Promise<TaskPlan> => {
    const r = ctx.replica;
    const filter = Object.fromEntries(FILTER_KEYS.filter((k) => a[k] !== undefined).map((k) => [k, a[k]])) as FilterArgs;
    const byFilter = Object.keys(filter).length > 0;
    if (a.transaction_ids && byFilter) throw new ArgumentError(`give transaction_ids or a filter (${Object.keys(filter).join(', ')}), not both`);
    if (!a.transaction_ids && !byFilter) throw new ArgumentError('give transaction_ids, or a filter as search_transactions takes it (with expected_count)');
    if (byFilter && a.expected_count === undefined)
      throw new ArgumentError('expected_count is needed with a filter: the count search_transactions gave for it, so that nothing else is changed');
    let ids: string[];
    // What expected_count is compared with: the number of transactions given, or for a filter the
    // count search_transactions gives for it (matching lines: a split counts by its lines).
    let counted: number;
    if (a.transaction_ids) {
      ids = [...new Set(a.transaction_ids as string[])];
      const unknown = ids.filter((id) => !r.transactions.get(id) || r.transactions.get(id)!.deleted);
      if (unknown.length) {
        const named = unknown.slice(0, 10).map((id) => `transaction ${id}: ${absentText(r, id)}`);
        throw new ArgumentError(
          `${named.join('; ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} (split lines are changed through their split transaction)`,
        );
      }
      counted = ids.length;
    } else {
      const found = matchingTransactions(ctx.view, filter, ctx.digits);
      ids = found.ids;
      counted = found.lines;
    }
    if (ids.length > MAX_SELECTED)
      throw new ArgumentError(`${ids.length} transactions match; at most ${MAX_SELECTED} are changed in one call: narrow the filter (dates, account)`);
    const entities: EntityChange[] = [];
    const unchanged: string[] = [];
    const skipped: { id: string; reason: string }[] = [];
    for (const id of ids) {
      const t = r.transactions.get(id)!;
      const d = decide(
        t,
        r.linesOf(id).some((x) => !x.deleted),
      );
      if ('skip' in d) skipped.push({ id, reason: d.skip });
      else if ('unchanged' in d) unchanged.push(id);
      else {
        const before = currentState(r, 'transaction', id)!;
        entities.push({ kind: 'transaction', id, action: 'update', before, after: { ...before, ...d.change } });
      }
    }
    const expected = a.expected_count ?? counted;
    const kinds: WriteKind[] = [entities.length > BULK_LIMIT ? 'bulk' : 'update', ...(expected !== counted ? ['count' as const] : [])];
    const summary = `${verb} ${entities.length} transaction${entities.length === 1 ? '' : 's'}`;
    const details = {
      matched: ids.length,
      ...(counted !== ids.length ? { matched_lines: counted } : {}),
      ...(a.expected_count !== undefined ? { expected_count: a.expected_count } : {}),
      ...(unchanged.length ? { unchanged: unchanged.length } : {}),
      ...(skipped.length ? { skipped } : {}),
    };
    const matchedText =
      counted !== ids.length
        ? `${counted} lines match (as search_transactions counts them), in ${ids.length} transaction${ids.length === 1 ? '' : 's'}`
        : `${ids.length} transaction${ids.length === 1 ? '' : 's'} match${ids.length === 1 ? 'es' : ''}`;
    const notices = expected !== counted ? [`expected_count ${expected} does not hold: ${matchedText}. Check the list before confirming.`] : [];
    const args = { ...(a.transaction_ids ? { transaction_ids: ids } : { filter }), expected_count: expected, ...extra };
    const base = { tool: ctx.tool, budgetId: ctx.budgetId, args, summary, kinds, entities, details, notices };
    if (!entities.length) {
      return {
        ...base,
        answer: {
          updated: 0,
          ...details,
          message: `Nothing to change: ${unchanged.length ? `${unchanged.length} already as asked` : 'no transaction matches'}${skipped.length ? `, ${skipped.length} cannot be changed (see skipped)` : ''}.`,
        },
        apply: async () => ({ structured: {} }),
      };
    }
    return {
      ...base,
      apply: async (w) => {
        const done: EntityChange[] = [];
        const byId = new Map(entities.map((e) => [e.id, e]));
        const record = (answered: E.TransactionDetail[]) => {
          for (const t of answered) if (byId.has(t.id)) done.push({ ...byId.get(t.id)!, after: transactionState(t) });
        };
        try {
          await w.updateTransactions(
            entities.map((e) => ({
              id: e.id,
              ...Object.fromEntries(
                Object.keys(e.after!)
                  .filter((k) => e.after![k] !== e.before![k])
                  .map((k) => [k, e.after![k]]),
              ),
            })),
            record,
          );
        } catch (e) {
          if (done.length) {
            const partial = await ctx.changes
              .append(ctx.budgetId, { tool: ctx.tool, summary: `${summary} (stopped after ${done.length})`, entities: done })
              .catch(() => undefined);
            (e as Error).message =
              `${(e as Error).message}. ${done.length} of the ${entities.length} were changed before this${partial ? ` (change ${partial.id}, which undo_change can undo)` : ''}; the others were not`;
          }
          throw e;
        }
        return {
          structured: { updated: done.length, ...details, transactions: done.slice(0, 50).map((e) => txnRow(ctx.shown, e.id, e.after!)) },
          draft: { summary: summary.replace(/^(\w+)e /, '$1ed '), entities: done },
          notices: done.length > 50 ? [`The first 50 of ${done.length} changed transactions are listed.`] : [],
        };
      },
    };
  };
}

export const approve = planBulk('Approve', (t) => (t.approved ? { unchanged: 'approved' } : { change: { approved: true } }));

export function recategorize(ctx: TaskContext, a: Record<string, any>): Promise<TaskPlan> {
  const r = ctx.replica;
  const target = r.categories.get(a.new_category_id);
  if (!target || target.deleted) throw new ArgumentError(`new_category_id ${a.new_category_id}: no such category in this budget`);
  const decide: Decide = (t, split) => {
    const onBudget = r.accounts.get(t.account_id)?.on_budget ?? false;
    if (split) return { skip: 'a split: its lines carry the categories (split_transaction changes them)' };
    if (!onBudget) return { skip: 'in a tracking account, which has no categories' };
    if (t.transfer_account_id && r.accounts.get(t.transfer_account_id)?.on_budget) return { skip: 'a transfer between budget accounts, which has no category' };
    return t.category_id === target.id ? { unchanged: 'already' } : { change: { category_id: target.id } };
  };
  return planBulk('Recategorize', decide)(ctx, a, { new_category_id: target.id });
}
