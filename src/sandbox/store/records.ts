/**
 * What the sandbox stores per budget: the user-entered facts only. Everything the API shows
 * that follows from them (balances, activity, available, Ready to Assign, goal progress,
 * age of money, next dates) is computed in derived.ts and never stored.
 *
 * Every record carries the server knowledge of its last change and a `deleted` flag, so that
 * delta requests can return exactly the records changed since a given knowledge, tombstones included.
 */
import type {
  AccountType,
  DebtTransactionType,
  CurrencyFormat,
  DateFormat,
  GoalType,
  ScheduledTransactionFrequency,
  TransactionClearedStatus,
  TransactionFlagColor,
} from '../../api/schemas/common.js';

export interface Versioned {
  knowledge: number;
  deleted: boolean;
}

export interface AccountRec extends Versioned {
  id: string;
  name: string;
  type: AccountType;
  on_budget: boolean;
  closed: boolean;
  note: string | null;
  transfer_payee_id: string;
  direct_import_linked: boolean;
  direct_import_in_error: boolean;
  last_reconciled_at: string | null;
  debt_interest_rates: Record<string, number> | null;
  debt_minimum_payments: Record<string, number> | null;
  debt_escrow_amounts: Record<string, number> | null;
}

export interface PayeeRec extends Versioned {
  id: string;
  name: string;
  transfer_account_id: string | null;
}

export interface PayeeLocationRec extends Versioned {
  id: string;
  payee_id: string;
  latitude: string;
  longitude: string;
}

/** Special roles the service gives some groups and categories. */
export type GroupRole = 'internal_master' | 'credit_card_payments' | 'hidden_categories';
export type CategoryRole = 'ready_to_assign' | 'uncategorized' | 'credit_card_payment';

export interface CategoryGroupRec extends Versioned {
  id: string;
  name: string;
  hidden: boolean;
  internal: boolean;
  role: GroupRole | null;
}

/** A category's target as the user configured it; progress is derived per month. */
export interface GoalRec {
  type: GoalType;
  target: number;
  target_date: string | null;
  /** NEED only: true = set aside the whole amount each period, false = refill up to it. */
  needs_whole_amount: boolean | null;
  /** Weekday (0 = Sunday) for weekly cadence, else day of month; null = last day. */
  day: number | null;
  /** 0 none, 1 monthly, 2 weekly, 13 yearly (see the spec's goal_cadence). */
  cadence: number | null;
  cadence_frequency: number | null;
  /** '' when a loaded export does not say (an older target): the API then shows null. */
  creation_month: string;
  snoozed_at: string | null;
}

export interface CategoryRec extends Versioned {
  id: string;
  category_group_id: string;
  name: string;
  hidden: boolean;
  internal: boolean;
  note: string | null;
  goal: GoalRec | null;
  role: CategoryRole | null;
  /** For a credit card payment category: the card's account. */
  linked_account_id: string | null;
}

/** The user-entered part of a budget month: assigned amounts per category and a note. */
export interface MonthRec {
  month: string;
  note: string | null;
  budgeted: Record<string, number>;
}

export interface SubtransactionRec {
  id: string;
  amount: number;
  memo: string | null;
  payee_id: string | null;
  category_id: string | null;
  transfer_account_id: string | null;
  transfer_transaction_id: string | null;
  deleted: boolean;
}

export interface TransactionRec extends Versioned {
  id: string;
  /** Creation order, for a stable sort of same-day transactions. */
  seq: number;
  date: string;
  amount: number;
  memo: string | null;
  cleared: TransactionClearedStatus;
  approved: boolean;
  flag_color: TransactionFlagColor;
  flag_name: string | null;
  account_id: string;
  payee_id: string | null;
  category_id: string | null;
  transfer_account_id: string | null;
  transfer_transaction_id: string | null;
  matched_transaction_id: string | null;
  import_id: string | null;
  import_payee_name: string | null;
  import_payee_name_original: string | null;
  debt_transaction_type: DebtTransactionType | null;
  subtransactions: SubtransactionRec[];
}

export interface ScheduledSubtransactionRec {
  id: string;
  amount: number;
  memo: string | null;
  payee_id: string | null;
  category_id: string | null;
  transfer_account_id: string | null;
  deleted: boolean;
}

export interface ScheduledTransactionRec extends Versioned {
  id: string;
  date_first: string;
  frequency: ScheduledTransactionFrequency;
  amount: number;
  memo: string | null;
  flag_color: TransactionFlagColor;
  flag_name: string | null;
  account_id: string;
  payee_id: string | null;
  category_id: string | null;
  transfer_account_id: string | null;
  subtransactions: ScheduledSubtransactionRec[];
}

export interface MoneyMovementRec {
  id: string;
  month: string;
  moved_at: string;
  note: string | null;
  money_movement_group_id: string | null;
  performed_by_user_id: string | null;
  from_category_id: string | null;
  to_category_id: string | null;
  amount: number;
  knowledge: number;
}

export interface MoneyMovementGroupRec {
  id: string;
  group_created_at: string;
  month: string;
  note: string | null;
  performed_by_user_id: string | null;
  knowledge: number;
}

/** A transaction a linked account's bank has ready for `POST /transactions/import`. */
export interface PendingImportRec {
  account_id: string;
  date: string;
  amount: number;
  payee_name: string;
  memo: string | null;
}

export interface BudgetRec {
  id: string;
  name: string;
  /**
   * The service's internal "Split" category: a split transaction's own category_id (its lines
   * carry the real categories). Like the service's, it is in no category list.
   */
  split_category_id: string;
  last_modified_on: string;
  first_month: string;
  date_format: DateFormat | null;
  currency_format: CurrencyFormat | null;
  knowledge: number;
  next_seq: number;
  accounts: Map<string, AccountRec>;
  payees: Map<string, PayeeRec>;
  payee_locations: Map<string, PayeeLocationRec>;
  category_groups: Map<string, CategoryGroupRec>;
  categories: Map<string, CategoryRec>;
  months: Map<string, MonthRec>;
  transactions: Map<string, TransactionRec>;
  scheduled_transactions: Map<string, ScheduledTransactionRec>;
  money_movements: MoneyMovementRec[];
  money_movement_groups: MoneyMovementGroupRec[];
  pending_imports: PendingImportRec[];
  /**
   * Computed entities (balances, month figures, goal progress, next dates) change without
   * their record changing. For each one we keep a fingerprint of its last computed value and
   * the knowledge at which that value last changed, so deltas include them; persisted so a
   * restarted sandbox still answers deltas correctly.
   */
  derived_state: Map<string, { fp: string; knowledge: number }>;
  /**
   * A budget loaded from an export (`--from`): what YNAB computed, kept as its differences from
   * the sandbox's own figures at load, so answers give the export's figures (export-figures.ts).
   */
  export_figures?: ExportFigures;
}

/** [assigned, activity, available] differences, export less sandbox. */
export type FigureDiff = [number, number, number];

/** Per target field: the difference, or null where the export shows none. */
export interface GoalDiff {
  percentage_complete: number | null;
  months_to_budget: number | null;
  under_funded: number | null;
  overall_funded: number | null;
  overall_left: number | null;
}

export interface MonthDiff {
  income: number;
  budgeted: number;
  activity: number;
  to_be_budgeted: number;
  /** The export's own age of money (not a difference). */
  age_of_money: number | null;
  categories: Record<string, FigureDiff>;
  goals: Record<string, GoalDiff>;
}

/** What YNAB computed for a budget loaded from an export, as differences from the sandbox's own figures (export-figures.ts). */
export interface ExportFigures {
  last_month: string;
  months: Record<string, MonthDiff>;
  /** Per account: [balance, cleared, uncleared] differences. */
  accounts: Record<string, [number, number, number]>;
}

export function emptyBudget(init: {
  id: string;
  split_category_id: string;
  name: string;
  first_month: string;
  now: string;
  date_format: DateFormat | null;
  currency_format: CurrencyFormat | null;
}): BudgetRec {
  const { now, ...rest } = init;
  return {
    ...rest,
    last_modified_on: now,
    knowledge: 0,
    next_seq: 1,
    accounts: new Map(),
    payees: new Map(),
    payee_locations: new Map(),
    category_groups: new Map(),
    categories: new Map(),
    months: new Map(),
    transactions: new Map(),
    scheduled_transactions: new Map(),
    money_movements: [],
    money_movement_groups: [],
    pending_imports: [],
    derived_state: new Map(),
  };
}
