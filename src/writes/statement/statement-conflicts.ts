/**
 * A row in conflict is never imported by default: it may be a transaction the budget has (the
 * same purchase with a tip added, a typing slip, or one of several of its amount), and importing
 * it would enter it twice. import_statement's preview names each conflict's candidates beside the
 * row (`conflict_with`: id, date, payee, amount), and the user decides per row, as a bank feed's
 * "match or add" asks (`conflicts`):
 *  - `{"14": "same"}` (or the candidate's id where there are several): the row is that
 *    transaction: it is marked cleared and, where the amounts differ, takes the bank's amount,
 *    since the bank's is what left the account. Nothing is created;
 *  - `{"14": "new"}`: the row is another transaction: created as a new row, without its import id
 *    where YNAB's own import matching would merge it into a candidate of the same amount.
 * A row not named stays in conflict and is not imported; the preview says so.
 */
import * as z from 'zod';
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { moneyOf } from '../pipeline/after-state.js';
import type { Shown } from '../pipeline/entities.js';
import type { RowMatch } from './statement-match.js';

export const CONFLICT_CHOICES = z.record(z.string(), z.string()).optional().describe('By line, as the preview asks: "same", a candidate id, or "new".');

export interface ConflictChoice {
  line: number;
  as: 'same' | 'new';
  transaction_id?: string | undefined;
}

/** The argument's choices, one per line ({"14": "same"}, {"14": "<id>"}, {"14": "new"}); refuses a key that is not a line. */
export function conflictChoices(arg: Record<string, string> | undefined): ConflictChoice[] {
  return Object.entries(arg ?? {}).map(([key, value]) => {
    const line = Number(key);
    if (!/^\d+$/.test(key.trim()) || !Number.isSafeInteger(line) || line < 1)
      throw new ArgumentError(`conflicts: ${JSON.stringify(key)} is not a line number; give the preview's line of each conflict row, e.g. {"14": "same"}`);
    const v = value.trim();
    if (v === 'same' || v === 'new') return { line, as: v };
    if (!v) throw new ArgumentError(`conflicts: line ${line} needs "same", "new" or a candidate's id`);
    return { line, as: 'same', transaction_id: v };
  });
}

/** Applies the user's choices to the rows in conflict; notices for choices no longer needed. Refuses a choice that names no conflict's candidate. */
export function decideConflicts(r: BudgetReplica, matches: RowMatch[], choices: readonly ConflictChoice[] | undefined): string[] {
  const notices: string[] = [];
  const lines = new Set<number>();
  const chosenIds = new Set<string>();
  for (const c of choices ?? []) {
    if (lines.has(c.line)) throw new ArgumentError(`conflicts: line ${c.line} is named twice; give one choice per line`);
    lines.add(c.line);
    // A file of one line (an OFX without line breaks) puts every row on it: the one in conflict there.
    const on = matches.filter((x) => x.row.line === c.line);
    if (!on.length) throw new ArgumentError(`conflicts: the file has no row at line ${c.line}; the preview's rows give each conflict's line`);
    const open = on.filter((x) => x.status === 'conflict');
    if (open.length > 1)
      throw new ArgumentError(
        `conflicts: line ${c.line} holds ${open.length} rows in conflict (the file puts several rows on one line); decide them in YNAB, or enter them with create_transactions`,
      );
    const m = open[0] ?? on[0]!;
    if (m.status !== 'conflict') {
      notices.push(`conflicts: line ${c.line} is ${m.status}, not in conflict: its choice was not needed.`);
      continue;
    }
    const candidates = m.candidates ?? [];
    if (c.as === 'new') {
      // A candidate of the row's amount: YNAB's import matching would merge the row into it.
      const merges = candidates.some((id) => r.transactions.get(id)?.amount === m.row.amount);
      Object.assign(m, {
        status: 'new',
        chosen: 'new',
        reason: 'another transaction than its candidates, as chosen',
        ...(merges ? { importIdDropped: true } : {}),
      });
      continue;
    }
    const id = c.transaction_id ?? (candidates.length === 1 ? candidates[0] : undefined);
    if (!id)
      throw new ArgumentError(
        `conflicts: line ${c.line} has ${candidates.length} candidates (${candidates.join(', ')}); give the one it is: {"${c.line}": "<id>"}`,
      );
    if (!candidates.includes(id)) throw new ArgumentError(`conflicts: ${id} is not a candidate of line ${c.line}; its candidates: ${candidates.join(', ')}`);
    if (chosenIds.has(id)) throw new ArgumentError(`conflicts: ${id} is chosen for two lines; a transaction is one row of the statement`);
    chosenIds.add(id);
    if (m.row.amount !== r.transactions.get(id)!.amount && r.lines.get(id)?.size)
      throw new ArgumentError(
        `conflicts: line ${c.line}'s transaction ${id} is a split of another amount: set its lines to the bank's amount with update_transaction, then import`,
      );
    Object.assign(m, { status: 'matched', id, by: 'choice', chosen: 'same', reason: undefined });
  }
  return notices;
}

/** What applying changes on a matched row's transaction: cleared, and the bank's amount where the user said the row is it. */
export function matchedUpdate(t: E.TransactionSummaryBase | undefined, m: RowMatch): Record<string, unknown> | undefined {
  if (!t || m.status !== 'matched') return undefined;
  const fields: Record<string, unknown> = {};
  if (t.cleared === 'uncleared') fields.cleared = 'cleared';
  if (m.chosen === 'same' && t.amount !== m.row.amount) fields.amount = m.row.amount;
  return Object.keys(fields).length ? fields : undefined;
}

/** Each matched row whose transaction the import changes, with what it takes. */
export function matchedUpdates(r: BudgetReplica, matches: readonly RowMatch[]): Map<RowMatch, Record<string, unknown>> {
  const out = new Map<RowMatch, Record<string, unknown>>();
  for (const m of matches) {
    const fields = m.status === 'matched' ? matchedUpdate(r.transactions.get(m.id!), m) : undefined;
    if (fields) out.set(m, fields);
  }
  return out;
}

/** The preview's line on the rows left in conflict: not imported, and how to decide them. */
export function conflictNotice(count: number): string[] {
  if (!count) return [];
  return [
    `${count} row(s) in conflict are not imported: each may be a transaction YNAB has (conflict_with). Decide each by its line: conflicts: {"14": "same"} (it is that transaction: cleared, the bank's amount taken; a candidate's id where there are several) or {"14": "new"} (another one, created).`,
  ];
}

/** A conflict's candidates as the preview names them beside the row: id, date, payee, amount. */
export function conflictShown(r: BudgetReplica, s: Shown, m: RowMatch): Record<string, unknown> {
  if (m.status !== 'conflict' || !m.candidates?.length) return m.chosen ? { chosen: m.chosen } : {};
  const conflictWith = m.candidates.flatMap((id) => {
    const t = r.transactions.get(id);
    return t ? [{ id, date: t.date, payee: s.payee(t.payee_id), ...moneyOf(s, 'amount', t.amount), entered: t.import_id ? 'imported' : 'by hand' }] : [];
  });
  return { conflict_with: conflictWith };
}
