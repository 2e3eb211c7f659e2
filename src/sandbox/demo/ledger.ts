/**
 * Posting demo transactions. Wraps `insertTransaction` with the details a real history has
 * (reconciled when old, uncleared and unapproved when recent, a few flags, bank-import ids on
 * the linked account) and keeps the running figures the generator needs without scanning the
 * budget: account balances, and each month's flows gathered by the same collector derived.ts
 * uses (budget-math.ts), so the generator plans with the figures the API will report.
 */
import { addDays } from '../../api/dates.js';
import type { DebtTransactionType, TransactionClearedStatus, TransactionFlagColor } from '../../api/schemas/common.js';
import { insertTransaction, type LineSpec } from '../domain/transactions.js';
import type { BudgetStore } from '../store/budget-store.js';
import { budgetShape, FlowCollector, type MonthFlows } from '../store/budget-math.js';
import type { AccountRec, CategoryRec, PayeeRec, TransactionRec } from '../store/records.js';
import type { Random } from './random.js';
import { bankText } from './bank-texts.js';

export interface DemoLine {
  amount: number;
  category?: CategoryRec | null;
  /** A transfer payee makes the line a transfer. */
  payee?: PayeeRec | null;
  memo?: string | null;
}

export interface Entry {
  date: string;
  account: AccountRec;
  /** Milliunits; for a split, the sum of the lines. */
  amount: number;
  /** A merchant, or another account's transfer payee for a transfer. */
  payee: PayeeRec;
  /** null (or omitted) on a non-transfer budget line leaves it uncategorized. */
  category?: CategoryRec | null;
  memo?: string | null;
  lines?: DemoLine[];
  /** Omitted: a small random share gets a flag. */
  flag?: TransactionFlagColor;
  cleared?: TransactionClearedStatus;
  approved?: boolean;
  /** Omitted: imported when on the linked account within the import window. */
  imported?: boolean;
  debtType?: DebtTransactionType | null;
  /** debt_transaction_type for the other side of a transfer (e.g. a loan payment). */
  pairDebtType?: DebtTransactionType | null;
}

export interface LedgerDates {
  today: string;
  /** Per account: transactions on or before this date are reconciled. */
  reconciledThrough: Map<string, string>;
  /** The linked account's transactions from this date are bank imports. */
  importSince: string;
}

const FLAGS: TransactionFlagColor[] = ['red', 'orange', 'yellow', 'green', 'blue', 'purple'];
const FLAG_NAMES = ['Tax deductible', 'Reimbursable', 'Check receipt', 'Return pending', 'Split with Sam'];

export class Ledger {
  readonly balances = new Map<string, number>();
  /** Month flows, gathered as transactions are posted (in date order, as the collector needs). */
  private collector: FlowCollector | null = null;
  private readonly importOccurrences = new Map<string, number>();
  private readonly recentSince: string;
  private readonly approvedBefore: string;
  private readonly importUntil: string;

  constructor(
    private readonly store: BudgetStore,
    private readonly rng: Random,
    private readonly dates: LedgerDates,
  ) {
    this.recentSince = addDays(dates.today, -4);
    this.approvedBefore = addDays(dates.today, -6);
    // The last few days have not been imported yet: that is what the pending imports are.
    this.importUntil = addDays(dates.today, -4);
  }

  /** What a month's transactions brought so far. */
  flows(month: string): MonthFlows {
    return this.flowsOf().flows(month);
  }

  private flowsOf(): FlowCollector {
    // Created at the first transaction: by then the accounts and categories exist.
    return (this.collector ??= new FlowCollector(budgetShape(this.store.rec)));
  }

  balance(account: AccountRec): number {
    return this.balances.get(account.id) ?? 0;
  }

  post(e: Entry): TransactionRec {
    const imported = e.imported ?? this.autoImported(e);
    const t = insertTransaction(this.store, {
      account_id: e.account.id,
      date: e.date,
      amount: e.amount,
      payee_id: e.payee.id,
      category_id: e.lines ? null : (e.category?.id ?? null),
      memo: e.memo ?? null,
      cleared: e.cleared ?? (imported ? this.settled(e.account, e.date) : this.status(e.account, e.date)),
      approved: e.approved ?? (e.date <= this.approvedBefore || this.rng.chance(0.55)),
      flag_color: e.flag !== undefined ? e.flag : this.rng.chance(0.035) ? this.rng.pick(FLAGS) : null,
      import_id: imported ? this.importId(e) : null,
      import_payee_name: imported ? e.payee.name : null,
      import_payee_name_original: imported ? statementName(e.payee.name, this.rng) : null,
      matched_transaction_id: imported && this.rng.chance(0.25) ? this.store.env.newId() : null,
      debt_transaction_type: e.debtType ?? null,
      subtransactions: e.lines?.map((l): LineSpec => ({
        amount: l.amount,
        payee_id: l.payee?.id ?? null,
        category_id: l.category?.id ?? null,
        memo: l.memo ?? null,
      })),
    });
    if (t.flag_color && this.rng.chance(0.3)) t.flag_name = this.rng.pick(FLAG_NAMES);
    this.track(t);
    // The other side of each transfer: its own cleared status, as its bank reports it.
    const pairIds = t.subtransactions.length ? t.subtransactions.map((x) => x.transfer_transaction_id) : [t.transfer_transaction_id];
    for (const id of pairIds) {
      const pair = id ? this.store.rec.transactions.get(id) : undefined;
      if (!pair) continue;
      const account = this.store.rec.accounts.get(pair.account_id)!;
      pair.cleared = this.status(account, pair.date);
      pair.debt_transaction_type = e.pairDebtType ?? null;
      this.store.stamp(pair);
      this.track(pair);
    }
    return t;
  }

  /** Counts a transaction made elsewhere (a starting balance), settling its status by age. */
  absorb(t: TransactionRec): void {
    t.cleared = this.settled(this.store.rec.accounts.get(t.account_id)!, t.date);
    this.store.stamp(t);
    this.track(t);
  }

  private autoImported(e: Entry): boolean {
    return e.account.direct_import_linked && e.payee.transfer_account_id === null && e.date >= this.dates.importSince && e.date <= this.importUntil;
  }

  /** Cleared, or reconciled when the account was reconciled past that date. */
  private settled(account: AccountRec, date: string): TransactionClearedStatus {
    const through = this.dates.reconciledThrough.get(account.id);
    return through && date <= through ? 'reconciled' : 'cleared';
  }

  private status(account: AccountRec, date: string): TransactionClearedStatus {
    if (account.type !== 'cash' && date > this.recentSince && this.rng.chance(0.7)) return 'uncleared';
    return this.settled(account, date);
  }

  /** The service's own import id format: YNAB:<milliunits>:<date>:<occurrence>, unique per account. */
  private importId(e: Entry): string {
    const key = `${e.account.id}:${e.amount}:${e.date}`;
    const n = (this.importOccurrences.get(key) ?? 0) + 1;
    this.importOccurrences.set(key, n);
    return `YNAB:${e.amount}:${e.date}:${n}`;
  }

  /** Counts one stored transaction (either side of a transfer) in the balances and month flows. */
  private track(t: TransactionRec): void {
    this.balances.set(t.account_id, (this.balances.get(t.account_id) ?? 0) + t.amount);
    this.flowsOf().add(t);
  }
}

/** How a bank statement spells a merchant: upper case, often with a store number. */
function statementName(name: string, rng: Random): string {
  const ref = rng.chance(0.5) ? rng.int(100, 9999) : undefined;
  return bankText(name, ref) ?? (ref === undefined ? name.toUpperCase() : `${name.toUpperCase()} #${ref}`);
}
