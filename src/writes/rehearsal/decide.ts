/**
 * Which of a rehearsal's changes apply to the real budget, decided change by change in the order
 * they were made, against the budget as YNAB has it now:
 *  - an entity a change updates or deletes must still be as the change found it in the copy
 *    (its compared fields), and must not have changed in YNAB since the copy was taken (listed by
 *    the delta since the export's server_knowledge); else the change is left out, naming the
 *    entity with both values. Never applied over newer data.
 *  - a transaction a change creates is held when one like it is already in YNAB (the duplicate
 *    guard's test), and when it names what YNAB does not hold; a payee made in the rehearsal is
 *    not that: the copy names it, and the apply makes it in YNAB by that name (apply.ts);
 *  - a change that touches what a left-out change made or changed is left out too (its "before"
 *    no longer matches what would be there).
 * The kept changes are then folded into one net change per entity (first before, last after), so
 * that an entity created and then changed in the rehearsal is created once, as it ended.
 */
import type { BudgetReplica } from '../../sync/replica.js';
import { unknownReferences } from '../pipeline/checks.js';
import { likelyDuplicate, type NewItem } from '../pipeline/duplicates.js';
import { changedFields, currentState, describeEntity, differenceText, type EntityChange, type Shown, type State } from '../pipeline/entities.js';
import type { ChangeRecord } from '../pipeline/undo-journal.js';

/** A change left out, and why (both values of what changed). */
export interface LeftOut {
  change_id: string;
  tool: string;
  summary: string;
  why: string;
}

export interface Decided {
  kept: ChangeRecord[];
  left_out: LeftOut[];
  /** One entity change per entity, ids as the rehearsal has them (created ones get YNAB's at apply). */
  net: EntityChange[];
  /** Payees made in the rehearsal that the net changes name (rehearsal id → name): made in YNAB by name. */
  payees: Map<string, string>;
}

/** A payee YNAB does not hold that the copy names: made in the rehearsal. */
const madeHere = (r: BudgetReplica, named: ReadonlyMap<string, string>, id: unknown): id is string =>
  typeof id === 'string' && !r.payees.has(id) && named.has(id);

const keyOf = (e: { kind: string; id: string }) => `${e.kind}:${e.id}`;

/** What a month's category holds where the copy has no such month yet (a month ahead): nothing assigned. */
function now(r: BudgetReplica, e: EntityChange): State | null {
  const state = currentState(r, e.kind, e.id);
  if (state || e.kind !== 'month_category' || !e.before) return state;
  return { ...e.before, budgeted: 0 };
}

/** Why one change cannot apply, or undefined when it can (`planned`: entities as the kept changes before it leave them). */
function problemOf(
  c: ChangeRecord,
  r: BudgetReplica,
  since: ReadonlySet<string>,
  planned: Map<string, State | null>,
  left: Set<string>,
  s: Shown,
  named: ReadonlyMap<string, string>,
): string | undefined {
  const own = c.entities.filter((e) => !e.linked);
  const problems: string[] = [];
  const rewritten = new Set(own.filter((e) => e.action === 'delete').map((e) => e.kind));
  for (const e of own) {
    const key = keyOf(e);
    if (left.has(key)) {
      problems.push(`${describeEntity(e.kind, e.id, e.before ?? e.after, s)} is made or changed by a change left out`);
      continue;
    }
    if (e.action === 'create') {
      const after = e.after && madeHere(r, named, e.after.payee_id) ? { ...e.after, payee_id: null } : e.after;
      const unknown = e.kind === 'transaction' && after ? unknownReferences(r, after) : [];
      if (unknown.length) problems.push(`${describeEntity(e.kind, e.id, e.after, s)} names what YNAB does not hold: ${unknown.join('; ')}`);
      // A split rewritten (deleted and made again) is not a new purchase: only true creates are guarded.
      else if (e.kind === 'transaction' && e.after && !rewritten.has('transaction')) {
        const found = likelyDuplicate(r, e.after as unknown as NewItem);
        if (found)
          problems.push(
            `held as a likely duplicate: ${describeEntity(e.kind, e.id, e.after, s)} looks like ${describeEntity('transaction', found.id, currentState(r, 'transaction', found.id), s)}, already in YNAB`,
          );
      }
      continue;
    }
    const current = planned.has(key) ? planned.get(key)! : now(r, e);
    const differs = changedFields(e.kind, e.before, current);
    const what = describeEntity(e.kind, e.id, e.before, s);
    if (differs.length)
      problems.push(current ? `${what}: ${differenceText(e.kind, e.before, current, s, 'the copy had')}` : `${what} was deleted in YNAB since`);
    else if (!planned.has(key) && since.has(key))
      problems.push(`${what} was changed in YNAB since the copy was taken (its compared fields are as the copy had them)`);
  }
  return problems.length ? problems.join('; ') : undefined;
}

/**
 * Decides each change in order (oldest first) and folds the kept ones into net entity changes.
 * `named`: the copy's payees by id, which name the payees made in the rehearsal.
 */
export function decide(
  changes: readonly ChangeRecord[],
  r: BudgetReplica,
  since: ReadonlySet<string>,
  s: Shown,
  named: ReadonlyMap<string, string> = new Map(),
): Decided {
  const planned = new Map<string, State | null>();
  const left = new Set<string>();
  const net = new Map<string, EntityChange>();
  const out: Decided = { kept: [], left_out: [], net: [], payees: new Map() };
  for (const c of changes) {
    const why = problemOf(c, r, since, planned, left, s, named);
    const own = c.entities.filter((e) => !e.linked);
    if (why) {
      for (const e of own) left.add(keyOf(e));
      out.left_out.push({ change_id: c.id, tool: c.tool, summary: c.summary, why });
      continue;
    }
    out.kept.push(c);
    for (const e of own) {
      const key = keyOf(e);
      const first = net.get(key);
      planned.set(key, e.after);
      net.set(
        key,
        first ? { ...first, after: e.after } : { kind: e.kind, id: e.id, action: e.action, before: e.action === 'create' ? null : e.before, after: e.after },
      );
    }
  }
  for (const e of net.values()) {
    if (!e.before && !e.after) continue; // made and deleted in the rehearsal: nothing to do
    if (!e.before) out.net.push({ ...e, action: 'create' });
    else if (!e.after) out.net.push({ ...e, action: 'delete' });
    else if (changedFields(e.kind, e.before, e.after).length) out.net.push({ ...e, action: 'update' });
  }
  for (const e of out.net)
    if (e.kind === 'transaction' && madeHere(r, named, e.after?.payee_id)) out.payees.set(e.after!.payee_id as string, named.get(e.after!.payee_id as string)!);
  return out;
}

/** The entities a delta export lists as changed (kind:id), subtransactions as their transaction. */
export function changedInDelta(delta: Record<string, any>): Set<string> {
  const out = new Set<string>();
  const add = (kind: string, rows: unknown, id = (x: any) => x.id as string) => {
    for (const x of (rows as any[] | undefined) ?? []) out.add(`${kind}:${id(x)}`);
  };
  add('transaction', delta.transactions);
  add('transaction', delta.subtransactions, (x) => x.transaction_id);
  add('scheduled_transaction', delta.scheduled_transactions);
  add('scheduled_transaction', delta.scheduled_subtransactions, (x) => x.scheduled_transaction_id);
  add('category', delta.categories);
  add('category_group', delta.category_groups);
  add('payee', delta.payees);
  add('account', delta.accounts);
  return out;
}
