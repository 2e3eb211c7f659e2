/**
 * Makes a rehearsal's net entity changes (decide.ts) on the real budget through the Writer, each
 * request exactly once, and says what was done entity by entity, with the ids YNAB gave, for the
 * undo journal: one change, which undo_change undoes as any other. Transactions that only change
 * fields go in as few requests as possible (a thousand per request, as an undo sends them); a
 * split made from a transaction that had none is one update; lines rewritten are a delete and a
 * create (YNAB's API does not edit split lines), which gives the transaction a new id.
 */
import { changedFields, monthCategoryState, transactionState, type EntityChange, type State } from '../pipeline/entities.js';
import { transactionBody, type Writer } from '../pipeline/steps.js';

const lines = (s: State | null) => (s?.subtransactions as State[] | undefined) ?? [];

/** Whether a transaction's update needs its lines written: they differ, or a split's amount does. */
const linesChange = (e: EntityChange) =>
  e.kind === 'transaction' &&
  (changedFields('transaction', { subtransactions: lines(e.before) }, { subtransactions: lines(e.after) }).length > 0 ||
    (lines(e.after).length > 0 && e.before!.amount !== e.after!.amount));

export interface ApplyDone {
  /** What was done, entity by entity, with the ids YNAB has now (the draft's entities). */
  entities: EntityChange[];
  /** Each id made in the rehearsal (or rewritten) and the id YNAB gave it. */
  ids: Record<string, string>;
}

/** Applies the net changes; on failure the error carries what was done so far (`doneSoFar`). */
export async function applyNet(net: readonly EntityChange[], w: Writer): Promise<ApplyDone> {
  const done: EntityChange[] = [];
  const ids: Record<string, string> = {};
  const batched = net.filter((e) => e.kind === 'transaction' && e.action === 'update' && !linesChange(e));
  try {
    if (batched.length) {
      const shown = await w.restoreTransactions(
        batched.map((e) => ({ id: e.id, state: e.after!, from: e.before, split: lines(e.after).length > 0 })),
        1000,
      );
      const byId = new Map(shown.map((t) => [t.id, t]));
      for (const e of batched) done.push({ ...e, after: byId.has(e.id) ? transactionState(byId.get(e.id)!) : e.after });
    }
    for (const e of net) {
      if (batched.includes(e)) continue;
      if (e.action === 'create') {
        const made = await w.recreate(e.kind, e.after!);
        ids[e.id] = made.id;
        done.push({ kind: e.kind, id: made.id, action: 'create', before: null, after: e.kind === 'transaction' ? transactionState(made) : e.after });
      } else if (e.action === 'delete') {
        await w.remove(e.kind, e.id);
        done.push(e);
      } else if (e.kind === 'transaction' && !lines(e.before).length) {
        // A first split (or a plain update with it): one update carries the lines.
        const t = await w.updateTransaction(e.id, transactionBody(e.after!, { importId: false }));
        done.push({ ...e, after: transactionState(t) });
      } else if (e.kind === 'transaction') {
        await w.remove('transaction', e.id);
        done.push({ ...e, action: 'delete', after: null });
        const made = await w.recreateTransaction(e.after!);
        ids[e.id] = made.id;
        done.push({ kind: 'transaction', id: made.id, action: 'create', before: null, after: transactionState(made) });
      } else {
        const shown = await w.restore(e.kind, e.id, e.after!);
        done.push({ ...e, after: e.kind === 'month_category' ? monthCategoryState(String(e.after!.month), shown) : e.after });
      }
    }
  } catch (err) {
    if (done.length) (err as { doneSoFar?: EntityChange[] }).doneSoFar = done;
    throw err;
  }
  return { entities: done, ids };
}
