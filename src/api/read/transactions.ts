/**
 * Transaction answers, built the same way by the sandbox (from its records) and the replica
 * (from its copy of the budget): details with split lines, the flat "hybrid" rows of the
 * by-category and by-payee lists, and the list filters in the service's order: the date window
 * (since_date defaulting to one year ago except by month), the type, then the caller's own
 * filter (the sandbox's delta filter, for instance).
 */
import { addYears, monthOf } from '../dates.js';
import type * as E from '../schemas/entities.js';
import { formatMilliunits, milliunitsToCurrencyNumber } from '../money.js';
import type { Money } from './companions.js';
import type { BudgetLookup } from './lookup.js';

/** A split line as stored: the SubTransactionBase fields that are not derived from elsewhere. */
export type LineLike = Pick<E.SubTransactionBase, 'id' | 'amount' | 'deleted'> &
  Partial<Pick<E.SubTransactionBase, 'memo' | 'payee_id' | 'category_id' | 'transfer_account_id' | 'transfer_transaction_id'>>;

export interface TransactionQuery {
  since_date?: string;
  until_date?: string;
  type?: 'uncategorized' | 'unapproved';
}

export type TransactionScope =
  { kind: 'all' } | { kind: 'account'; id: string } | { kind: 'month'; month: string } | { kind: 'category'; id: string } | { kind: 'payee'; id: string };

/** How a list answers, where the eras differ (the defaults are the current description's). */
export interface ListStyle {
  /** since_date defaults to one year ago (not in the /budgets era). */
  sinceDateDefault?: boolean;
  /** A month's transactions as hybrid rows, split lines as their own rows (the /budgets era). */
  monthAsHybrid?: boolean;
}

/** The date window a list answers for: since_date defaults to one year ago, except by month. */
export function transactionWindow(q: TransactionQuery, scope: TransactionScope, today: string, style: ListStyle = {}): TransactionQuery {
  const defaulted = style.sinceDateDefault !== false && scope.kind !== 'month';
  return { ...q, since_date: q.since_date ?? (defaulted ? addYears(today, -1) : undefined) };
}

export function transactionSummaryBase(t: E.TransactionSummaryBase): E.TransactionSummaryBase {
  return {
    id: t.id,
    date: t.date,
    amount: t.amount,
    memo: t.memo ?? null,
    cleared: t.cleared,
    approved: t.approved,
    flag_color: t.flag_color ?? null,
    flag_name: t.flag_name ?? null,
    account_id: t.account_id,
    payee_id: t.payee_id ?? null,
    category_id: t.category_id ?? null,
    transfer_account_id: t.transfer_account_id ?? null,
    transfer_transaction_id: t.transfer_transaction_id ?? null,
    matched_transaction_id: t.matched_transaction_id ?? null,
    import_id: t.import_id ?? null,
    import_payee_name: t.import_payee_name ?? null,
    import_payee_name_original: t.import_payee_name_original ?? null,
    debt_transaction_type: t.debt_transaction_type ?? null,
    deleted: t.deleted,
  };
}

/** Whether a line moves money between two on-budget accounts (such lines have no category). */
function isBudgetTransfer(l: BudgetLookup, accountId: string, transferAccountId: string | null | undefined): boolean {
  return !!transferAccountId && !!l.account(accountId)?.on_budget && !!l.account(transferAccountId)?.on_budget;
}

/** A line without a category that the budget counts as uncategorized (on budget, not a budget transfer). */
export function isUncategorizedLine(
  l: BudgetLookup,
  accountId: string,
  categoryId: string | null | undefined,
  transferAccountId: string | null | undefined,
): boolean {
  return !categoryId && !!l.account(accountId)?.on_budget && !isBudgetTransfer(l, accountId, transferAccountId);
}

/** The category name the service shows for a line: its category's, or "Uncategorized" for an uncategorized budget line. */
export function lineCategoryName(
  l: BudgetLookup,
  accountId: string,
  categoryId: string | null | undefined,
  transferAccountId: string | null | undefined,
): string | null {
  if (categoryId) return l.categoryName(categoryId);
  return isUncategorizedLine(l, accountId, categoryId, transferAccountId) ? l.uncategorizedName : null;
}

export function subtransactionBase(
  l: BudgetLookup,
  x: LineLike,
  parent: Pick<E.TransactionSummaryBase, 'id' | 'account_id' | 'deleted'>,
): E.SubTransactionBase {
  return {
    id: x.id,
    transaction_id: parent.id,
    amount: x.amount,
    memo: x.memo ?? null,
    payee_id: x.payee_id ?? null,
    payee_name: l.payeeName(x.payee_id ?? null),
    category_id: x.category_id ?? null,
    category_name: lineCategoryName(l, parent.account_id, x.category_id, x.transfer_account_id),
    transfer_account_id: x.transfer_account_id ?? null,
    transfer_transaction_id: x.transfer_transaction_id ?? null,
    deleted: x.deleted || parent.deleted,
  };
}

/**
 * Adds `amount_formatted` and `amount_currency` to an object built here (by assignment, not object
 * spread: lists build tens of thousands of these, and spreading made each one ~15× slower).
 */
function withAmount<T extends { amount: number }>(l: BudgetLookup, row: T): T & Money<'amount'> {
  const out = row as T & Money<'amount'>;
  out.amount_formatted = formatMilliunits(row.amount, l.currencyFormat);
  out.amount_currency = milliunitsToCurrencyNumber(row.amount);
  return out;
}

/** A transaction with its split lines (`lines`: the ones to show). */
export function transactionDetail(l: BudgetLookup, t: E.TransactionSummaryBase, lines: readonly LineLike[]): E.TransactionDetail {
  const subs = lines.map((x) => subtransactionBase(l, x, t));
  const detail = withAmount(l, transactionSummaryBase(t)) as E.TransactionDetail;
  detail.account_name = l.account(t.account_id)?.name ?? '';
  detail.payee_name = l.payeeName(detail.payee_id ?? null);
  // A split shows 'Split' (its category_id is the service's internal split category), a deleted
  // one too: its lines are listed, deleted with it.
  detail.category_name = subs.length ? 'Split' : lineCategoryName(l, t.account_id, t.category_id, t.transfer_account_id);
  detail.subtransactions = subs.map((x) => withAmount(l, x));
  return detail;
}

/** A whole transaction as a row of the by-category / by-payee lists. */
export function hybridFromTransaction(l: BudgetLookup, t: E.TransactionSummaryBase, split: boolean): E.HybridTransaction {
  return hybridRow(
    l,
    transactionSummaryBase(t),
    t,
    null,
    split ? 'Split' : (lineCategoryName(l, t.account_id, t.category_id, t.transfer_account_id) ?? l.uncategorizedName),
  );
}

/** The hybrid row's fields after the base ones, in the service's order. */
function hybridRow(
  l: BudgetLookup,
  base: E.TransactionSummaryBase,
  t: E.TransactionSummaryBase,
  parent: string | null,
  categoryName: string,
): E.HybridTransaction {
  const row = withAmount(l, base) as E.HybridTransaction;
  row.type = parent === null ? 'transaction' : 'subtransaction';
  row.parent_transaction_id = parent;
  row.account_name = l.account(t.account_id)?.name ?? '';
  row.payee_name = l.payeeName(base.payee_id ?? null);
  row.category_name = categoryName;
  return row;
}

/** One split line as its own row: the parent's date, account and status; the line's amount, payee, category, memo. */
export function hybridFromLine(l: BudgetLookup, x: LineLike, t: E.TransactionSummaryBase): E.HybridTransaction {
  const base: E.TransactionSummaryBase = {
    ...transactionSummaryBase(t),
    id: x.id,
    amount: x.amount,
    memo: x.memo ?? null,
    payee_id: x.payee_id ?? t.payee_id ?? null,
    category_id: x.category_id ?? null,
    transfer_account_id: x.transfer_account_id ?? null,
    transfer_transaction_id: x.transfer_transaction_id ?? null,
    deleted: x.deleted || t.deleted,
  };
  return hybridRow(l, base, t, t.id, lineCategoryName(l, t.account_id, x.category_id, x.transfer_account_id) ?? l.uncategorizedName);
}

export interface TransactionSource<T extends E.TransactionSummaryBase> {
  transactions: Iterable<T>;
  /** `transactions` come in date order (dates compared as text, stably sorted), so a selection needs no sort of its own. */
  inDateOrder?: boolean;
  /** The lines to consider and show for a transaction (a tombstone shows the lines it had). */
  linesOf(t: T): readonly LineLike[];
  /** The caller's own filter, applied after the window and before the type (e.g. a delta filter). */
  include(t: T): boolean;
  /** Builds a transaction's detail; a source may supply a cached one. */
  detail?(t: T): E.TransactionDetail;
  /** Builds the hybrid row of a whole transaction, or of one of its lines; a source may cache them too. */
  hybridWhole?(t: T, split: boolean): E.HybridTransaction;
  hybridLine?(x: LineLike, t: T): E.HybridTransaction;
}

function inWindow(date: string, q: TransactionQuery): boolean {
  return (q.since_date === undefined || date >= q.since_date) && (q.until_date === undefined || date <= q.until_date);
}

function matchesType<T extends E.TransactionSummaryBase>(l: BudgetLookup, t: T, lines: readonly LineLike[], type: TransactionQuery['type']): boolean {
  if (type === 'unapproved') return !t.approved;
  if (type === 'uncategorized') {
    const live = lines.filter((x) => !x.deleted);
    return live.length
      ? live.some((x) => isUncategorizedLine(l, t.account_id, x.category_id, x.transfer_account_id))
      : isUncategorizedLine(l, t.account_id, t.category_id, t.transfer_account_id);
  }
  return true;
}

/** Transactions in the window that match `where`, the source's filter and the type, oldest first (stable). */
function select<T extends E.TransactionSummaryBase>(l: BudgetLookup, src: TransactionSource<T>, q: TransactionQuery, where: (t: T) => boolean): T[] {
  const out: T[] = [];
  for (const t of src.transactions) {
    if (!inWindow(t.date, q) || !where(t) || !src.include(t)) continue;
    // A tombstone is reported whatever its type was.
    // The lines only when the type needs them (a replica's linesOf makes an array each time).
    if (!t.deleted && q.type !== undefined && !matchesType(l, t, src.linesOf(t), q.type)) continue;
    out.push(t);
  }
  return src.inDateOrder ? out : out.sort(byDateOnly);
}

/** Transactions by date alone (Array.prototype.sort is stable: equal dates keep their order). */
export const byDateOnly = (a: { date: string }, b: { date: string }): number => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

const isSplit = (lines: readonly LineLike[]) => lines.some((x) => !x.deleted);

/** The answer of a transaction list: details (all, by account, by month) or hybrid rows (by category, by payee). */
export function listTransactions<T extends E.TransactionSummaryBase>(
  l: BudgetLookup,
  src: TransactionSource<T>,
  query: TransactionQuery,
  scope: TransactionScope,
  today: string,
  style: ListStyle = {},
): E.TransactionDetail[] | E.HybridTransaction[] {
  const q = transactionWindow(query, scope, today, style);
  if (scope.kind === 'month' && style.monthAsHybrid) {
    const inMonth = (t: T) => monthOf(t.date) === scope.month;
    // Each amount once: a whole transaction, or a split's lines.
    return hybrid(
      l,
      src,
      q,
      (t, lines) => inMonth(t) && !lines.length,
      (_x, t) => inMonth(t),
    );
  }
  if (scope.kind === 'all' || scope.kind === 'account' || scope.kind === 'month') {
    const detail = src.detail ?? ((t: T) => transactionDetail(l, t, src.linesOf(t)));
    return selectTransactions(l, src, query, scope, today, style).map(detail);
  }
  switch (scope.kind) {
    case 'category': {
      // The Uncategorized category stands for lines without a category.
      const inCategory = (accountId: string, categoryId: string | null | undefined, transfer: string | null | undefined) =>
        scope.id === l.uncategorizedId ? isUncategorizedLine(l, accountId, categoryId, transfer) : categoryId === scope.id;
      return hybrid(
        l,
        src,
        q,
        (t, lines) => !isSplit(lines) && inCategory(t.account_id, t.category_id, t.transfer_account_id),
        (x, t) => inCategory(t.account_id, x.category_id, x.transfer_account_id),
      );
    }
    case 'payee':
      return hybrid(
        l,
        src,
        q,
        (t) => t.payee_id === scope.id,
        (x, t) => x.payee_id === scope.id && t.payee_id !== scope.id,
      );
  }
}

/** The transactions a list of details holds (all, by account, by month), in its order, not yet built. */
export function selectTransactions<T extends E.TransactionSummaryBase>(
  l: BudgetLookup,
  src: TransactionSource<T>,
  query: TransactionQuery,
  scope: Extract<TransactionScope, { kind: 'all' | 'account' | 'month' }>,
  today: string,
  style: ListStyle = {},
): T[] {
  const q = transactionWindow(query, scope, today, style);
  switch (scope.kind) {
    case 'all':
      return select(l, src, q, () => true);
    case 'account':
      return select(l, src, q, (t) => t.account_id === scope.id);
    case 'month':
      return select(l, src, q, (t) => monthOf(t.date) === scope.month);
  }
}

function hybrid<T extends E.TransactionSummaryBase>(
  l: BudgetLookup,
  src: TransactionSource<T>,
  q: TransactionQuery,
  whole: (t: T, lines: readonly LineLike[]) => boolean,
  line: (x: LineLike, t: T) => boolean,
): E.HybridTransaction[] {
  const rows: E.HybridTransaction[] = [];
  const wholeRow = src.hybridWhole ?? ((t: T, split: boolean) => hybridFromTransaction(l, t, split));
  const lineRow = src.hybridLine ?? ((x: LineLike, t: T) => hybridFromLine(l, x, t));
  for (const t of select(l, src, q, (t) => whole(t, src.linesOf(t)) || src.linesOf(t).some((x) => line(x, t)))) {
    const lines = src.linesOf(t);
    if (whole(t, lines)) rows.push(wholeRow(t, isSplit(lines)));
    for (const x of lines) {
      if (!line(x, t)) continue;
      if (q.type === 'uncategorized' && !isUncategorizedLine(l, t.account_id, x.category_id, x.transfer_account_id)) continue;
      rows.push(lineRow(x, t));
    }
  }
  return rows;
}
