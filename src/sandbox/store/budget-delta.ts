/**
 * What one change did to a budget, as data that can be written to the write-ahead log and applied again:
 * the records it stamped (whole, as they are now), the months and pending imports that differ,
 * the money movements it appended, the computed-entity versions that moved, and the budget's
 * knowledge and sequence counters. Applying a delta sets absolute values, so applying it to a
 * copy that already has it changes nothing.
 *
 * The recorder keeps a shadow of the parts that are not versioned records (months, pending
 * imports, computed versions, movement counts) to see what a change did to them.
 */
import type { BudgetRec, MonthRec, MoneyMovementGroupRec, MoneyMovementRec, PendingImportRec, Versioned } from './records.js';

export const RECORD_MAPS = ['accounts', 'payees', 'payee_locations', 'category_groups', 'categories', 'transactions', 'scheduled_transactions'] as const;
type RecordMap = (typeof RECORD_MAPS)[number];

export interface BudgetDelta {
  budget_id: string;
  knowledge: number;
  next_seq: number;
  last_modified_on: string;
  records?: Partial<Record<RecordMap, unknown[]>>;
  months?: MonthRec[];
  money_movements?: { from: number; items: MoneyMovementRec[] };
  money_movement_groups?: { from: number; items: MoneyMovementGroupRec[] };
  pending_imports?: PendingImportRec[];
  derived?: [string, { fp: string; knowledge: number }][];
  derived_removed?: string[];
}

export class DeltaRecorder {
  private months = new Map<string, string>();
  private pending = '';
  private derived = new Map<string, string>();
  private movements = 0;
  private groups = 0;

  constructor(private readonly rec: BudgetRec) {
    this.capture([]);
  }

  /** The delta of the change that stamped `stamped`; the shadow moves on to the current state. */
  capture(stamped: readonly Versioned[]): BudgetDelta {
    const r = this.rec;
    const delta: BudgetDelta = { budget_id: r.id, knowledge: r.knowledge, next_seq: r.next_seq, last_modified_on: r.last_modified_on };
    const records: Partial<Record<RecordMap, unknown[]>> = {};
    const seen = new Set<Versioned>();
    for (const record of stamped) {
      if (seen.has(record)) continue;
      seen.add(record);
      const id = (record as { id?: string }).id ?? '';
      const map = RECORD_MAPS.find((m) => (r[m] as Map<string, unknown>).get(id) === record);
      if (map) (records[map] ??= []).push(record);
    }
    if (Object.keys(records).length) delta.records = records;

    const months: MonthRec[] = [];
    for (const m of r.months.values()) {
      const text = JSON.stringify(m);
      if (this.months.get(m.month) !== text) {
        this.months.set(m.month, text);
        months.push(m);
      }
    }
    if (months.length) delta.months = months;
    const pending = JSON.stringify(r.pending_imports);
    if (pending !== this.pending) {
      this.pending = pending;
      delta.pending_imports = r.pending_imports;
    }
    if (r.money_movements.length !== this.movements) {
      delta.money_movements = { from: this.movements, items: r.money_movements.slice(this.movements) };
      this.movements = r.money_movements.length;
    }
    if (r.money_movement_groups.length !== this.groups) {
      delta.money_movement_groups = { from: this.groups, items: r.money_movement_groups.slice(this.groups) };
      this.groups = r.money_movement_groups.length;
    }
    const derived: [string, { fp: string; knowledge: number }][] = [];
    for (const [key, v] of r.derived_state) {
      const text = `${v.fp}|${v.knowledge}`;
      if (this.derived.get(key) !== text) {
        this.derived.set(key, text);
        derived.push([key, v]);
      }
    }
    const removed = [...this.derived.keys()].filter((key) => !r.derived_state.has(key));
    for (const key of removed) this.derived.delete(key);
    if (derived.length) delta.derived = derived;
    if (removed.length) delta.derived_removed = removed;
    return delta;
  }
}

/** Applies a delta (read back from the write-ahead log) to a budget's records. */
export function applyDelta(r: BudgetRec, d: BudgetDelta): void {
  r.knowledge = d.knowledge;
  r.next_seq = d.next_seq;
  r.last_modified_on = d.last_modified_on;
  for (const map of RECORD_MAPS) {
    const target = r[map] as Map<string, unknown>;
    for (const record of d.records?.[map] ?? []) target.set((record as { id: string }).id, record);
  }
  for (const m of d.months ?? []) r.months.set(m.month, m);
  if (d.pending_imports) r.pending_imports = d.pending_imports;
  if (d.money_movements) r.money_movements = [...r.money_movements.slice(0, d.money_movements.from), ...d.money_movements.items];
  if (d.money_movement_groups) r.money_movement_groups = [...r.money_movement_groups.slice(0, d.money_movement_groups.from), ...d.money_movement_groups.items];
  for (const [key, v] of d.derived ?? []) r.derived_state.set(key, v);
  for (const key of d.derived_removed ?? []) r.derived_state.delete(key);
}
