/**
 * The v1 entities, one zod schema per component schema of the official description.
 * `*Base` variants appear inside the budget export (no formatted companions); the full
 * variants are returned by the resource endpoints. Names follow the /budgets era where the
 * spec renamed Budget* to Plan* (BudgetSummary = PlanSummary, and so on).
 */
import * as z from 'zod';
import {
  AccountType,
  companions,
  CurrencyFormat,
  DateFormat,
  DebtTransactionType,
  GoalType,
  HybridTransactionType,
  IsoDate,
  IsoDateTime,
  LoanAccountPeriodicValue,
  Milliunits,
  nullableCompanions,
  ScheduledTransactionFrequency,
  TransactionClearedStatus,
  TransactionFlagColor,
  Uuid,
} from './common.js';

export const User = z.object({ id: Uuid });

export const AccountBase = z.object({
  id: Uuid,
  name: z.string(),
  type: AccountType,
  on_budget: z.boolean(),
  closed: z.boolean(),
  note: z.string().nullable().optional(),
  balance: Milliunits,
  cleared_balance: Milliunits,
  uncleared_balance: Milliunits,
  transfer_payee_id: Uuid.nullable(),
  direct_import_linked: z.boolean().optional(),
  direct_import_in_error: z.boolean().optional(),
  last_reconciled_at: IsoDateTime.nullable().optional(),
  debt_original_balance: Milliunits.nullable().optional(),
  debt_interest_rates: LoanAccountPeriodicValue.optional(),
  debt_minimum_payments: LoanAccountPeriodicValue.optional(),
  debt_escrow_amounts: LoanAccountPeriodicValue.optional(),
  deleted: z.boolean(),
});
export const Account = AccountBase.extend(companions('balance', 'cleared_balance', 'uncleared_balance'));

export const CategoryGroup = z.object({
  id: Uuid,
  name: z.string(),
  hidden: z.boolean(),
  internal: z.boolean(),
  deleted: z.boolean(),
});

export const CategoryBase = z.object({
  id: Uuid,
  category_group_id: Uuid,
  category_group_name: z.string().optional(),
  name: z.string(),
  hidden: z.boolean(),
  internal: z.boolean(),
  original_category_group_id: Uuid.nullable().optional(),
  note: z.string().nullable().optional(),
  budgeted: Milliunits,
  activity: Milliunits,
  balance: Milliunits,
  goal_type: GoalType.nullable().optional(),
  goal_needs_whole_amount: z.boolean().nullable().optional(),
  goal_day: z.int().nullable().optional(),
  goal_cadence: z.int().nullable().optional(),
  goal_cadence_frequency: z.int().nullable().optional(),
  goal_creation_month: IsoDate.nullable().optional(),
  goal_target: Milliunits.nullable().optional(),
  goal_target_month: IsoDate.nullable().optional(),
  goal_target_date: IsoDate.nullable().optional(),
  goal_percentage_complete: z.int().nullable().optional(),
  goal_months_to_budget: z.int().nullable().optional(),
  goal_under_funded: Milliunits.nullable().optional(),
  goal_overall_funded: Milliunits.nullable().optional(),
  goal_overall_left: Milliunits.nullable().optional(),
  goal_snoozed_at: IsoDateTime.nullable().optional(),
  deleted: z.boolean(),
});
export const Category = CategoryBase.extend({
  ...companions('balance', 'activity', 'budgeted'),
  ...nullableCompanions('goal_target', 'goal_under_funded', 'goal_overall_funded', 'goal_overall_left'),
});
export const CategoryGroupWithCategories = CategoryGroup.extend({ categories: z.array(Category) });

export const Payee = z.object({
  id: Uuid,
  name: z.string(),
  transfer_account_id: z.string().nullable().optional(),
  deleted: z.boolean(),
});

export const PayeeLocation = z.object({
  id: Uuid,
  payee_id: Uuid,
  latitude: z.string(),
  longitude: z.string(),
  deleted: z.boolean(),
});

export const MonthSummaryBase = z.object({
  month: IsoDate,
  note: z.string().nullable().optional(),
  income: Milliunits,
  budgeted: Milliunits,
  activity: Milliunits,
  to_be_budgeted: Milliunits,
  age_of_money: z.int().nullable().optional(),
  deleted: z.boolean(),
});
export const MonthSummary = MonthSummaryBase.extend(companions('income', 'budgeted', 'activity', 'to_be_budgeted'));
export const MonthDetailBase = MonthSummaryBase.extend({ categories: z.array(CategoryBase) });
export const MonthDetail = MonthSummary.extend({ categories: z.array(Category) });

export const TransactionSummaryBase = z.object({
  id: z.string(),
  date: IsoDate,
  amount: Milliunits,
  memo: z.string().nullable().optional(),
  cleared: TransactionClearedStatus,
  approved: z.boolean(),
  flag_color: TransactionFlagColor.optional(),
  flag_name: z.string().nullable().optional(),
  account_id: Uuid,
  payee_id: Uuid.nullable().optional(),
  category_id: Uuid.nullable().optional(),
  transfer_account_id: Uuid.nullable().optional(),
  transfer_transaction_id: z.string().nullable().optional(),
  matched_transaction_id: z.string().nullable().optional(),
  import_id: z.string().nullable().optional(),
  import_payee_name: z.string().nullable().optional(),
  import_payee_name_original: z.string().nullable().optional(),
  debt_transaction_type: DebtTransactionType.nullable().optional(),
  deleted: z.boolean(),
});
export const TransactionSummary = TransactionSummaryBase.extend(companions('amount'));

export const SubTransactionBase = z.object({
  id: z.string(),
  transaction_id: z.string(),
  amount: Milliunits,
  memo: z.string().nullable().optional(),
  payee_id: Uuid.nullable().optional(),
  payee_name: z.string().nullable().optional(),
  category_id: Uuid.nullable().optional(),
  category_name: z.string().nullable().optional(),
  transfer_account_id: Uuid.nullable().optional(),
  transfer_transaction_id: z.string().nullable().optional(),
  deleted: z.boolean(),
});
export const SubTransaction = SubTransactionBase.extend(companions('amount'));

export const TransactionDetail = TransactionSummary.extend({
  account_name: z.string(),
  payee_name: z.string().nullable().optional(),
  category_name: z.string().nullable().optional(),
  subtransactions: z.array(SubTransaction),
});

export const HybridTransaction = TransactionSummary.extend({
  type: HybridTransactionType,
  parent_transaction_id: z.string().nullable().optional(),
  account_name: z.string(),
  payee_name: z.string().nullable().optional(),
  category_name: z.string().optional(),
});

export const ScheduledSubTransactionBase = z.object({
  id: Uuid,
  scheduled_transaction_id: Uuid,
  amount: Milliunits,
  memo: z.string().nullable().optional(),
  payee_id: Uuid.nullable().optional(),
  payee_name: z.string().nullable().optional(),
  category_id: Uuid.nullable().optional(),
  category_name: z.string().nullable().optional(),
  transfer_account_id: Uuid.nullable().optional(),
  deleted: z.boolean(),
});
export const ScheduledSubTransaction = ScheduledSubTransactionBase.extend(companions('amount'));

export const ScheduledTransactionSummaryBase = z.object({
  id: Uuid,
  date_first: IsoDate,
  date_next: IsoDate,
  frequency: ScheduledTransactionFrequency,
  amount: Milliunits,
  memo: z.string().nullable().optional(),
  flag_color: TransactionFlagColor.optional(),
  flag_name: z.string().nullable().optional(),
  account_id: Uuid,
  payee_id: Uuid.nullable().optional(),
  category_id: Uuid.nullable().optional(),
  transfer_account_id: Uuid.nullable().optional(),
  deleted: z.boolean(),
});
export const ScheduledTransactionSummary = ScheduledTransactionSummaryBase.extend(companions('amount'));
export const ScheduledTransactionDetail = ScheduledTransactionSummary.extend({
  account_name: z.string(),
  payee_name: z.string().nullable().optional(),
  category_name: z.string().nullable().optional(),
  subtransactions: z.array(ScheduledSubTransaction),
});

export const MoneyMovementBase = z.object({
  id: Uuid,
  month: IsoDate.nullable().optional(),
  moved_at: IsoDateTime.nullable().optional(),
  note: z.string().nullable().optional(),
  money_movement_group_id: Uuid.nullable().optional(),
  performed_by_user_id: Uuid.nullable().optional(),
  from_category_id: Uuid.nullable().optional(),
  to_category_id: Uuid.nullable().optional(),
  amount: Milliunits,
});
export const MoneyMovement = MoneyMovementBase.extend(companions('amount'));

export const MoneyMovementGroup = z.object({
  id: Uuid,
  group_created_at: IsoDateTime,
  month: IsoDate,
  note: z.string().nullable().optional(),
  performed_by_user_id: Uuid.nullable().optional(),
});

export const BudgetSummary = z.object({
  id: Uuid,
  name: z.string(),
  last_modified_on: IsoDateTime.optional(),
  first_month: IsoDate.optional(),
  last_month: IsoDate.optional(),
  date_format: DateFormat.nullable().optional(),
  currency_format: CurrencyFormat.nullable().optional(),
  accounts: z.array(Account).optional(),
});

export const BudgetDetail = BudgetSummary.extend({
  accounts: z.array(AccountBase).optional(),
  payees: z.array(Payee).optional(),
  payee_locations: z.array(PayeeLocation).optional(),
  category_groups: z.array(CategoryGroup).optional(),
  categories: z.array(CategoryBase).optional(),
  months: z.array(MonthDetailBase).optional(),
  transactions: z.array(TransactionSummaryBase).optional(),
  subtransactions: z.array(SubTransactionBase).optional(),
  scheduled_transactions: z.array(ScheduledTransactionSummaryBase).optional(),
  scheduled_subtransactions: z.array(ScheduledSubTransactionBase).optional(),
});

export const BudgetSettings = z.object({
  date_format: DateFormat.nullable(),
  currency_format: CurrencyFormat.nullable(),
});

export type User = z.infer<typeof User>;
export type AccountBase = z.infer<typeof AccountBase>;
export type Account = z.infer<typeof Account>;
export type CategoryGroup = z.infer<typeof CategoryGroup>;
export type CategoryBase = z.infer<typeof CategoryBase>;
export type Category = z.infer<typeof Category>;
export type CategoryGroupWithCategories = z.infer<typeof CategoryGroupWithCategories>;
export type Payee = z.infer<typeof Payee>;
export type PayeeLocation = z.infer<typeof PayeeLocation>;
export type MonthSummaryBase = z.infer<typeof MonthSummaryBase>;
export type MonthSummary = z.infer<typeof MonthSummary>;
export type MonthDetailBase = z.infer<typeof MonthDetailBase>;
export type MonthDetail = z.infer<typeof MonthDetail>;
export type TransactionSummaryBase = z.infer<typeof TransactionSummaryBase>;
export type TransactionSummary = z.infer<typeof TransactionSummary>;
export type SubTransactionBase = z.infer<typeof SubTransactionBase>;
export type SubTransaction = z.infer<typeof SubTransaction>;
export type TransactionDetail = z.infer<typeof TransactionDetail>;
export type HybridTransaction = z.infer<typeof HybridTransaction>;
export type ScheduledSubTransactionBase = z.infer<typeof ScheduledSubTransactionBase>;
export type ScheduledSubTransaction = z.infer<typeof ScheduledSubTransaction>;
export type ScheduledTransactionSummaryBase = z.infer<typeof ScheduledTransactionSummaryBase>;
export type ScheduledTransactionDetail = z.infer<typeof ScheduledTransactionDetail>;
export type MoneyMovementBase = z.infer<typeof MoneyMovementBase>;
export type MoneyMovement = z.infer<typeof MoneyMovement>;
export type MoneyMovementGroup = z.infer<typeof MoneyMovementGroup>;
export type BudgetSummary = z.infer<typeof BudgetSummary>;
export type BudgetDetail = z.infer<typeof BudgetDetail>;
export type BudgetSettings = z.infer<typeof BudgetSettings>;
