/**
 * Undoing a journaled change: every entity it touched goes back to its state before, as one
 * change, in reverse order:
 *  - created → deleted;
 *  - updated → updated back; a transaction whose split lines (or a split's amount) must change
 *    back cannot be updated so (YNAB's API does not edit split lines), so it is deleted and
 *    created again, with a new id, and the result says so;
 *  - deleted → created again, with a new id, and the result says so.
 * Before anything is sent, every entity (the other side of a transfer too) must still be as the
 * change left it, and what is created again must name accounts, payees and categories the budget
 * still holds; when not, the undo is refused, naming each difference ("memo is now "x" (the
 * change left "y")") or each id, and nothing is changed.
 */
import {
  currentState,
  describeEntity,
  differenceText,
  transactionState,
  changedFields,
  type EntityChange,
  type Shown,
  type State,
} from '../pipeline/entities.js';
import type { ChangeRecord } from '../pipeline/undo-journal.js';
import { unknownReferences } from '../pipeline/checks.js';
import type { Draft } from '../pipeline/plan.js';
import type { Writer } from '../pipeline/steps.js';
import type { BudgetReplica } from '../../sync/replica.js';

export class UndoConflictError extends Error {
  override readonly name = 'UndoConflictError';
  constructor(
    message: string,
    /** The entities that changed since (kind:id), for naming the later change that changed them. */
    readonly changedSince: string[] = [],
  ) {
    super(message);
  }
}

const lines = (s: State | null) => (s?.subtransactions as State[] | undefined) ?? [];

/** Whether putting a transaction back needs a delete and a create: its lines, or a split's amount, differ. */
function needsRecreate(e: EntityChange): boolean {
  if (e.kind !== 'transaction' || !e.before || !e.after) return false;
  const split = lines(e.after).length > 0;
  return (
    changedFields('transaction', { subtransactions: lines(e.before) }, { subtransactions: lines(e.after) }).length > 0 ||
    (split && e.before.amount !== e.after.amount)
  );
}

/** The changes an undo makes, entity by entity (before: as the change left it; after: as it was). */
export function undoEntities(change: ChangeRecord): EntityChange[] {
  const out: EntityChange[] = [];
  for (const e of [...change.entities].reverse()) {
    if (e.linked) continue;
    if (e.action === 'create') out.push({ kind: e.kind, id: e.id, action: 'delete', before: e.after, after: null });
    else if (e.action === 'delete') out.push({ kind: e.kind, id: e.id, action: 'create', before: null, after: e.before });
    else if (needsRecreate(e)) {
      out.push({ kind: e.kind, id: e.id, action: 'delete', before: e.after, after: null });
      out.push({ kind: e.kind, id: e.id, action: 'create', before: null, after: e.before });
    } else out.push({ kind: e.kind, id: e.id, action: 'update', before: e.after, after: e.before });
  }
  return out;
}

/** Refuses (UndoConflictError) unless each entity the change left is still as it left it. */
export function checkUndoable(change: ChangeRecord, r: BudgetReplica, s: Shown): void {
  if (change.not_undoable) throw new UndoConflictError(`change ${change.id} cannot be undone: ${change.not_undoable}`);
  if (change.undo?.state === 'undone') throw new UndoConflictError(`change ${change.id} was already undone${change.undo.by ? ` by ${change.undo.by}` : ''}`);
  // An update of an entity this server's copy did not hold yet (found by an import_id, say): YNAB
  // answers with the new state only, so there is nothing to put back.
  const unknownBefore = change.entities.filter((e) => !e.linked && e.action === 'update' && !e.before);
  if (unknownBefore.length) {
    const what = unknownBefore.map((e) => describeEntity(e.kind, e.id, e.after, s)).join('; ');
    throw new UndoConflictError(
      `change ${change.id} cannot be undone: ${what} ${unknownBefore.length === 1 ? 'was' : 'were'} not in this server's copy of the budget when it was changed, so what to put back is not known`,
    );
  }
  const problems: string[] = [];
  const changed: string[] = [];
  for (const e of change.entities) {
    if (e.action === 'delete') continue; // gone stays gone: it is created again (a transfer's other side with it)
    const now = currentState(r, e.kind, e.id);
    if (!changedFields(e.kind, e.after, now).length) continue;
    const what = describeEntity(e.kind, e.id, e.after, s);
    problems.push(now ? `${what}: ${differenceText(e.kind, e.after, now, s, 'the change left')}` : `${what} was deleted since`);
    changed.push(`${e.kind}:${e.id}`);
  }
  if (problems.length) {
    throw new UndoConflictError(
      `the budget changed since change ${change.id}, so undoing it would overwrite that: ${problems.join('; ')}. Nothing was changed.`,
      changed,
    );
  }
  // What is created again names accounts, payees and categories as they were: each must still be
  // this budget's, or YNAB would refuse the create after the undo had deleted or changed others.
  for (const e of undoEntities(change)) {
    if (e.action !== 'create' || e.kind !== 'transaction' || !e.after) continue;
    const unknown = unknownReferences(r, e.after);
    if (unknown.length) problems.push(`${describeEntity(e.kind, e.id, e.after, s)} would be created again, but its ${unknown.join('; ')}`);
  }
  if (problems.length) throw new UndoConflictError(`change ${change.id} cannot be undone: ${problems.join('; ')}. Nothing was changed.`);
}

/**
 * Applies an undo. Returns what it did as a draft for the journal (entities with their ids now,
 * re-created ones with their new ids) and the notices the result must carry.
 */
export async function applyUndo(change: ChangeRecord, w: Writer, s: Shown): Promise<{ draft: Draft; notices: string[] }> {
  const done: EntityChange[] = [];
  const notices: string[] = [];
  const all = undoEntities(change);
  // Transactions that only change back (a split's lines unchanged): one request per thousand, not
  // one each (a reconciliation, a statement import or apply_rules touches hundreds), sent where the
  // first of them stands; `planned` lists them together there, so that what was done is always
  // its first part. Each sends only what differs (steps.ts).
  const batched = new Set(all.filter((e) => e.action === 'update' && e.kind === 'transaction'));
  const at = all.findIndex((e) => batched.has(e));
  const planned = at < 0 ? all : [...all.slice(0, at).filter((e) => !batched.has(e)), ...batched, ...all.slice(at).filter((e) => !batched.has(e))];
  let sent = false;
  try {
    for (let i = 0; i < planned.length; i++) {
      const e = planned[i]!;
      if (batched.has(e)) {
        if (!sent) {
          const shown = await w.restoreTransactions(
            [...batched].map((x) => ({ id: x.id, state: x.after!, from: x.before, split: lines(x.before).length > 0 })),
            1000,
          );
          const byId = new Map(shown.map((t) => [t.id, t]));
          for (const x of batched) done.push({ ...x, after: byId.has(x.id) ? transactionState(byId.get(x.id)!) : x.after });
          sent = true;
        }
        continue;
      }
      if (e.action === 'delete') {
        await w.remove(e.kind, e.id);
        done.push(e);
      } else if (e.action === 'update') {
        const split = lines(e.before).length > 0;
        const shown = await w.restore(e.kind, e.id, e.after!, split);
        done.push({ ...e, after: e.kind === 'transaction' ? transactionState(shown) : e.after });
      } else {
        const made = await w.recreate(e.kind, e.after!);
        const state = e.kind === 'transaction' ? transactionState(made) : e.after;
        done.push({ kind: e.kind, id: made.id, action: 'create', before: null, after: state });
        notices.push(`${describeEntity(e.kind, e.id, e.after, s)} was created again with a new id, ${made.id} (YNAB gives a re-created transaction a new id).`);
      }
    }
  } catch (e) {
    if (done.length) {
      (e as Error).message =
        `${(e as Error).message}. The undo stopped part way: done so far: ${done.map((d) => `${d.action} ${describeEntity(d.kind, d.id, d.after ?? d.before, s)}`).join('; ')}; not done: ${planned
          .slice(done.length)
          .map((d) => `${d.action} ${describeEntity(d.kind, d.id, d.after ?? d.before, s)}`)
          .join('; ')}`;
      (e as { undoneSoFar?: EntityChange[] }).undoneSoFar = done;
    }
    throw e;
  }
  // Many created again (an undone import's deletes): one notice for them all, the ids are in the answer.
  const again = notices.length > 3 ? [`${notices.length} entities were created again with new ids (YNAB gives a re-created transaction a new id).`] : notices;
  return { draft: { summary: `Undid ${change.id}: ${change.summary}`, entities: done, undoes: change.id }, notices: again };
}
