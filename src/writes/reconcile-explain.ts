/**
 * Why an account's cleared balance differs from its statement, most likely first:
 *  0. with the statement file: transactions the statement lists (its rows match them) that are
 *     still uncleared in YNAB: the bank has booked them, so they are cleared;
 *  1. uncleared transactions dated on or before the statement date whose amounts add up to the
 *     difference exactly (subset-sum.ts, over the 40 latest: the ones still in flight), the
 *     smallest sets first;
 *  2. with the statement file: its rows missing from YNAB (statement-match.ts finds no
 *     transaction for them), YNAB's transactions in the statement's dates that no row matches,
 *     and amounts that differ (a missing row and a missing transaction of the same date and a
 *     similar payee).
 */
import type * as E from '../api/schemas/entities.js';
import { similarPayee } from './duplicates.js';
import type { PlanContext } from './pipeline.js';
import { matchStatement, type MatchRow } from './statement-match.js';
import { exactSubsets, SUBSET_MAX } from './subset-sum.js';

export type Explanation =
  | { kind: 'cleared_at_bank'; ids: string[]; count: number; total_milliunits: number; transactions: Record<string, unknown>[] }
  | { kind: 'uncleared_sum'; ids: string[]; count: number; total_milliunits: number; transactions: Record<string, unknown>[]; considered?: string }
  | { kind: 'missing_from_ynab'; count: number; total_milliunits: number; rows: Record<string, unknown>[] }
  | { kind: 'missing_from_statement'; count: number; total_milliunits: number; transactions: Record<string, unknown>[] }
  | { kind: 'amount_differs'; count: number; pairs: Record<string, unknown>[] };

/** A statement's rows, and its first day where the file states it. */
export interface StatementRows {
  rows: readonly MatchRow[];
  from?: string | undefined;
}

/** Rows or transactions listed per explanation; the rest counted. */
const LISTED = 10;

function shown(ctx: PlanContext, t: E.TransactionSummaryBase): Record<string, unknown> {
  return { id: t.id, date: t.date, payee: ctx.shown.payee(t.payee_id), amount_milliunits: t.amount, cleared: t.cleared };
}

const rowShown = (r: MatchRow) => ({ line: r.line, date: r.date, payee: r.payee, amount_milliunits: r.amount });
const sum = (xs: readonly { amount: number }[]) => xs.reduce((n, x) => n + x.amount, 0);

/** Exact subsets of the latest uncleared transactions that add up to the difference. */
function uncleared(ctx: PlanContext, upTo: readonly E.TransactionSummaryBase[], difference: number): Explanation[] {
  const open = upTo.filter((t) => t.cleared === 'uncleared').sort((a, b) => b.date.localeCompare(a.date) || a.id.localeCompare(b.id));
  const considered = open.slice(0, SUBSET_MAX);
  const note = open.length > SUBSET_MAX ? `the ${SUBSET_MAX} latest of ${open.length} uncleared transactions were considered` : undefined;
  return exactSubsets(
    considered.map((t) => t.amount),
    difference,
  ).map((picked) => {
    const ts = picked.map((i) => considered[i]!);
    return {
      kind: 'uncleared_sum' as const,
      ids: ts.map((t) => t.id),
      count: ts.length,
      total_milliunits: sum(ts),
      transactions: ts.map((t) => shown(ctx, t)),
      ...(note ? { considered: note } : {}),
    };
  });
}

/** The statement's rows against YNAB's transactions of the same dates. */
function fromFile(ctx: PlanContext, accountId: string, upTo: readonly E.TransactionSummaryBase[], file: StatementRows, date: string): Explanation[] {
  const inRange = file.rows.filter((r) => r.date <= date);
  if (!inRange.length) return [];
  const matches = matchStatement(ctx.replica, accountId, inRange, { today: ctx.today });
  // The statement's first day: where the file states it, else its earliest row.
  const first = file.from ?? inRange.reduce((d, r) => (r.date < d ? r.date : d), date);
  const matchedIds = new Set(matches.flatMap((m) => [...(m.id ? [m.id] : []), ...(m.candidates ?? [])]));
  let missingRows = matches.filter((m) => m.status === 'new').map((m) => m.row);
  let missingTxns = upTo.filter((t) => t.date >= first && !matchedIds.has(t.id));
  // A row and a transaction of one date and payee, amounts apart: one transaction, mistyped.
  const pairs: Record<string, unknown>[] = [];
  for (const m of matches) {
    const t = m.differsFrom ? ctx.replica.transactions.get(m.differsFrom) : undefined;
    if (t) pairs.push({ row: rowShown(m.row), transaction: shown(ctx, t), difference_milliunits: m.row.amount - t.amount });
  }
  for (const row of [...missingRows]) {
    const t = missingTxns.find((x) => x.date === row.date && similarPayee(ctx.shown.payee(x.payee_id), row.payee));
    if (!t) continue;
    pairs.push({ row: rowShown(row), transaction: shown(ctx, t), difference_milliunits: row.amount - t.amount });
    missingRows = missingRows.filter((x) => x !== row);
    missingTxns = missingTxns.filter((x) => x !== t);
  }
  const out: Explanation[] = [];
  const atBank = matches
    .filter((m) => m.status === 'matched')
    .map((m) => ctx.replica.transactions.get(m.id!))
    .filter((t): t is E.TransactionSummaryBase => !!t && t.cleared === 'uncleared' && t.date <= date);
  if (atBank.length)
    out.push({
      kind: 'cleared_at_bank',
      ids: atBank.map((t) => t.id),
      count: atBank.length,
      total_milliunits: sum(atBank),
      transactions: atBank.slice(0, LISTED).map((t) => shown(ctx, t)),
    });
  if (missingRows.length)
    out.push({ kind: 'missing_from_ynab', count: missingRows.length, total_milliunits: sum(missingRows), rows: missingRows.slice(0, LISTED).map(rowShown) });
  if (missingTxns.length)
    out.push({
      kind: 'missing_from_statement',
      count: missingTxns.length,
      total_milliunits: sum(missingTxns),
      transactions: missingTxns.slice(0, LISTED).map((t) => shown(ctx, t)),
    });
  if (pairs.length) out.push({ kind: 'amount_differs', count: pairs.length, pairs: pairs.slice(0, LISTED) });
  return out;
}

/** The explanations of a difference, ranked (see the header). */
export function explain(
  ctx: PlanContext,
  accountId: string,
  upTo: readonly E.TransactionSummaryBase[],
  difference: number,
  date: string,
  statement: StatementRows | undefined,
): Explanation[] {
  const file = statement ? fromFile(ctx, accountId, upTo, statement, date) : [];
  // What the statement itself shows cleared comes first: it is the bank's word, not a sum's guess.
  const atBank = file.filter((e) => e.kind === 'cleared_at_bank');
  return [...atBank, ...uncleared(ctx, upTo, difference), ...file.filter((e) => e.kind !== 'cleared_at_bank')];
}
