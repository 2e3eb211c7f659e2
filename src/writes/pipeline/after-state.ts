/**
 * What a write's answer says about the budget as the write left it, so that no read is needed to
 * report it: what every write touched (afterStateOf, added by the pipeline), the accounts'
 * balances, the approval queue, where recategorized money now sits. Each
 * is computed from the budget's copy with the write's answer merged in (no request of its own):
 * an account's balances as the sums of its transactions (the copy's account figures wait for the
 * next sync), the queue as review_transactions counts it.
 */
import { uncategorizedLine } from '../../insights/attention/attention.js';
import { queueFacts } from '../../insights/attention/queue-count.js';
import { BudgetView } from '../../insights/core/view.js';
import { currentMonth } from '../../api/dates.js';
import type { ReplicaManager } from '../../sync/manager.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { shownBy, type EntityChange, type Shown, type State } from './entities.js';
import { readFor } from './reads.js';

/** A figure as every write answer gives it: named by its concept, in milliunits, beside the budget's formatted text. */
export function moneyOf(s: Shown, name: string, milliunits: number): Record<string, number | string> {
  return { [name]: milliunits, [`${name}_formatted`]: s.money(milliunits) };
}

/**
 * Each account's balances after the write: working (every transaction), cleared (cleared and
 * reconciled ones) and uncleared, as YNAB adds them up.
 */
export function accountBalances(r: BudgetReplica, s: Shown, accountIds: readonly string[]): Record<string, unknown>[] {
  const ids = [...new Set(accountIds)];
  const sums = new Map(ids.map((id) => [id, { balance: 0, cleared: 0 }]));
  for (const t of r.transactions.values()) {
    const sum = sums.get(t.account_id);
    if (!sum || t.deleted) continue;
    sum.balance += t.amount;
    if (t.cleared !== 'uncleared') sum.cleared += t.amount;
  }
  return ids.map((id) => {
    const sum = sums.get(id)!;
    return {
      account_id: id,
      account_name: s.account(id),
      ...moneyOf(s, 'balance', sum.balance),
      ...moneyOf(s, 'cleared_balance', sum.cleared),
      ...moneyOf(s, 'uncleared_balance', sum.balance - sum.cleared),
    };
  });
}

/**
 * Whether the copy lacks a transfer's other side in one of these accounts (our own write made the
 * transfer and the copy has not synced since): their sums would be short of it.
 */
export function missesTransferSides(r: BudgetReplica, accountIds: readonly string[]): boolean {
  const ids = new Set(accountIds);
  // The other side of a transfer from a split's line is that line (its id is a line's).
  let lineIds: Set<string> | undefined;
  const has = (id: string) => r.transactions.has(id) || (lineIds ??= new Set([...r.lines.values()].flatMap((m) => [...m.keys()]))).has(id);
  for (const t of r.transactions.values())
    if (!t.deleted && t.transfer_account_id && ids.has(t.transfer_account_id) && t.transfer_transaction_id && !has(t.transfer_transaction_id)) return true;
  for (const m of r.lines.values())
    for (const x of m.values())
      if (!x.deleted && x.transfer_account_id && ids.has(x.transfer_account_id) && x.transfer_transaction_id && !r.transactions.has(x.transfer_transaction_id))
        return true;
  return false;
}

/**
 * The approval queue after the write: how many transactions still wait for approval, how many of
 * those have no category (as review_transactions and needs_attention count them), and how many
 * of them are the two sides of one transfer (each counted in its own account; queue-count.ts).
 */
export function approvalQueue(r: BudgetReplica): Record<string, number | string> {
  const view = BudgetView.of(r);
  const list = [...r.transactions.values()].filter((t) => !t.deleted && !t.approved);
  const waiting = new Set(list.map((t) => t.id));
  const uncategorized = new Set(view.lines.filter((l) => waiting.has(l.transaction.id) && uncategorizedLine(view, l)).map((l) => l.transaction.id));
  const f = queueFacts(view, list);
  const sides = f.transferSides
    ? `, of which ${f.transferSides} ${f.transferSides === 2 * f.transfers ? `are the two sides of ${f.transfers === 1 ? 'one transfer' : `${f.transfers} transfers`}` : `are sides of ${f.transfers} transfers`}`
    : '';
  return {
    unapproved_left: waiting.size,
    unapproved_uncategorized: uncategorized.size,
    unapproved_transfer_sides: f.transferSides,
    ...(sides ? { unapproved_note: `${waiting.size} left unapproved${sides}; ${uncategorized.size} without a category.` } : {}),
  };
}

/** Transactions grouped by a category: how many, and their total. */
export function byCategory(s: Shown, items: readonly { category_id: string | null; amount: number }[]): Record<string, unknown>[] {
  const groups = new Map<string | null, { count: number; total: number }>();
  for (const x of items) {
    const g = groups.get(x.category_id) ?? { count: 0, total: 0 };
    g.count += 1;
    g.total += x.amount;
    groups.set(x.category_id, g);
  }
  return [...groups].map(([id, g]) => ({ category_id: id, category_name: s.category(id), count: g.count, ...moneyOf(s, 'total', g.total) }));
}

/** What a write touched: the accounts whose money it moved, and the (month, category) pairs. */
export interface Touched {
  accounts: string[];
  /** `known`: its assigned and available after, as the API answered an assignment (no read needed). */
  categories: { month: string; id: string; known?: { budgeted: number; balance: number } }[];
  /** Accounts of categorized transactions it touched: a card's payment category moves with them. */
  spentFrom: string[];
  /** Transactions the write names by id alone (an import's): what they touched is read back. */
  unnamed: string[];
  /** The copy lacks what YNAB made beside the answer (a new account's starting balance, an import): read back. */
  readBack: boolean;
  /** The current month: a transaction's categories are shown in it, and its Ready to Assign said when moved. */
  month: string;
}

/** The fields of a transaction's state that move an account's balances, and those that move a category's money (a date: its month). */
const ACCOUNT_FIELDS = ['account_id', 'amount', 'cleared', 'transfer_account_id', 'subtransactions'] as const;
const CATEGORY_FIELDS = ['account_id', 'amount', 'category_id', 'date', 'transfer_account_id', 'subtransactions'] as const;

const linesOf = (s: State | null): State[] => (s?.subtransactions as State[] | undefined) ?? [];

/**
 * What a write's entities touched: a transaction's accounts and categories where it was made,
 * deleted or its money changed (an approval or a memo moves none); a scheduled transaction's
 * always (its account and category are what the user asks about next); an assignment's month and
 * category; a category's in the current month; an account.
 */
export function touchedBy(entities: readonly EntityChange[], today: string): Touched {
  const t: Touched = { accounts: [], categories: [], spentFrom: [], unnamed: [], readBack: false, month: currentMonth(new Date(`${today}T00:00:00Z`)) };
  for (const e of entities) {
    if (e.kind === 'month_category') addCategory(t, e.id.split('/')[1], e.id.split('/')[0]!, knownOf(e.after));
    else if (e.kind === 'category') addCategory(t, e.id);
    else if (e.kind === 'account') {
      if (!t.accounts.includes(e.id)) t.accounts.push(e.id);
      t.readBack = true;
    }
    if (e.kind !== 'transaction' && e.kind !== 'scheduled_transaction') continue;
    // An import's answer names its transactions by id alone: what they touched is read back.
    if (!e.before && !e.after) t.unnamed.push(e.id);
    const whole = e.kind === 'scheduled_transaction' || !e.before || !e.after;
    const differs = (fields: readonly string[]) => whole || fields.some((f) => JSON.stringify(e.before![f]) !== JSON.stringify(e.after![f]));
    const moves = { accounts: differs(ACCOUNT_FIELDS), categories: differs(CATEGORY_FIELDS), spends: e.kind === 'transaction' };
    for (const state of [e.before, e.after]) addState(t, state, moves);
  }
  if (t.unnamed.length) t.readBack = true;
  return t;
}

/** A category of a month (the current month by default) the write touched, once, in the order touched. */
function addCategory(t: Touched, id: unknown, month = t.month, known?: { budgeted: number; balance: number }): void {
  if (typeof id === 'string' && !t.categories.some((c) => c.id === id && c.month === month)) t.categories.push({ month, id, ...(known ? { known } : {}) });
}

/** An assignment's state as the API answered it: its assigned and available after. */
function knownOf(after: State | null): { budgeted: number; balance: number } | undefined {
  return typeof after?.budgeted === 'number' && typeof after.balance === 'number' ? { budgeted: after.budgeted, balance: after.balance } : undefined;
}

/**
 * The accounts and categories a transaction's state (and its lines') name, as far as the write
 * moved their money (a cleared state moves no category's); `spends`: a transaction's, not a
 * scheduled one's.
 */
function addState(t: Touched, state: State | null, moves: { accounts: boolean; categories: boolean; spends: boolean }): void {
  const account = state?.account_id;
  for (const x of [state, ...linesOf(state)]) {
    if (moves.accounts) for (const id of [x?.account_id, x?.transfer_account_id]) if (typeof id === 'string' && !t.accounts.includes(id)) t.accounts.push(id);
    if (!moves.categories) continue;
    addCategory(t, x?.category_id);
    if (moves.spends && typeof x?.category_id === 'string' && typeof account === 'string' && !t.spentFrom.includes(account)) t.spentFrom.push(account);
  }
}

/** How many accounts and categories an answer lists at most: a bulk write's after-state stays small. */
export const AFTER_ROWS = 10;

/** Ready to Assign of each month as the plan's copy had it, to say whether the write moved it. */
export type ReadyBefore = ReadonlyMap<string, number>;

export const readyBefore = (r: BudgetReplica): ReadyBefore => new Map([...r.months.values()].map((m) => [m.month, m.to_be_budgeted]));

/**
 * The after-state every write's answer gives (issue 58 item 3), declared once here and added by
 * the pipeline: each touched account's balances, each touched category's assigned and available
 * in its month, and Ready to Assign when the write moved it. Accounts alone come from the copy
 * with the write's answer merged (no request); a category's available, which only YNAB computes,
 * and a transfer's other side are read back with one delta request.
 */
export async function afterStateOf(
  replicas: ReplicaManager,
  budgetId: string,
  touched: Touched,
  before: ReadyBefore,
): Promise<{ fields: Record<string, unknown>; notices: string[] }> {
  if (!touched.accounts.length && !touched.categories.length && !touched.unnamed.length) return { fields: {}, notices: [] };
  try {
    let { replica, notice } = await readFor(replicas, budgetId, touched.readBack || touched.categories.some((c) => !c.known) ? 'read-back' : 'direct-write');
    if (!notice && missesTransferSides(replica, touched.accounts)) ({ replica, notice } = await readFor(replicas, budgetId, 'answer'));
    // A copy that could not be synced predates the write: what it says would be wrong.
    if (notice) throw new Error(notice);
    for (const id of touched.unnamed) {
      const x = replica.transactions.get(id);
      if (x) addState(touched, { ...x, subtransactions: replica.linesOf(id) }, { accounts: true, categories: true, spends: true });
    }
    // Spending on a card moves its money into the card's payment category (YNAB's own move).
    const view = touched.spentFrom.length ? BudgetView.of(replica) : undefined;
    for (const id of touched.spentFrom) addCategory(touched, view!.paymentCategoryOf(id));
    const s = shownBy(replica);
    const accounts = accountBalances(
      replica,
      s,
      touched.accounts.filter((id) => replica.accounts.has(id)),
    );
    const categories = touched.categories
      .map(({ month, id, known }) => ({ month, c: replica.monthCategory(month, id), known }))
      .filter((x) => x.c && !x.c.deleted && !x.c.internal)
      .map(({ month, c, known }) => {
        const { budgeted, balance } = known ?? c!;
        return { category_id: c!.id, name: c!.name, month, ...moneyOf(s, 'assigned', budgeted), ...moneyOf(s, 'available', balance) };
      });
    const month =
      touched.categories
        .map((c) => c.month)
        .sort()
        .at(-1) ?? touched.month;
    const rta = replica.months.get(month)?.to_be_budgeted;
    const moved = rta !== undefined && rta !== before.get(month);
    const notices = [accounts, categories]
      .filter((rows) => rows.length > AFTER_ROWS)
      .map(
        (rows) => `Only the first ${AFTER_ROWS} of the ${rows.length} ${rows === accounts ? 'accounts' : 'categories'} the write touched are shown after it.`,
      );
    return {
      fields: {
        ...(accounts.length ? { accounts: accounts.slice(0, AFTER_ROWS) } : {}),
        ...(categories.length ? { categories: categories.slice(0, AFTER_ROWS) } : {}),
        ...(moved ? { month, ...moneyOf(s, 'ready_to_assign', rta) } : {}),
      },
      notices,
    };
  } catch (e) {
    return { fields: {}, notices: [`The change was made, but the balances after it could not be read (${(e as Error).message}).`] };
  }
}
