/**
 * A transaction in the account twice, and which of the two to delete. A pair is two transactions
 * in the cleared balance of one amount that look like one: of the same payee within 3 days (what
 * review_transactions flags as `possible_duplicate`), or one imported (its import_id) and one
 * entered by hand within 10 days, whatever their payees (the window of YNAB's import matching,
 * which never merges an import into a transfer: an ATM withdrawal imported beside the
 * "Transfer : Wallet" entered for it). Two transfers are never a pair: moving the same amount
 * twice is common, and deleting either changes another account.
 *
 * The one to delete is the one whose deletion leaves the account and the rest of the budget
 * right: not a transfer (its other side is in another account, which would lose it too); not the
 * one with a category (the other would be left uncategorized); not a reconciled one; not the one
 * entered by hand (the imported one is the bank's copy of it; YNAB keeps a deleted import's
 * import_id, so importing the statement again does not bring it back); else the later.
 * Each pair names both, says how each came in, and says why in a sentence.
 */
import type * as E from '../../api/schemas/entities.js';
import { DUPLICATE_WINDOW_DAYS, similarPayee } from '../pipeline/duplicates.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { moneyOf } from '../pipeline/after-state.js';
import { MATCH_WINDOW_DAYS } from '../statement/statement-match.js';

type Txn = E.TransactionSummaryBase;

export interface DuplicatePair {
  /** The one to delete, and the one to keep. */
  extra: Txn;
  twin: Txn;
  /** What to delete, as a sentence names it ("the imported one"). */
  which: string;
  why: string;
}

const DAY_MS = 86_400_000;
const apart = (a: string, b: string) => Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / DAY_MS;
const inBalance = (t: Txn) => t.cleared !== 'uncleared';
const imported = (t: Txn) => !!t.import_id;
const transfer = (t: Txn) => !!t.transfer_account_id;
const categorized = (t: Txn) => !!t.category_id || transfer(t);

/** Whether two transactions of one amount look like one (see the header). */
function looksLikeOne(ctx: PlanContext, a: Txn, b: Txn): boolean {
  if (a.id === b.id || a.amount !== b.amount || !inBalance(a) || !inBalance(b) || (transfer(a) && transfer(b))) return false;
  const days = apart(a.date, b.date);
  if (imported(a) !== imported(b)) return days <= MATCH_WINDOW_DAYS;
  if (transfer(a) || transfer(b)) return false;
  const name = (t: Txn) => ctx.shown.payee(t.payee_id) ?? t.import_payee_name ?? null;
  return days <= DUPLICATE_WINDOW_DAYS && (a.payee_id === b.payee_id || similarPayee(name(a), name(b)));
}

/** Which of a pair to delete (see the header), and why, plainly. */
export function chooseExtra(ctx: PlanContext, a: Txn, b: Txn): DuplicatePair {
  const later = a.date > b.date || (a.date === b.date && a.id > b.id) ? a : b;
  // The first rule that tells them apart decides which to keep.
  const rules: [keep: (t: Txn) => boolean, which: string][] = [
    [transfer, 'the one that is not a transfer'],
    [categorized, 'the one without a category'],
    [(t) => t.cleared === 'reconciled', 'the one not reconciled'],
    [(t) => !imported(t), 'the imported one'],
  ];
  const rule = rules.find(([keep]) => keep(a) !== keep(b));
  const twin = rule ? (rule[0](a) ? a : b) : later === a ? b : a;
  const extra = twin === a ? b : a;
  const which = imported(extra) && !imported(twin) ? 'the imported one' : (rule?.[1] ?? 'the later one');
  return { extra, twin, which, why: why(ctx, extra, twin) };
}

/** The sentence of a choice: what the one to delete is, what it lacks, what deleting the other would do. */
function why(ctx: PlanContext, extra: Txn, twin: Txn): string {
  const s = ctx.shown;
  const kept = transfer(twin)
    ? `the transfer to ${s.account(twin.transfer_account_id) ?? 'another account'}`
    : `the transaction at ${s.payee(twin.payee_id) ?? 'the same payee'}`;
  const how = imported(twin) ? 'imported' : 'entered by hand';
  const what = imported(extra) && !imported(twin) ? `It is the bank's copy (imported) of ${kept} ${how}` : `It repeats ${kept} ${how}`;
  const lacks = !categorized(extra) && categorized(twin) ? ', and it has no category' : '';
  const other = transfer(twin)
    ? ` Deleting the transfer instead would also remove its other side in ${s.account(twin.transfer_account_id) ?? 'the other account'} (${s.money(-twin.amount)}) and leave this copy${lacks ? ' uncategorized' : ''}.`
    : '';
  return `${what}${lacks}; deleting it leaves the account as the statement has it.${other}`;
}

/** A pair of `upTo` whose extra's deletion moves the cleared balance by exactly `left`: the first by date. */
export function duplicatePair(ctx: PlanContext, upTo: readonly Txn[], left: number): DuplicatePair | undefined {
  const same = upTo.filter((t) => inBalance(t) && -t.amount === left);
  same.sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
  for (let i = 1; i < same.length; i++) {
    const twin = same.slice(0, i).find((o) => looksLikeOne(ctx, o, same[i]!));
    if (twin) return chooseExtra(ctx, twin, same[i]!);
  }
  return undefined;
}

/** The transaction of `pool` that `t` looks like a second copy of, if any (the nearest in date). */
export function twinIn(ctx: PlanContext, t: Txn, pool: readonly Txn[]): Txn | undefined {
  return pool.filter((o) => looksLikeOne(ctx, t, o)).sort((x, y) => apart(x.date, t.date) - apart(y.date, t.date) || x.id.localeCompare(y.id))[0];
}

/** A transaction of a pair as the answer lists it: how it came in, its category or the account it moves money to. */
export function pairShown(ctx: PlanContext, t: Txn): Record<string, unknown> {
  const s = ctx.shown;
  return {
    id: t.id,
    date: t.date,
    payee: s.payee(t.payee_id) ?? t.import_payee_name ?? null,
    ...moneyOf(s, 'amount', t.amount),
    cleared: t.cleared,
    entered: imported(t) ? 'imported' : 'by hand',
    ...(imported(t) ? { import_id: t.import_id } : {}),
    ...(transfer(t) ? { transfer_account: s.account(t.transfer_account_id) } : { category: s.category(t.category_id) }),
  };
}

/** Notices said at most. */
const TWIN_NOTICES = 3;

/**
 * A hand entry still uncleared beside an imported, cleared copy of its amount within 10 days
 * (YNAB's import matching never takes a transfer, nor an entry made after the import): the bank
 * has it once, so the balances agree while the account holds it twice. Said as a notice whatever
 * the difference: nothing to clear or adjust, the user's to fix, and the fix leaves the cleared
 * balance as it is (the imported one deleted, the hand entry cleared).
 */
export function unclearedTwinNotices(ctx: PlanContext, upTo: readonly Txn[]): string[] {
  const s = ctx.shown;
  const said = (t: Txn) => `${JSON.stringify(s.payee(t.payee_id) ?? t.import_payee_name ?? '')} ${s.money(t.amount)} on ${t.date}`;
  const taken = new Set<string>();
  const out: string[] = [];
  for (const t of upTo) {
    if (out.length === TWIN_NOTICES || t.cleared !== 'uncleared' || imported(t)) continue;
    const twin = upTo.find(
      (o) => !taken.has(o.id) && imported(o) && inBalance(o) && !transfer(o) && o.amount === t.amount && apart(o.date, t.date) <= MATCH_WINDOW_DAYS,
    );
    if (!twin) continue;
    taken.add(twin.id);
    const side = transfer(t) ? `, and ${s.account(t.transfer_account_id) ?? 'the other account'} keeps its side of the transfer` : '';
    out.push(
      `${said(t)}, entered by hand and uncleared, and the imported ${said(twin)} look like one: the bank has it once. If so, delete the imported one and mark the other cleared: the cleared balance stays as it is${side}.`,
    );
  }
  return out;
}
