/**
 * Why an account's cleared balance differs from its statement. Each explanation's
 * effect is what it does to the cleared balance once acted on, so the explanations
 * add up: their sum is what they explain of the difference, and the rest is unexplained.
 *  0. with the statement file: transactions the statement lists (its rows match them) that are
 *     still uncleared in YNAB: the bank has booked them; clearing them adds their amounts;
 *  1. with the file: its rows missing from YNAB (statement-match.ts finds no transaction for
 *     them): entered, they add theirs; YNAB's cleared transactions of the statement's days that
 *     no row matches: deleted or uncleared, they take theirs away (an uncleared one is listed,
 *     to no effect: it is not in the cleared balance); and amounts that differ (a row and a
 *     transaction of the same payee a few days apart): fixed, a cleared transaction moves the
 *     balance by the row's amount less its own, an uncleared one (booked at the bank, so cleared
 *     then) by the row's whole amount; and rows that may be a transaction of another payee, or
 *     one of several (statement-match.ts's conflicts): once the user says which, one whose
 *     transactions are all uncleared adds its amount (cleared then), one with a cleared
 *     transaction nothing (it is in the balance already);
 *  2. two transactions in the cleared balance that look like one in twice (the same payee, or one
 *     imported and one entered by hand), where deleting one is exactly what is left; with a file,
 *     a transaction no row matches whose twin a row does (reconcile-duplicates.ts): both named,
 *     how each came in, and the one to delete with why; the user's to fix;
 *  3. uncleared transactions whose amounts add up exactly to what is left (subset-sum.ts, over
 *     the 40 latest and any one of exactly that amount; with a file only those before its days,
 *     which the bank's own rows cover): the smallest set, and other sets of the same sum as
 *     alternatives, not counted;
 *  4. where nothing is exact, the nearest uncleared transactions (a few units off, or two digits
 *     swapped): listed, to no effect, before any adjustment.
 * Applying clears 0 and the set of 3; 1 and 2 are the user's to fix (reconcile.ts).
 */
import type * as E from '../../api/schemas/entities.js';
import { similarPayee } from '../pipeline/duplicates.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { nearest, nearestShown } from './reconcile-candidates.js';
import { chooseExtra, duplicatePair, pairShown, twinIn, type DuplicatePair } from './reconcile-duplicates.js';
import { matchStatement, type MatchRow } from '../statement/statement-match.js';
import { exactSubsets, SUBSET_MAX } from './subset-sum.js';
import { moneyOf } from '../pipeline/after-state.js';

type Shown = Record<string, unknown>;

export type Explanation =
  | { kind: 'cleared_at_bank'; ids: string[]; count: number; effect: number; transactions: Shown[] }
  | { kind: 'uncleared_sum'; ids: string[]; count: number; effect: number; transactions: Shown[]; alternatives?: Shown[][]; considered?: string }
  | { kind: 'missing_from_ynab'; count: number; effect: number; rows: Shown[] }
  | { kind: 'missing_from_statement'; count: number; effect: number; transactions: Shown[] }
  | { kind: 'amount_differs'; count: number; effect: number; pairs: Shown[] }
  | { kind: 'unsure_match'; count: number; effect: number; rows: Shown[] }
  | { kind: 'possible_duplicate'; count: 1; effect: number; transactions: Shown[]; recommended: { id: string; which: string; why: string } }
  | { kind: 'nearest'; count: number; effect: 0; transactions: Shown[] };

/** A statement's rows, and its first day where the file states it. */
export interface StatementRows {
  rows: readonly MatchRow[];
  from?: string | undefined;
}

/** Rows or transactions listed per explanation; the rest counted. */
const LISTED = 10;

function shown(ctx: PlanContext, t: E.TransactionSummaryBase): Shown {
  return { id: t.id, date: t.date, payee: ctx.shown.payee(t.payee_id), ...moneyOf(ctx.shown, 'amount', t.amount), cleared: t.cleared };
}

const rowShown = (ctx: PlanContext, r: MatchRow) => ({ line: r.line, date: r.date, payee: r.payee, ...moneyOf(ctx.shown, 'amount', r.amount) });
const sum = (xs: readonly { amount: number }[]) => xs.reduce((n, x) => n + x.amount, 0);
const inBalance = (t: E.TransactionSummaryBase) => t.cleared !== 'uncleared';

/** A pair as the answer gives it: both, and the one to delete; deleting it moves the cleared balance by its amount. */
const duplicateShown = (ctx: PlanContext, p: DuplicatePair): Explanation => ({
  kind: 'possible_duplicate',
  count: 1,
  effect: -p.extra.amount,
  transactions: [pairShown(ctx, p.extra), pairShown(ctx, p.twin)],
  recommended: { id: p.extra.id, which: p.which, why: p.why },
});

/** The smallest set of `open` (the latest first) adding up to `target`, with other sets as alternatives. */
function unclearedSum(ctx: PlanContext, open: E.TransactionSummaryBase[], target: number): Explanation[] {
  // One of exactly the amount is looked at however old: it comes first.
  open.sort((a, b) => Number(b.amount === target) - Number(a.amount === target) || b.date.localeCompare(a.date) || a.id.localeCompare(b.id));
  const considered = open.slice(0, SUBSET_MAX);
  const sets = exactSubsets(
    considered.map((t) => t.amount),
    target,
  ).map((picked) => picked.map((i) => considered[i]!));
  const [first, ...others] = sets;
  if (!first) return [];
  return [
    {
      kind: 'uncleared_sum',
      ids: first.map((t) => t.id),
      count: first.length,
      effect: sum(first),
      transactions: first.map((t) => shown(ctx, t)),
      ...(others.length ? { alternatives: others.map((ts) => ts.map((t) => shown(ctx, t))) } : {}),
      ...(open.length > SUBSET_MAX ? { considered: `the ${SUBSET_MAX} latest of ${open.length} uncleared transactions were considered` } : {}),
    },
  ];
}

/** The statement's rows against YNAB's transactions of the same dates; `named`: the transactions they name. */
function fromFile(
  ctx: PlanContext,
  accountId: string,
  upTo: readonly E.TransactionSummaryBase[],
  rows: readonly MatchRow[],
  first: string,
  named: Set<string>,
): Explanation[] {
  const upToIds = new Set(upTo.map((t) => t.id));
  // What a transaction's amount fixed to a bank row's does to the cleared balance (see the header).
  const pairEffect = (row: MatchRow, t: E.TransactionSummaryBase) => row.amount - (inBalance(t) && upToIds.has(t.id) ? t.amount : 0);
  const matches = matchStatement(ctx.replica, accountId, rows, { today: ctx.today });
  const matchedIds = new Set(matches.flatMap((m) => [...(m.id ? [m.id] : []), ...(m.candidates ?? [])]));
  let missingRows = matches.filter((m) => m.status === 'new').map((m) => m.row);
  let missingTxns = upTo.filter((t) => t.date >= first && !matchedIds.has(t.id));
  // A row and a transaction of one date and payee, amounts apart: one transaction, mistyped.
  const pairs: { row: MatchRow; t: E.TransactionSummaryBase }[] = [];
  for (const m of matches) {
    const t = m.differsFrom ? ctx.replica.transactions.get(m.differsFrom) : undefined;
    if (t) pairs.push({ row: m.row, t });
  }
  for (const row of [...missingRows]) {
    const t = missingTxns.find((x) => x.date === row.date && similarPayee(ctx.shown.payee(x.payee_id), row.payee));
    if (!t) continue;
    pairs.push({ row, t });
    missingRows = missingRows.filter((x) => x !== row);
    missingTxns = missingTxns.filter((x) => x !== t);
  }
  // A transaction no row matches, the twin of one a row does (an import beside the hand entry it repeats): a pair to pick from.
  const matched = upTo.filter((t) => matchedIds.has(t.id));
  const twins: DuplicatePair[] = [];
  for (const t of [...missingTxns]) {
    const twin = twinIn(ctx, t, matched);
    if (!twin || twins.some((p) => p.twin === twin || p.extra === twin)) continue;
    twins.push(chooseExtra(ctx, t, twin));
    missingTxns = missingTxns.filter((x) => x !== t);
  }
  // A row matched by amount and date alone (statement-match.ts) stays the user's to confirm here, as before.
  const byAmount = (m: (typeof matches)[number]) => m.status === 'matched' && m.by === 'amount';
  const atBank = matches
    .filter((m) => m.status === 'matched' && !byAmount(m))
    .map((m) => ctx.replica.transactions.get(m.id!))
    .filter((t): t is E.TransactionSummaryBase => !!t && t.cleared === 'uncleared' && upToIds.has(t.id));
  const unsure = matches.filter((m) => (m.status === 'conflict' && !m.differsFrom) || byAmount(m));
  const candidates = (m: (typeof unsure)[number]) =>
    (m.candidates ?? (byAmount(m) ? [m.id!] : [])).map((id) => ctx.replica.transactions.get(id)).filter((t): t is E.TransactionSummaryBase => !!t);
  const unsureEffect = (m: (typeof unsure)[number]) => (candidates(m).some((t) => inBalance(t) && upToIds.has(t.id)) ? 0 : m.row.amount);
  for (const t of [...atBank, ...missingTxns, ...pairs.map((p) => p.t), ...unsure.flatMap(candidates), ...twins.flatMap((p) => [p.extra, p.twin])])
    named.add(t.id);
  const out: Explanation[] = twins.map((p) => duplicateShown(ctx, p));
  if (atBank.length)
    out.push({
      kind: 'cleared_at_bank',
      ids: atBank.map((t) => t.id),
      count: atBank.length,
      effect: sum(atBank),
      transactions: atBank.slice(0, LISTED).map((t) => shown(ctx, t)),
    });
  if (missingRows.length)
    out.push({
      kind: 'missing_from_ynab',
      count: missingRows.length,
      effect: sum(missingRows),
      rows: missingRows.slice(0, LISTED).map((x) => rowShown(ctx, x)),
    });
  if (missingTxns.length)
    out.push({
      kind: 'missing_from_statement',
      count: missingTxns.length,
      effect: -sum(missingTxns.filter(inBalance)),
      transactions: missingTxns.slice(0, LISTED).map((t) => shown(ctx, t)),
    });
  if (pairs.length)
    out.push({
      kind: 'amount_differs',
      count: pairs.length,
      effect: pairs.reduce((n, p) => n + pairEffect(p.row, p.t), 0),
      pairs: pairs
        .slice(0, LISTED)
        .map((p) => ({ row: rowShown(ctx, p.row), transaction: shown(ctx, p.t), ...moneyOf(ctx.shown, 'effect', pairEffect(p.row, p.t)) })),
    });
  if (unsure.length)
    out.push({
      kind: 'unsure_match',
      count: unsure.length,
      effect: unsure.reduce((n, m) => n + unsureEffect(m), 0),
      rows: unsure.slice(0, LISTED).map((m) => ({
        ...rowShown(ctx, m.row),
        candidates: candidates(m).map((t) => shown(ctx, t)),
        ...moneyOf(ctx.shown, 'effect', unsureEffect(m)),
      })),
    });
  return out;
}

/** Transactions applying clears: the ones the statement shows booked, and the set that adds up. */
export const clearedByApplying = (es: readonly Explanation[]): string[] =>
  es.flatMap((e) => (e.kind === 'cleared_at_bank' || e.kind === 'uncleared_sum' ? e.ids : []));

/** The explanations of a difference (see the header): they add up to what they explain. */
export function explain(
  ctx: PlanContext,
  accountId: string,
  upTo: readonly E.TransactionSummaryBase[],
  difference: number,
  date: string,
  statement: StatementRows | undefined,
): Explanation[] {
  const rows = statement?.rows.filter((r) => r.date <= date) ?? [];
  // The statement's first day: where the file states it, else its earliest row.
  const first = rows.length ? (statement!.from ?? rows.reduce((d, r) => (r.date < d ? r.date : d), date)) : undefined;
  const named = new Set<string>();
  const file = first ? fromFile(ctx, accountId, upTo, rows, first, named) : [];
  const left = difference - file.reduce((n, e) => n + e.effect, 0);
  if (left === 0) return file;
  const dup = duplicatePair(
    ctx,
    upTo.filter((t) => !named.has(t.id)),
    left,
  );
  if (dup) return [...file, duplicateShown(ctx, dup)];
  const open = upTo.filter((t) => t.cleared === 'uncleared' && !named.has(t.id) && (!first || t.date < first));
  const sums = unclearedSum(ctx, [...open], left);
  if (sums.length) return [...file, ...sums];
  const near = nearest(open, left);
  return near.length
    ? [...file, { kind: 'nearest', count: near.length, effect: 0, transactions: nearestShown((t) => shown(ctx, t), ctx.shown.money, near) }]
    : file;
}
