/**
 * A budget seen the way YNAB counts money, built once per replica version from its local copy:
 *  - every transaction as lines (a split's lines, else the transaction itself), each classed as
 *    budget `activity`, `income` (to Ready to Assign), a `transfer`, or a `starting_balance` (an
 *    opening balance: never income, monthIncome);
 *  - which accounts are on budget and which are credit (cards and lines of credit), and each
 *    credit account's payment category.
 * Transfers between two on-budget accounts are never spending, nor is money to Ready to Assign (an
 * account's starting balance is, unless it was given to a category: YNAB's month then counts it
 * there, and so do these lines; a tracking account's starting balance is apart). A transfer
 * from an on-budget account to a tracking (off-budget) one leaves the budget, so YNAB gives it a
 * category and counts it as activity; its tracking side is a transfer. The insight tools compute
 * every figure from these lines, the way the API's month view does.
 */
import type * as E from '../../api/schemas/entities.js';
import { STARTING_BALANCE_PAYEE } from '../../api/starting-balance.js';
import type { BudgetReplica } from '../../sync/replica.js';

export type LineKind = 'activity' | 'income' | 'transfer' | 'starting_balance';

export interface Line {
  /** The split line's id, or the transaction's. */
  id: string;
  /** The split's transaction id, for a split line. */
  parent_id: string | null;
  transaction: E.TransactionSummaryBase;
  date: string;
  amount: number;
  account_id: string;
  payee_id: string | null;
  category_id: string | null;
  transfer_account_id: string | null;
  memo: string | null;
  on_budget: boolean;
  kind: LineKind;
}

/**
 * Whether a line is budget activity (BudgetView.activity): for a check that reads each line once,
 * without the list of them (at 100,000 transactions, a list of 100,000 held until the next full
 * collection, issue 61).
 */
export const isActivity = (l: Line, includeOffBudget = false): boolean => l.kind === 'activity' && (l.on_budget || includeOffBudget);

/**
 * The line of a transaction without a split, its fields read from the transaction itself: a plain
 * line held a copy of twelve fields, 13 MB of 112,211 lines at 100,000 transactions on top of the
 * copy while the alerts' scan ran (issue 61). Only what the transaction cannot say is kept.
 */
class WholeLine implements Line {
  constructor(
    readonly transaction: E.TransactionSummaryBase,
    readonly on_budget: boolean,
    readonly kind: LineKind,
  ) {}
  get id(): string {
    return this.transaction.id;
  }
  get parent_id(): null {
    return null;
  }
  get date(): string {
    return this.transaction.date;
  }
  get amount(): number {
    return this.transaction.amount;
  }
  get account_id(): string {
    return this.transaction.account_id;
  }
  get payee_id(): string | null {
    return this.transaction.payee_id ?? null;
  }
  get category_id(): string | null {
    return this.transaction.category_id ?? null;
  }
  get transfer_account_id(): string | null {
    return this.transaction.transfer_account_id ?? null;
  }
  get memo(): string | null {
    return this.transaction.memo ?? null;
  }
}

/** Each copy's latest view: the next one keeps its lines that did not change (BudgetView.reuse). */
const LATEST = new WeakMap<BudgetReplica, BudgetView>();

/** Account types whose spending moves money into a payment category. */
export const CREDIT_TYPES: ReadonlySet<string> = new Set(['creditCard', 'lineOfCredit']);

export class BudgetView {
  readonly lines: Line[] = [];
  /** The "Inflow: Ready to Assign" category. */
  readonly readyToAssignId: string | null;
  readonly uncategorizedId: string | null;
  /** The payees of accounts' starting balances (opening balances: never income; cash_flow sets accounts added apart). */
  readonly startingPayees: Set<string>;
  private readonly paymentCategories = new Map<string, string>();

  /** The copy's lines version this view was built at (replica.ts). */
  readonly linesVersion: number;

  /** `before`: the view of this copy's previous version, whose lines not changed since are kept (reuse). */
  constructor(
    readonly replica: BudgetReplica,
    before?: BudgetView,
  ) {
    this.linesVersion = replica.linesVersion;
    const internal = [...replica.categories.values()].filter((c) => c.internal);
    this.readyToAssignId = internal.find((c) => /ready to assign|to be budgeted/i.test(c.name))?.id ?? null;
    this.uncategorizedId = internal.find((c) => c.name === 'Uncategorized')?.id ?? null;
    this.startingPayees = new Set([...replica.payees.values()].filter((p) => p.name === STARTING_BALANCE_PAYEE && !p.transfer_account_id).map((p) => p.id));
    // A credit account's payment category: the category with its name in the internal
    // "Credit Card Payments" group (the API links them by nothing else).
    for (const c of replica.categories.values()) {
      const group = replica.categoryGroups.get(c.category_group_id);
      if (!group?.internal || c.internal) continue;
      const account = [...replica.accounts.values()].find((a) => a.name === c.name && a.on_budget && CREDIT_TYPES.has(a.type));
      if (account) this.paymentCategories.set(account.id, c.id);
    }
    if (before && this.reuse(before)) return;
    this.lines.length = 0;
    for (const t of replica.transactions.values()) this.linesOfTransaction(t, this.lines);
  }

  /**
   * The lines of `before` (this copy's previous view) kept where their transaction did not change
   * since (sync/line-changes.ts), the changed ones made again in place, new ones after: the alerts'
   * scan after a delta sync made 112,211 lines again at 100,000 transactions for a few changed
   * (issue 61). Only when what a line is did not change (Ready to Assign, the starting balances'
   * payees; an account's kind makes the change whole), and checked: the lines must follow the
   * copy's transactions, each the copy's own object, else false and they are made whole.
   */
  private reuse(before: BudgetView): boolean {
    if (before.replica !== this.replica || before.readyToAssignId !== this.readyToAssignId) return false;
    if (before.startingPayees.size !== this.startingPayees.size || [...before.startingPayees].some((p) => !this.startingPayees.has(p))) return false;
    const change = this.replica.lineChanges.since(before.linesVersion, this.linesVersion);
    if (!change) return false;
    const held = this.replica.transactions;
    const done = new Set<string>();
    for (const l of before.lines) {
      const id = l.transaction.id;
      if (!change.ids.has(id)) this.lines.push(l);
      else if (!done.has(id)) {
        done.add(id);
        const t = held.get(id);
        if (t) this.linesOfTransaction(t, this.lines);
      }
    }
    for (const id of change.ids) if (!done.has(id) && held.has(id)) this.linesOfTransaction(held.get(id)!, this.lines);
    let i = 0;
    for (const t of held.values()) {
      if (this.lines[i]?.transaction !== t) return false;
      while (this.lines[i]?.transaction === t) i++;
    }
    return i === this.lines.length;
  }

  /** A transaction's lines as this view has them (a split's lines, else the transaction itself), added to `out`. */
  linesOfTransaction(t: E.TransactionSummaryBase, out: Line[] = []): Line[] {
    const split = this.replica.linesOf(t.id).filter((x) => !x.deleted);
    if (!split.length) out.push(this.line(t, null, t.id, t.amount, t.payee_id ?? null, t.category_id ?? null, t.transfer_account_id ?? null, t.memo ?? null));
    for (const x of split)
      out.push(this.line(t, t.id, x.id, x.amount, x.payee_id ?? t.payee_id ?? null, x.category_id ?? null, x.transfer_account_id ?? null, x.memo ?? null));
    return out;
  }

  /** The view of a replica, rebuilt only after it changed. */
  static of(replica: BudgetReplica): BudgetView {
    return replica.memo(replica, () => {
      const view = new BudgetView(replica, LATEST.get(replica));
      LATEST.set(replica, view);
      return view;
    });
  }

  private line(
    t: E.TransactionSummaryBase,
    parent: string | null,
    id: string,
    amount: number,
    payee: string | null,
    category: string | null,
    transfer: string | null,
    memo: string | null,
  ): Line {
    const onBudget = this.onBudget(t.account_id);
    let kind: LineKind = 'activity';
    if (transfer && !(onBudget && !this.onBudget(transfer))) kind = 'transfer';
    // An opening balance is money the account already held, never income (issue 57): in Ready to
    // Assign, where YNAB's month counts it as income, it is apart (monthIncome says how much). One
    // given straight to a category stays that category's activity, as YNAB's month counts it.
    else if (this.isOpening(transfer, payee, parent) && (!onBudget || category === this.readyToAssignId)) kind = 'starting_balance';
    else if (category && category === this.readyToAssignId) kind = 'income';
    if (parent === null) return new WholeLine(t, onBudget, kind);
    return {
      id,
      parent_id: parent,
      transaction: t,
      date: t.date,
      amount,
      account_id: t.account_id,
      payee_id: payee,
      category_id: category,
      transfer_account_id: transfer,
      memo,
      on_budget: onBudget,
      kind,
    };
  }

  /** The one rule of what an opening balance is: a line of the "Starting Balance" payee, not a transfer's nor a split's line. */
  private isOpening(transfer: string | null, payee: string | null, parent: string | null): boolean {
    return !transfer && !!payee && this.startingPayees.has(payee) && !parent;
  }

  /**
   * A month's income as every tool counts it: YNAB's month income less the opening balances in it
   * (`opening`, set apart: a budget account's starting balance in Ready to Assign, which YNAB's
   * month counts as income, is money the account held, not money earned). A card's opening debt
   * is no income in YNAB's month (only a positive card balance is), so only a positive one is apart.
   */
  monthIncome(month: string): { income: number; opening: number } {
    const opening = (this.openingByMonth ??= this.openingMonths()).get(month.slice(0, 7)) ?? 0;
    return { income: (this.replica.months.get(month)?.income ?? 0) - opening, opening };
  }

  private openingByMonth: Map<string, number> | undefined;

  /** The opening balances YNAB's months count as income, by `YYYY-MM`. */
  private openingMonths(): Map<string, number> {
    const out = new Map<string, number>();
    for (const l of this.lines) {
      const amount = this.openingIncome(l);
      if (amount !== undefined) out.set(l.date.slice(0, 7), (out.get(l.date.slice(0, 7)) ?? 0) + amount);
    }
    return out;
  }

  /** The opening balances YNAB counts as income between two dates, inclusive (monthIncome's `opening` for a whole month). */
  openingBetween(since: string, until: string): number {
    let total = 0;
    for (const l of this.lines) if (l.date >= since && l.date <= until) total += this.openingIncome(l) ?? 0;
    return total;
  }

  /** What of a line YNAB's month counts as income although it is an opening balance; undefined for any other line. */
  private openingIncome(l: Line): number | undefined {
    if (l.kind !== 'starting_balance' || !l.on_budget) return undefined;
    return this.isCredit(l.account_id) ? Math.max(0, l.amount) : l.amount;
  }

  onBudget(accountId: string): boolean {
    return this.replica.accounts.get(accountId)?.on_budget ?? false;
  }

  isCredit(accountId: string): boolean {
    return CREDIT_TYPES.has(this.replica.accounts.get(accountId)?.type ?? '');
  }

  paymentCategoryOf(accountId: string): string | undefined {
    return this.paymentCategories.get(accountId);
  }

  isPaymentCategory(categoryId: string): boolean {
    for (const id of this.paymentCategories.values()) if (id === categoryId) return true;
    return false;
  }

  /**
   * Budget activity the way the month view counts it (spending and refunds; not income,
   * transfers or starting balances): the one definition of spending that spending_summary,
   * cash_flow and the planning tools share.
   */
  activity(includeOffBudget = false): Line[] {
    return this.lines.filter((l) => isActivity(l, includeOffBudget));
  }

  /** Spending (outflows less refunds) on budget between two dates, inclusive: minus the activity lines' sum. */
  spendingBetween(since: string, until: string): number {
    let total = 0;
    for (const l of this.lines) if (l.kind === 'activity' && l.on_budget && l.date >= since && l.date <= until) total -= l.amount;
    return total;
  }

  /** Income on budget between two dates, inclusive: money to Ready to Assign, opening balances never (monthIncome's figure for a whole month). */
  incomeBetween(since: string, until: string): number {
    let total = 0;
    for (const l of this.lines) if (l.kind === 'income' && l.on_budget && l.date >= since && l.date <= until) total += l.amount;
    return total;
  }

  accountName(id: string): string {
    return this.replica.accounts.get(id)?.name ?? '';
  }

  payeeName(id: string | null): string | null {
    return id ? (this.replica.payees.get(id)?.name ?? null) : null;
  }

  /** The category a line counts in: its own, or Uncategorized for on-budget activity without one. */
  categoryOf(line: Line): string | null {
    return line.category_id ?? (line.on_budget && line.kind === 'activity' ? this.uncategorizedId : null);
  }

  categoryName(line: Line): string | null {
    const id = this.categoryOf(line);
    return id ? (this.replica.categories.get(id)?.name ?? null) : null;
  }

  groupOf(categoryId: string | null): E.CategoryGroup | undefined {
    const c = categoryId ? this.replica.categories.get(categoryId) : undefined;
    return c ? this.replica.categoryGroups.get(c.category_group_id) : undefined;
  }

  /** Sum of every account's transactions up to a date (on and off budget, closed ones too). */
  netWorthOn(date: string): number {
    const days = (this.worth ??= this.runningWorth());
    // The last day on or before `date` (binary search over the sorted days).
    let lo = 0;
    let hi = days.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (days[mid]!.date <= date) lo = mid + 1;
      else hi = mid;
    }
    return lo ? days[lo - 1]!.total : 0;
  }

  private worth: { date: string; total: number }[] | undefined;

  /** Each day with transactions and the sum of all transactions up to its end, in date order. */
  private runningWorth(): { date: string; total: number }[] {
    const byDay = new Map<string, number>();
    for (const t of this.replica.transactions.values()) byDay.set(t.date, (byDay.get(t.date) ?? 0) + t.amount);
    let total = 0;
    return [...byDay.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([date, amount]) => ({ date, total: (total += amount) }));
  }
}
