/**
 * A bank statement's rows against an account's transactions in the budget's copy (exact, no
 * request), as import_statement and reconcile_account both need it. Each row gets a status:
 *  - skipped: pending, zero, a line repeating another's bank id, outside since_date, dated after
 *    today, or over 5 years ago (YNAB takes neither);
 *  - matched: the row's import id (YNAB's convention `YNAB:<milliunits>:<date>:<occurrence>`, the
 *    occurrence counting rows of that amount and date in the file) is on a transaction of the
 *    account; or one transaction not imported under this file's ids has the same amount, a date
 *    within 10 days and a similar payee (its payee, a transfer's other account, or the bank's name
 *    for it, read against the bank's description by bankTextNames, or the same merchant by a
 *    descriptor: src/statements/merchant-names.ts), `by: 'payee'`; else, as YNAB's own import
 *    matching does, one of the same amount within 10 days whatever its payee (hand-entered or
 *    imported, a transfer too: an ATM withdrawal is the "Transfer : Wallet" of its amount),
 *    `by: 'amount'`, leaving out one dated before the statement's days and already cleared (an
 *    earlier statement holds it). Each transaction matches one row: the nearest in date wins;
 *    rows whose candidates are interchangeable (k rows, the same k candidates) pair up in date
 *    order;
 *  - conflict: several candidates; or a transaction of a similar payee within 3 days with another
 *    amount (a tip added, a typing slip: `differsFrom`), which importing the row would enter twice;
 *    or one YNAB's own import matching would take (same amount, within 10 days, entered by hand,
 *    cleared before the statement's days): creating the row would merge it into that transaction.
 *    The user decides (import_statement's `conflicts`, statement-conflicts.ts); all candidates
 *    are listed;
 *  - new: none. Its import id is left off (and `import_id_dropped` says why) when a hand-entered
 *    transaction another row matched would take it in YNAB's import matching.
 */
import { addYears, daysBetween } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { knownMerchant } from '../../statements/payee-text.js';
import { payeeWords, similarPayee } from '../pipeline/duplicates.js';

/** A statement row as src/statements gives it (the fields matching reads). */
export interface MatchRow {
  line: number;
  date: string;
  amount: number;
  payee: string;
  memo?: string | undefined;
  pending?: boolean | undefined;
  bank_id?: string | undefined;
  /** The bank's own kind of row (a CSV Type column: ATM, CHECK), where the file names it. */
  kind?: string | undefined;
}

export type RowStatus = 'matched' | 'new' | 'conflict' | 'skipped';

export interface RowMatch {
  row: MatchRow;
  status: RowStatus;
  /** The import id the row is known by (matched, new), YNAB's convention. */
  importId?: string;
  /** matched: the transaction, and how (its import id; amount, date and payee; amount and date alone; the user's choice). */
  id?: string;
  by?: 'import_id' | 'payee' | 'amount' | 'choice';
  /** conflict: every candidate. */
  candidates?: string[];
  /** skipped, conflict, and a new row created without its import id: why. */
  reason?: string;
  /** new: created without the import id (YNAB would merge it into a hand-entered transaction). */
  importIdDropped?: boolean;
  /** conflict: the transaction this row seems to be, with another amount (a tip added, a typing slip). */
  differsFrom?: string;
  /** A conflict the user decided (import_statement's `conflicts`, statement-conflicts.ts). */
  chosen?: 'same' | 'new';
}

export const MATCH_WINDOW_DAYS = 10;

/** How far apart a row and a transaction of the same payee may be dated to be one with another amount. */
export const AMOUNT_DIFFERS_DAYS = 3;

const days = (a: string, b: string) => Math.abs(daysBetween(a, b));

/** The account's transactions (not deleted), from the copy. */
export function accountTransactions(r: BudgetReplica, accountId: string): E.TransactionSummaryBase[] {
  const out: E.TransactionSummaryBase[] = [];
  for (const t of r.transactions.values()) if (t.account_id === accountId && !t.deleted) out.push(t);
  return out;
}

/** Why a row is not imported, or undefined. `seen`: bank ids of earlier lines. */
function skipReason(row: MatchRow, o: MatchOptions, seen: Map<string, number>): string | undefined {
  if (row.pending) return 'pending (not booked yet)';
  if (row.amount === 0) return 'zero amount';
  if (row.bank_id) {
    const first = seen.get(row.bank_id);
    if (first !== undefined) return `repeats line ${first} (same bank id ${JSON.stringify(row.bank_id)})`;
    seen.set(row.bank_id, row.line);
  }
  if (o.since && row.date < o.since) return `before since_date ${o.since}`;
  if (row.date > o.today) return 'dated after today (YNAB takes future transactions as scheduled ones)';
  if (row.date < addYears(o.today, -5)) return 'over 5 years ago (YNAB takes no transaction that old)';
  return undefined;
}

export interface MatchOptions {
  today: string;
  since?: string | undefined;
}

/**
 * Whether a bank's description names what the budget calls `name`: every word of the name (store
 * numbers and words like "inc" left out, as the duplicate guard reads names) is a word of the
 * description, or the start of the description's last word cut short, as banks cut descriptions
 * at a fixed length ("ONLINE TRANSFER TO RAINY DAY SAV"); a cut of under 3 letters ("… HOME
 * EQUITY L") counts only after a whole word matched. The description may say more ("ONLINE
 * TRANSFER TO", a city): a bank's text is rarely the payee's name alone.
 */
export function bankTextNames(name: string, bankText: string): boolean {
  const want = payeeWords(name);
  const have = payeeWords(bankText);
  if (!want.length || !have.length) return false;
  const last = have[have.length - 1]!;
  const whole = want.filter((w) => have.includes(w));
  return want.every((w) => have.includes(w) || (w.startsWith(last) && (last.length >= 3 || whole.length > 0)));
}

/**
 * Whether a transaction's payee (for a transfer, the other account's name too), or the bank's
 * name for it, is similar to the row's description.
 */
function payeeLike(r: BudgetReplica, t: E.TransactionSummaryBase, payee: string): boolean {
  const name = t.payee_id ? (r.payees.get(t.payee_id)?.name ?? null) : null;
  const other = t.transfer_account_id ? (r.accounts.get(t.transfer_account_id)?.name ?? null) : null;
  const names = [name, other, t.import_payee_name ?? null, t.import_payee_name_original ?? null];
  if (names.some((n) => n !== null && (similarPayee(n, payee) || bankTextNames(n, payee)))) return true;
  // A merchant the bank names by a descriptor ("WHOLEFDS" for "Whole Foods Market"): merchant-names.ts.
  const merchant = knownMerchant(payee);
  return merchant !== undefined && names.some((n) => n !== null && knownMerchant(n) === merchant);
}

/**
 * Whether a transaction may be the row by amount and date alone (YNAB's import matching: the same
 * amount within 10 days, whatever the payee): any not matched to another row, unless it is dated
 * before the statement's days and already cleared, which an earlier statement holds.
 */
const byAmountAlone = (t: E.TransactionSummaryBase, span: { first: string }) => t.date >= span.first || t.cleared === 'uncleared';

/** A hand-entered transaction YNAB's import matching could merge an imported one into. */
const handEntered = (t: E.TransactionSummaryBase) => !t.import_id && !t.matched_transaction_id && !t.transfer_account_id;

/** Each row skipped, or new with its import id (the occurrence counts rows of its amount and date). */
function importIds(rows: readonly MatchRow[], o: MatchOptions): RowMatch[] {
  const out: RowMatch[] = [];
  const seen = new Map<string, number>();
  const occurrences = new Map<string, number>();
  for (const row of rows) {
    const reason = skipReason(row, o, seen);
    if (reason) {
      out.push({ row, status: 'skipped', reason });
      continue;
    }
    const key = `${row.amount}:${row.date}`;
    const n = (occurrences.get(key) ?? 0) + 1;
    occurrences.set(key, n);
    out.push({ row, status: 'new', importId: `YNAB:${key}:${n}` });
  }
  return out;
}

/**
 * The transaction a row most likely is with its amount changed (a tip) or mistyped: the same
 * payee and sign within a few days, another amount, not matched to a row nor claimed so before,
 * and dated within the statement's own days (a transaction before them belongs to an earlier
 * statement, which may well have held it: the same café two days running is two purchases).
 * A statement lists every booking of its days, so a transaction of those days that no row
 * matched is one the bank shows otherwise.
 */
function sameWithOtherAmount(
  r: BudgetReplica,
  txns: readonly E.TransactionSummaryBase[],
  row: MatchRow,
  span: { first: string; last: string },
  unavailable: (t: E.TransactionSummaryBase) => boolean,
): E.TransactionSummaryBase | undefined {
  return txns
    .filter(
      (t) =>
        !unavailable(t) &&
        t.date >= span.first &&
        t.date <= span.last &&
        t.amount !== row.amount &&
        Math.sign(t.amount) === Math.sign(row.amount) &&
        days(t.date, row.date) <= AMOUNT_DIFFERS_DAYS &&
        payeeLike(r, t, row.payee),
    )
    .sort((a, b) => days(a.date, row.date) - days(b.date, row.date) || a.id.localeCompare(b.id))[0];
}

/**
 * Each open row's candidates, the nearest in date first: transactions of its amount within 10
 * days of a similar payee (`named`), and of its amount alone (`alone`, see byAmountAlone), which
 * count only while none of the first are left: a row takes the transaction its payee names
 * before one of its amount alone, and another row of that amount the hand entry left over.
 */
function candidatesOf(
  r: BudgetReplica,
  open: readonly RowMatch[],
  byAmount: ReadonlyMap<number, E.TransactionSummaryBase[]>,
  span: { first: string },
  unavailable: (t: E.TransactionSummaryBase) => boolean,
) {
  const cands = new Map<RowMatch, { named: E.TransactionSummaryBase[]; alone: E.TransactionSummaryBase[] }>();
  for (const m of open) {
    const near = (byAmount.get(m.row.amount) ?? [])
      .filter((t) => !unavailable(t) && days(t.date, m.row.date) <= MATCH_WINDOW_DAYS)
      .sort((a, b) => days(a.date, m.row.date) - days(b.date, m.row.date) || a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
    const named = near.filter((t) => payeeLike(r, t, m.row.payee));
    cands.set(m, { named, alone: near.filter((t) => !named.includes(t) && byAmountAlone(t, span)) });
  }
  return cands;
}

/** Matches the rows of a statement to the account's transactions (see the header). */
export function matchStatement(r: BudgetReplica, accountId: string, rows: readonly MatchRow[], o: MatchOptions): RowMatch[] {
  const txns = accountTransactions(r, accountId);
  const out = importIds(rows, o);
  const fileIds = new Set(out.map((m) => m.importId).filter((x): x is string => !!x));
  const byImportId = new Map(txns.filter((t) => t.import_id).map((t) => [t.import_id!, t]));
  const byAmount = new Map<number, E.TransactionSummaryBase[]>();
  for (const t of txns) byAmount.set(t.amount, [...(byAmount.get(t.amount) ?? []), t]);
  const taken = new Set<string>();
  // 1. By import id: exact.
  for (const m of out) {
    const t = m.importId ? byImportId.get(m.importId) : undefined;
    if (t && m.status === 'new') (Object.assign(m, { status: 'matched', id: t.id, by: 'import_id' }), taken.add(t.id));
  }
  // 2. By amount, date and payee: candidates not taken, not imported under this file's ids; a row
  // no transaction of a similar payee can be takes those of its amount and date alone (YNAB's rule).
  const dated = rows.map((x) => x.date).sort();
  const span = { first: dated[0] ?? '', last: dated[dated.length - 1] ?? '' };
  const open = out.filter((m) => m.status === 'new');
  const cands = candidatesOf(r, open, byAmount, span, (t) => taken.has(t.id) || !!(t.import_id && fileIds.has(t.import_id)));
  const named = (m: RowMatch) => cands.get(m)!.named.filter((t) => !taken.has(t.id));
  const free = (m: RowMatch) => (named(m).length ? named(m) : cands.get(m)!.alone.filter((t) => !taken.has(t.id)));
  const match = (m: RowMatch, t: E.TransactionSummaryBase) => (
    Object.assign(m, { status: 'matched', id: t.id, by: cands.get(m)!.named.includes(t) ? 'payee' : 'amount' }),
    taken.add(t.id)
  );
  // Rows with one candidate left take it, the nearest in date first; repeated, since a taken
  // candidate can leave another row with one.
  for (let changed = true; changed;) {
    changed = false;
    const single = open
      .filter((m) => m.status === 'new' && free(m).length === 1)
      .sort((a, b) => days(free(a)[0]!.date, a.row.date) - days(free(b)[0]!.date, b.row.date) || a.row.line - b.row.line);
    for (const m of single) {
      const left = free(m);
      if (left.length !== 1) continue;
      match(m, left[0]!);
      changed = true;
    }
  }
  // Interchangeable rows: k rows with the same k candidates pair up in date order.
  const groups = new Map<string, RowMatch[]>();
  for (const m of open) {
    if (m.status !== 'new' || free(m).length < 2) continue;
    const key = free(m)
      .map((t) => t.id)
      .sort()
      .join(',');
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  for (const [key, ms] of groups) {
    const ids = key.split(',');
    if (ms.length !== ids.length) continue;
    const ts = ids.map((id) => r.transactions.get(id)!).sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
    ms.sort((a, b) => a.row.date.localeCompare(b.row.date) || a.row.line - b.row.line).forEach((m, i) => match(m, ts[i]!));
  }
  const differs = new Set<string>();
  for (const m of open) {
    if (m.status !== 'new') continue;
    const left = free(m);
    if (left.length > 1) {
      const what = named(m).length ? 'amount, date and payee' : 'amount within 10 days';
      Object.assign(m, { status: 'conflict', candidates: left.map((t) => t.id), reason: `${left.length} transactions match its ${what}` });
      continue;
    }
    // Importing a row that is a transaction with another amount would enter it twice.
    const other = sameWithOtherAmount(r, txns, m.row, span, (t) => taken.has(t.id) || differs.has(t.id) || !!(t.import_id && fileIds.has(t.import_id)));
    if (other) {
      differs.add(other.id);
      Object.assign(m, {
        status: 'conflict',
        candidates: [other.id],
        differsFrom: other.id,
        reason: `the same payee is in YNAB on ${other.date} with amount ${other.amount} (milliunits): if the bank's amount is right, fix that transaction (update_transaction); if this is another one, enter it with create_transactions`,
      });
      continue;
    }
    // YNAB's own import matching takes any hand-entered transaction of the amount within 10 days.
    const merging = (byAmount.get(m.row.amount) ?? []).filter((t) => handEntered(t) && days(t.date, m.row.date) <= MATCH_WINDOW_DAYS);
    const untaken = merging.filter((t) => !taken.has(t.id));
    if (untaken.length) {
      Object.assign(m, {
        status: 'conflict',
        candidates: untaken.map((t) => t.id),
        reason: 'same amount within 10 days, cleared before the statement: YNAB would merge the import into it',
      });
    } else if (merging.length) {
      Object.assign(m, {
        importIdDropped: true,
        reason: `created without import id: YNAB would merge it into ${merging[0]!.id}, which another row matched`,
      });
    }
  }
  return out;
}
