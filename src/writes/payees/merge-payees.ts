/**
 * merge_payees: every transaction and scheduled transaction of one payee moved to another, as one
 * change that undo_change reverts. YNAB's API cannot delete a payee, so the emptied payee stays
 * (the answer says so; hide it in YNAB). Always previewed first: it can touch years of history.
 * What the API cannot move is named, not skipped silently: a split's lines cannot be changed in
 * place (split_transaction rewrites a split), and a scheduled split's lines likewise.
 */
import type * as E from '../../api/schemas/entities.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { currentState, scheduledState, transactionState, type EntityChange } from '../pipeline/entities.js';
import type { Applied, PlanContext } from '../pipeline/pipeline.js';
import { txnRow } from '../pipeline/rows.js';
import type { Writer } from '../pipeline/steps.js';
import { taskWrite, type TaskPlan } from '../pipeline/task.js';

const INPUT = {
  from_payee_id: NameOrId.describe('The payee to empty: id or name.'),
  to_payee_id: NameOrId.describe('The payee to keep: id or name.'),
};

type Replica = PlanContext['replica'];

/** The payee an argument names (names were turned into ids before the handler), never a transfer payee. */
function payeeOf(r: Replica, id: string, label: string): E.Payee {
  const p = r.payees.get(id);
  if (!p || p.deleted) throw new ArgumentError(`${label} ${id}: no such payee in this budget; list_payees gives the names`);
  if (p.transfer_account_id)
    throw new ArgumentError(`${label}: ${JSON.stringify(p.name)} is a transfer payee (an account's); only payees of people and shops can be merged`);
  return p;
}

/** What the merge moves, and what it cannot: split lines stay with their payee. */
function moves(r: Replica, from: string, to: string): { entities: EntityChange[]; lines: number } {
  const entities: EntityChange[] = [];
  for (const t of r.transactions.values()) {
    if (t.deleted || t.payee_id !== from) continue;
    const before = currentState(r, 'transaction', t.id)!;
    entities.push({ kind: 'transaction', id: t.id, action: 'update', before, after: { ...before, payee_id: to } });
  }
  for (const s of r.scheduled.values()) {
    if (s.deleted || s.payee_id !== from) continue;
    const before = currentState(r, 'scheduled_transaction', s.id)!;
    entities.push({ kind: 'scheduled_transaction', id: s.id, action: 'update', before, after: { ...before, payee_id: to } });
  }
  let lines = 0;
  for (const t of r.transactions.values()) if (!t.deleted) lines += r.linesOf(t.id).filter((l) => !l.deleted && l.payee_id === from).length;
  return { entities, lines };
}

async function applyMerge(w: Writer, ctx: PlanContext, summary: string, entities: EntityChange[], stays: string): Promise<Applied<Record<string, unknown>>> {
  const txns = entities.filter((e) => e.kind === 'transaction');
  const scheduled = entities.filter((e) => e.kind === 'scheduled_transaction');
  const done: EntityChange[] = [];
  const byId = new Map(txns.map((e) => [e.id, e]));
  try {
    if (txns.length) {
      await w.updateTransactions(
        txns.map((e) => ({ id: e.id, payee_id: e.after!.payee_id })),
        (answered) => {
          for (const t of answered) if (byId.has(t.id)) done.push({ ...byId.get(t.id)!, after: transactionState(t) });
        },
      );
    }
    for (const e of scheduled) {
      const after = await w.restore('scheduled_transaction', e.id, e.after!);
      done.push({ ...e, after: scheduledState(after) });
    }
  } catch (err) {
    if (done.length) {
      const partial = await ctx.changes
        .append(ctx.budgetId, { tool: ctx.tool, summary: `${summary} (stopped after ${done.length})`, entities: done })
        .catch(() => undefined);
      (err as Error).message =
        `${(err as Error).message}. ${done.length} of the ${entities.length} were moved before this${partial ? ` (change ${partial.id}, which undo_change can undo)` : ''}; the others were not`;
    }
    throw err;
  }
  const moved = done.filter((e) => e.kind === 'transaction');
  return {
    result: {
      moved_transactions: moved.length,
      moved_scheduled: done.length - moved.length,
      transactions: moved.slice(0, 20).map((e) => txnRow(ctx.shown, e.id, e.after!)),
      emptied_payee_stays: stays,
    },
    draft: { summary: summary.replace(/^Move /, 'Moved '), entities: done },
    notices: moved.length > 20 ? [`The first 20 of ${moved.length} moved transactions are listed.`] : [],
  };
}

async function planMerge(ctx: PlanContext, a: { from_payee_id: string; to_payee_id: string }): Promise<TaskPlan> {
  const r = ctx.replica;
  const from = payeeOf(r, a.from_payee_id, 'from_payee_id');
  const to = payeeOf(r, a.to_payee_id, 'to_payee_id');
  if (from.id === to.id) throw new ArgumentError('from_payee_id and to_payee_id are the same payee; name two payees');
  const { entities, lines } = moves(r, from.id, to.id);
  const txns = entities.filter((e) => e.kind === 'transaction').length;
  const summary = `Move ${txns} transaction${txns === 1 ? '' : 's'} and ${entities.length - txns} scheduled from ${JSON.stringify(from.name)} to ${JSON.stringify(to.name)}`;
  const stays = `${JSON.stringify(from.name)} stays in the payee list, empty: YNAB's API cannot delete payees (hide or merge it in YNAB).`;
  const notices = [
    stays,
    ...(lines
      ? [
          `${lines} split line${lines === 1 ? '' : 's'} keep ${JSON.stringify(from.name)}: the API cannot change a split's lines in place (split_transaction rewrites a split).`,
        ]
      : []),
  ];
  const base = {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { from_payee_id: from.id, to_payee_id: to.id },
    summary,
    kinds: ['merge' as const],
    entities,
    details: { moved_transactions: txns, moved_scheduled: entities.length - txns, ...(lines ? { split_lines_kept: lines } : {}) },
    notices,
  };
  if (!entities.length) {
    return {
      ...base,
      kinds: [],
      answer: {
        moved_transactions: 0,
        moved_scheduled: 0,
        message: `Nothing to move: ${JSON.stringify(from.name)} has no transactions or scheduled transactions.`,
      },
      apply: async () => ({ result: {} }),
    };
  }
  return { ...base, apply: (w) => applyMerge(w, ctx, summary, entities, stays) };
}

export const MERGE_PAYEES = taskWrite({ input: INPUT, plan: planMerge });
