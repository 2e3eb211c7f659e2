/**
 * Makes a rehearsal's net entity changes (decide.ts) on the real budget through the Writer, each
 * request exactly once, and says what was done entity by entity, with the ids YNAB gave, for the
 * undo journal: one change, which undo_change undoes as any other. Transactions that only change
 * fields go in as few requests as possible (a thousand per request, as an undo sends them), and
 * what is created in one; a split made from a transaction that had none is one update; lines
 * rewritten are a delete and a create (YNAB's API does not edit split lines), which gives the
 * transaction a new id. A payee made in the rehearsal is made in YNAB by name, as any create makes
 * one, with the first change that names it; the changes after name it by the id YNAB gave.
 */
import { changedFields, monthCategoryState, transactionState, type EntityChange, type State } from '../pipeline/entities.js';
import type * as E from '../../api/schemas/entities.js';
import { transactionBody, type Writer } from '../pipeline/steps.js';

const lines = (s: State | null) => (s?.subtransactions as State[] | undefined) ?? [];

/** Whether a transaction's update needs its lines written: they differ, or a split's amount does. */
const linesChange = (e: EntityChange) =>
  e.kind === 'transaction' &&
  (changedFields('transaction', { subtransactions: lines(e.before) }, { subtransactions: lines(e.after) }).length > 0 ||
    (lines(e.after).length > 0 && e.before!.amount !== e.after!.amount));

const sameAs = (e: EntityChange) => (t: E.TransactionDetail) =>
  e.after!.import_id
    ? t.import_id === e.after!.import_id
    : t.account_id === e.after!.account_id && t.date === e.after!.date && t.amount === e.after!.amount && (t.memo ?? null) === (e.after!.memo ?? null);

/**
 * The transactions created in one request, each matched to its change by import id or by account,
 * date, amount and memo; one YNAB did not make (its import id refused) is left to be created on
 * its own, without the import id (Writer.recreateTransaction).
 */
async function createAll(creates: readonly EntityChange[], w: Writer, real: (s: State) => State): Promise<Map<EntityChange, E.TransactionDetail>> {
  const out = new Map<EntityChange, E.TransactionDetail>();
  if (!creates.length) return out;
  const { created } = await w.createTransactions(creates.map((e) => transactionBody(real(e.after!))));
  const left = [...created];
  for (const e of creates) {
    const i = left.findIndex(sameAs(e));
    if (i >= 0) out.set(e, left.splice(i, 1)[0]!);
  }
  return out;
}

export interface ApplyDone {
  /** What was done, entity by entity, with the ids YNAB has now (the draft's entities). */
  entities: EntityChange[];
  /** Each id made in the rehearsal (or rewritten), payees' too, and the id YNAB gave it. */
  ids: Record<string, string>;
  /** The payees YNAB made for payees made in the rehearsal (their ids in YNAB). */
  payees: string[];
}

/**
 * Payees made in the rehearsal (`payees`: rehearsal id → name) as YNAB is to be given them: by the
 * id YNAB gave once one is made (`ids`), else by name, which makes the payee as any create does.
 */
function payeesOf(payees: ReadonlyMap<string, string>, ids: Record<string, string>) {
  const unmade = (s: State | null) => typeof s?.payee_id === 'string' && payees.has(s.payee_id) && !ids[s.payee_id];
  const real = (s: State): State => {
    const id = s.payee_id as string | null;
    if (!id || !payees.has(id)) return s;
    return ids[id] ? { ...s, payee_id: ids[id] } : { ...s, payee_id: null, payee_name: payees.get(id) };
  };
  const made: string[] = [];
  /** The id YNAB gave a payee made by name (from the transaction it answered with). */
  const learn = (s: State | null, t: { payee_id?: string | null }) => {
    if (unmade(s) && t.payee_id) made.push((ids[s!.payee_id as string] = t.payee_id));
  };
  return { unmade, real, learn, made };
}

/** Applies the net changes; on failure the error carries what was done so far (`doneSoFar`). */
export async function applyNet(net: readonly EntityChange[], w: Writer, newPayees: ReadonlyMap<string, string> = new Map()): Promise<ApplyDone> {
  const done: EntityChange[] = [];
  const ids: Record<string, string> = {};
  const { unmade, real, learn, made: payees } = payeesOf(newPayees, ids);
  try {
    // Creates first: a payee made in the rehearsal is made by them, and the changes after name it by YNAB's id.
    const made = await createAll(
      net.filter((e) => e.kind === 'transaction' && e.action === 'create'),
      w,
      real,
    );
    for (const [e, t] of made) {
      learn(e.after, t);
      ids[e.id] = t.id;
      done.push({ kind: 'transaction', id: t.id, action: 'create', before: null, after: transactionState(t) });
    }
    // A payee still to be made goes by name, which only a single update sends.
    const batched = net.filter((e) => e.kind === 'transaction' && e.action === 'update' && !linesChange(e) && !unmade(e.after));
    if (batched.length) {
      const shown = await w.restoreTransactions(
        batched.map((e) => ({ id: e.id, state: real(e.after!), from: e.before, split: lines(e.after).length > 0 })),
        1000,
      );
      const byId = new Map(shown.map((t) => [t.id, t]));
      for (const e of batched) done.push({ ...e, after: byId.has(e.id) ? transactionState(byId.get(e.id)!) : real(e.after!) });
    }
    for (const e of net) {
      if (batched.includes(e) || made.has(e)) continue;
      if (e.action === 'create') {
        const t = await w.recreate(e.kind, real(e.after!));
        learn(e.after, t);
        ids[e.id] = t.id;
        done.push({ kind: e.kind, id: t.id, action: 'create', before: null, after: e.kind === 'transaction' ? transactionState(t) : e.after });
      } else if (e.action === 'delete') {
        await w.remove(e.kind, e.id);
        done.push(e);
      } else if (e.kind === 'transaction' && !lines(e.before).length) {
        // A first split (or a plain update with it): one update carries the lines.
        const t = await w.updateTransaction(e.id, transactionBody(real(e.after!), { importId: false }));
        learn(e.after, t);
        done.push({ ...e, after: transactionState(t) });
      } else if (e.kind === 'transaction') {
        await w.remove('transaction', e.id);
        done.push({ ...e, action: 'delete', after: null });
        const t = await w.recreateTransaction(real(e.after!));
        learn(e.after, t);
        ids[e.id] = t.id;
        done.push({ kind: 'transaction', id: t.id, action: 'create', before: null, after: transactionState(t) });
      } else {
        const shown = await w.restore(e.kind, e.id, e.after!);
        done.push({ ...e, after: e.kind === 'month_category' ? monthCategoryState(String(e.after!.month), shown) : e.after });
      }
    }
  } catch (err) {
    if (done.length) (err as { doneSoFar?: EntityChange[] }).doneSoFar = done;
    throw err;
  }
  return { entities: done, ids, payees };
}
