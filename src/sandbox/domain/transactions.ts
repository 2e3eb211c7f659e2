/**
 * Applying transactions to a budget: inserting (with the paired side of a transfer, for the
 * whole transaction or a split line), updating (keeping both sides of a transfer in step) and
 * deleting (a transfer's other side goes too). Input here is already validated and normalized
 * by transaction-input.ts; these functions do not fail half way.
 */
import type { DebtTransactionType, TransactionClearedStatus, TransactionFlagColor } from '../../api/schemas/common.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, SubtransactionRec, TransactionRec } from '../store/records.js';
import { payeeNamed } from './payees.js';

export interface LineSpec {
  amount: number;
  payee_id: string | null;
  /** A payee to find or create by name when payee_id is null. */
  payee_name?: string | null;
  category_id: string | null;
  memo: string | null;
}

export interface TransactionSpec extends LineSpec {
  account_id: string;
  date: string;
  cleared: TransactionClearedStatus;
  approved: boolean;
  flag_color?: TransactionFlagColor;
  flag_name?: string | null;
  import_id?: string | null;
  import_payee_name?: string | null;
  import_payee_name_original?: string | null;
  matched_transaction_id?: string | null;
  debt_transaction_type?: DebtTransactionType | null;
  subtransactions?: LineSpec[];
}

/**
 * Which side of a transfer carries the category: none between two on-budget accounts; the
 * on-budget side between an on-budget and an off-budget account.
 */
export function transferCategories(from: AccountRec, to: AccountRec, category: string | null): { from: string | null; to: string | null } {
  if (from.on_budget && !to.on_budget) return { from: category, to: null };
  if (!from.on_budget && to.on_budget) return { from: null, to: category };
  return { from: null, to: null };
}

function resolvePayee(b: BudgetStore, line: LineSpec): string | null {
  if (line.payee_id) return line.payee_id;
  return line.payee_name ? payeeNamed(b, line.payee_name).id : null;
}

function blankTransaction(b: BudgetStore, spec: Partial<TransactionRec> & Pick<TransactionRec, 'account_id' | 'date' | 'amount'>): TransactionRec {
  return b.stamp<TransactionRec>({
    id: b.env.newId(),
    seq: b.nextSeq(),
    memo: null,
    cleared: 'uncleared',
    approved: false,
    flag_color: null,
    flag_name: null,
    payee_id: null,
    category_id: null,
    transfer_account_id: null,
    transfer_transaction_id: null,
    matched_transaction_id: null,
    import_id: null,
    import_payee_name: null,
    import_payee_name_original: null,
    debt_transaction_type: null,
    subtransactions: [],
    deleted: false,
    knowledge: 0,
    ...spec,
  });
}

/** Creates the other side of a transfer in `to`, linked to `originId` (a transaction or a split line). */
function createPair(
  b: BudgetStore,
  from: AccountRec,
  to: AccountRec,
  origin: { id: string; amount: number; date: string; memo: string | null; approved: boolean },
  category: string | null,
): TransactionRec {
  const pair = blankTransaction(b, {
    account_id: to.id,
    date: origin.date,
    amount: -origin.amount,
    memo: origin.memo,
    approved: origin.approved,
    payee_id: from.transfer_payee_id,
    category_id: category,
    transfer_account_id: from.id,
    transfer_transaction_id: origin.id,
  });
  b.rec.transactions.set(pair.id, pair);
  return pair;
}

function buildSubs(b: BudgetStore, t: TransactionRec, lines: LineSpec[]): SubtransactionRec[] {
  const account = b.account(t.account_id)!;
  return lines.map((line) => {
    const payeeId = resolvePayee(b, line);
    const target = b.accountOfTransferPayee(payeeId);
    const sub: SubtransactionRec = {
      id: b.env.newId(),
      amount: line.amount,
      memo: line.memo,
      payee_id: payeeId,
      category_id: line.category_id,
      transfer_account_id: null,
      transfer_transaction_id: null,
      deleted: false,
    };
    if (target) {
      const cats = transferCategories(account, target, line.category_id);
      sub.category_id = cats.from;
      const pair = createPair(b, account, target, { id: sub.id, amount: sub.amount, date: t.date, memo: sub.memo, approved: t.approved }, cats.to);
      sub.transfer_account_id = target.id;
      sub.transfer_transaction_id = pair.id;
    }
    return sub;
  });
}

/** Inserts a transaction (and a transfer's other side). Must run inside `b.change()`. */
export function insertTransaction(b: BudgetStore, spec: TransactionSpec): TransactionRec {
  const account = b.account(spec.account_id)!;
  const payeeId = resolvePayee(b, spec);
  const split = (spec.subtransactions?.length ?? 0) > 0;
  const t = blankTransaction(b, {
    account_id: spec.account_id,
    date: spec.date,
    amount: spec.amount,
    memo: spec.memo,
    cleared: spec.cleared,
    approved: spec.approved,
    flag_color: spec.flag_color ?? null,
    flag_name: spec.flag_name ?? null,
    payee_id: payeeId,
    category_id: split ? b.rec.split_category_id : spec.category_id,
    import_id: spec.import_id ?? null,
    import_payee_name: spec.import_payee_name ?? null,
    import_payee_name_original: spec.import_payee_name_original ?? null,
    matched_transaction_id: spec.matched_transaction_id ?? null,
    debt_transaction_type: spec.debt_transaction_type ?? null,
  });
  b.rec.transactions.set(t.id, t);
  if (split) {
    t.subtransactions = buildSubs(b, t, spec.subtransactions!);
  } else {
    const target = b.accountOfTransferPayee(payeeId);
    if (target) linkTransfer(b, t, account, target, spec.category_id);
  }
  return t;
}

function linkTransfer(b: BudgetStore, t: TransactionRec, from: AccountRec, to: AccountRec, category: string | null) {
  const cats = transferCategories(from, to, category);
  t.category_id = cats.from;
  const pair = createPair(b, from, to, t, cats.to);
  t.transfer_account_id = to.id;
  t.transfer_transaction_id = pair.id;
}

/** The transaction on the other side of a whole-transaction transfer, if any. */
export function pairOf(b: BudgetStore, t: TransactionRec): TransactionRec | undefined {
  if (!t.transfer_transaction_id) return undefined;
  const pair = b.rec.transactions.get(t.transfer_transaction_id);
  return pair && !pair.deleted ? pair : undefined;
}

/** Whether `t` is the other side of a transfer made by a split line (its link names a line, not a transaction). */
export function isLinePair(b: BudgetStore, t: TransactionRec): boolean {
  return t.transfer_transaction_id !== null && !b.rec.transactions.has(t.transfer_transaction_id);
}

/** The split transaction whose line `lineId` is, if the id names a split line. */
export function parentOfLine(b: BudgetStore, lineId: string): TransactionRec | undefined {
  for (const t of b.rec.transactions.values()) {
    if (!t.deleted && t.subtransactions.some((x) => x.id === lineId)) return t;
  }
  return undefined;
}

function tombstone(b: BudgetStore, t: TransactionRec) {
  t.deleted = true;
  for (const x of t.subtransactions) x.deleted = true;
  b.stamp(t);
}

/** Deletes a transaction, its split lines, and the other side of any transfer it holds. */
export function removeTransaction(b: BudgetStore, t: TransactionRec): TransactionRec[] {
  const removed = [t];
  tombstone(b, t);
  const pair = pairOf(b, t);
  if (pair && pair.transfer_transaction_id === t.id) {
    tombstone(b, pair);
    removed.push(pair);
  }
  for (const x of t.subtransactions) {
    const linePair = x.transfer_transaction_id ? b.rec.transactions.get(x.transfer_transaction_id) : undefined;
    if (linePair && !linePair.deleted) {
      tombstone(b, linePair);
      removed.push(linePair);
    }
  }
  return removed;
}

export interface TransactionChange {
  account_id?: string;
  date?: string;
  amount?: number;
  payee_id?: string | null;
  payee_name?: string | null;
  category_id?: string | null;
  memo?: string | null;
  cleared?: TransactionClearedStatus;
  approved?: boolean;
  flag_color?: TransactionFlagColor;
  subtransactions?: LineSpec[];
}

/**
 * Applies a validated change. A transfer keeps its other side in step: same date, opposite
 * amount; a changed destination moves the other side; leaving the transfer payee removes it.
 */
export function changeTransaction(b: BudgetStore, t: TransactionRec, c: TransactionChange): TransactionRec {
  b.stamp(t);
  const wasTarget = t.transfer_account_id;
  const wasAccount = t.account_id;
  if (c.account_id !== undefined) t.account_id = c.account_id;
  if (c.date !== undefined) t.date = c.date;
  if (c.amount !== undefined) t.amount = c.amount;
  if (c.memo !== undefined) t.memo = c.memo;
  if (c.cleared !== undefined) t.cleared = c.cleared;
  if (c.approved !== undefined) t.approved = c.approved;
  if (c.flag_color !== undefined) t.flag_color = c.flag_color;
  if (c.category_id !== undefined) t.category_id = c.category_id;
  if (c.payee_id !== undefined || c.payee_name !== undefined) {
    t.payee_id = resolvePayee(b, { amount: t.amount, payee_id: c.payee_id ?? null, payee_name: c.payee_name ?? null, category_id: null, memo: null });
  }
  // The other side of a split line's transfer: only its own fields (memo, status, flag) change.
  if (isLinePair(b, t)) return t;
  if (c.subtransactions?.length) {
    // Turning a transaction into a split: it stops being a transfer itself.
    const pair = pairOf(b, t);
    if (pair) tombstone(b, pair);
    t.transfer_account_id = null;
    t.transfer_transaction_id = null;
    t.category_id = b.rec.split_category_id;
    t.subtransactions = buildSubs(b, t, c.subtransactions);
    return t;
  }

  const account = b.account(t.account_id)!;
  const target = t.subtransactions.some((x) => !x.deleted) ? undefined : b.accountOfTransferPayee(t.payee_id);
  const pair = pairOf(b, t);
  const ownsPair = pair && pair.transfer_transaction_id === t.id;
  if (target && ownsPair && wasTarget === target.id && pair.account_id === target.id) {
    b.stamp(pair);
    pair.date = t.date;
    pair.amount = -t.amount;
    pair.payee_id = account.transfer_payee_id;
    pair.transfer_account_id = account.id;
    const cats = transferCategories(account, target, t.category_id ?? pair.category_id);
    t.category_id = cats.from;
    pair.category_id = cats.to;
  } else {
    if (pair && ownsPair) tombstone(b, pair);
    t.transfer_account_id = null;
    t.transfer_transaction_id = null;
    if (target) linkTransfer(b, t, account, target, t.category_id);
  }
  // The split lines of a split keep the parent's date; their transfer sides follow it, and
  // when the split moves to another account they are relinked to it (categories as for any transfer).
  const moved = account.id !== wasAccount;
  for (const x of t.subtransactions) {
    const linePair = x.transfer_transaction_id ? b.rec.transactions.get(x.transfer_transaction_id) : undefined;
    const live = linePair && !linePair.deleted ? linePair : undefined;
    if (moved && live) {
      const cats = transferCategories(account, b.account(live.account_id)!, x.category_id ?? live.category_id);
      b.stamp(live);
      live.payee_id = account.transfer_payee_id;
      live.transfer_account_id = account.id;
      live.category_id = cats.to;
      x.category_id = cats.from;
    } else if (moved && !account.on_budget) {
      x.category_id = null;
    }
    if (live && live.date !== t.date) {
      b.stamp(live);
      live.date = t.date;
    }
  }
  return t;
}

/** Whether a transaction was entered by the user (not imported) and can match an import. */
export function findImportMatch(b: BudgetStore, accountId: string, amount: number, date: string): TransactionRec | undefined {
  const day = Date.parse(date);
  let best: TransactionRec | undefined;
  let bestDistance = Infinity;
  for (const t of b.rec.transactions.values()) {
    if (t.deleted || t.account_id !== accountId || t.amount !== amount || t.import_id !== null || t.matched_transaction_id !== null) continue;
    if (t.transfer_account_id !== null) continue;
    const distance = Math.abs(Date.parse(t.date) - day) / 86_400_000;
    if (distance <= 10 && distance < bestDistance) {
      best = t;
      bestDistance = distance;
    }
  }
  return best;
}
