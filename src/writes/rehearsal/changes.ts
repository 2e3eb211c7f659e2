/**
 * A rehearsal's changes (docs/rehearsal.md), read from its undo journal as it is (the journal's
 * format is the undo journal's, unchanged): the changes still in effect, oldest first, each with
 * what it touched before and after, and the totals of the session. Plain functions over the
 * journal's records, so that applying a rehearsal reads the same list the rehearsal shows.
 */
import type { ChangeRecord } from '../pipeline/undo-journal.js';
import { describeEntity, differenceText, type EntityChange, type Shown, type State } from '../pipeline/entities.js';

/**
 * How many changes a rehearsal's undo journal keeps (a real budget's keeps 100): a session as long
 * as a cleanup of years of transactions is listed and applied whole. Past it the journal drops the
 * earliest, and apply_rehearsal refuses the rehearsal rather than apply what is left of it.
 */
export const REHEARSAL_MAX_CHANGES = 10_000;

/** One entity a change touched: for an update, only the fields it changed. */
export interface TouchedEntity {
  kind: EntityChange['kind'];
  id: string;
  action: EntityChange['action'];
  before: State | null;
  after: State | null;
  /** With names for ids (given a Shown): the entity in words, and for an update what changed. */
  what?: string;
  change?: string;
}

export interface RehearsalChange {
  change_id: string;
  at: string;
  tool: string;
  /** What it did, in words (the journal's summary). */
  did: string;
  entities: TouchedEntity[];
}

export interface RehearsalTotals {
  transactions_created: number;
  transactions_changed: number;
  transactions_deleted: number;
  /** Assigned money moved by the session, per month (milliunits; months it left unchanged are not listed). */
  assigned_by_month: { month: string; assigned: number }[];
}

/**
 * The changes still in effect, oldest first: a change that was undone is left out, and so is the
 * undo that undid it (together they changed nothing). `records` in any order.
 */
export function changesInEffect(records: readonly ChangeRecord[]): ChangeRecord[] {
  const undone = new Set(records.filter((r) => r.undo?.state === 'undone').map((r) => r.id));
  return records.filter((r) => !undone.has(r.id) && !(r.undoes && undone.has(r.undoes))).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** An update's fields that changed, before and after; a create's or delete's whole state. */
function touched(e: EntityChange, shown?: Shown): TouchedEntity {
  const words = shown
    ? {
        what: describeEntity(e.kind, e.id, e.after ?? e.before, shown),
        ...(e.action === 'update' ? { change: differenceText(e.kind, e.before, e.after, shown) } : {}),
      }
    : {};
  if (e.action !== 'update' || !e.before || !e.after) return { kind: e.kind, id: e.id, action: e.action, before: e.before, after: e.after, ...words };
  const keys = Object.keys({ ...e.before, ...e.after }).filter((k) => JSON.stringify(e.before![k]) !== JSON.stringify(e.after![k]));
  const pick = (s: State) => Object.fromEntries(keys.map((k) => [k, s[k] ?? null]));
  return { kind: e.kind, id: e.id, action: e.action, before: pick(e.before), after: pick(e.after), ...words };
}

/** The rehearsal's rows, oldest first; `shown` (the copy's names and currency) adds each entity in words. */
export function rehearsalChanges(records: readonly ChangeRecord[], shown?: Shown): RehearsalChange[] {
  return changesInEffect(records).map((r) => ({ change_id: r.id, at: r.at, tool: r.tool, did: r.summary, entities: r.entities.map((e) => touched(e, shown)) }));
}

/**
 * The session's totals. A transaction counts once, by what the session did to it in the end:
 * created (then perhaps changed), changed, or deleted; one created and deleted again is not counted.
 */
export function rehearsalTotals(records: readonly ChangeRecord[]): RehearsalTotals {
  const first = new Map<string, State | null>();
  const last = new Map<string, State | null>();
  const assigned = new Map<string, number>();
  for (const r of changesInEffect(records)) {
    for (const e of r.entities) {
      if (e.kind === 'transaction') {
        if (!first.has(e.id)) first.set(e.id, e.before);
        last.set(e.id, e.after);
      } else if (e.kind === 'month_category') {
        const month = String((e.after ?? e.before)?.month ?? e.id.split('/')[0]).slice(0, 10);
        const moved = Number(e.after?.budgeted ?? 0) - Number(e.before?.budgeted ?? 0);
        assigned.set(month, (assigned.get(month) ?? 0) + moved);
      }
    }
  }
  let created = 0;
  let changed = 0;
  let deleted = 0;
  for (const [id, before] of first) {
    const after = last.get(id) ?? null;
    if (before === null && after !== null) created++;
    else if (before !== null && after === null) deleted++;
    else if (before !== null && after !== null && JSON.stringify(before) !== JSON.stringify(after)) changed++;
  }
  const assigned_by_month = [...assigned]
    .filter(([, v]) => v !== 0)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([month, v]) => ({ month, assigned: v }));
  return { transactions_created: created, transactions_changed: changed, transactions_deleted: deleted, assigned_by_month };
}
