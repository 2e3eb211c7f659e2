/**
 * The `data` member of every success response, per operation family. Names are the
 * /plans-era ones; the /budgets era renames a few members (see operations.ts `legacyMembers`).
 */
import * as z from 'zod';
import { Knowledge } from './common.js';
import {
  Account,
  BudgetDetail,
  BudgetSettings,
  BudgetSummary,
  Category,
  CategoryGroup,
  CategoryGroupWithCategories,
  HybridTransaction,
  MoneyMovement,
  MoneyMovementGroup,
  MonthDetail,
  MonthSummary,
  Payee,
  PayeeLocation,
  ScheduledTransactionDetail,
  TransactionDetail,
  User,
} from './entities.js';

export const UserData = z.object({ user: User });
export const BudgetSummaryData = z.object({
  plans: z.array(BudgetSummary),
  default_plan: BudgetSummary.nullable().optional(),
});
export const BudgetDetailData = z.object({ plan: BudgetDetail, server_knowledge: Knowledge });
export const BudgetSettingsData = z.object({ settings: BudgetSettings });

export const AccountsData = z.object({ accounts: z.array(Account), server_knowledge: Knowledge });
export const AccountData = z.object({ account: Account });

export const CategoriesData = z.object({ category_groups: z.array(CategoryGroupWithCategories), server_knowledge: Knowledge });
export const CategoryData = z.object({ category: Category });
export const SaveCategoryData = z.object({ category: Category, server_knowledge: Knowledge });
export const SaveCategoryGroupData = z.object({ category_group: CategoryGroup, server_knowledge: Knowledge });

export const PayeesData = z.object({ payees: z.array(Payee), server_knowledge: Knowledge });
export const PayeeData = z.object({ payee: Payee });
export const SavePayeeData = z.object({ payee: Payee, server_knowledge: Knowledge });
export const PayeeLocationsData = z.object({ payee_locations: z.array(PayeeLocation) });
export const PayeeLocationData = z.object({ payee_location: PayeeLocation });

export const MonthSummariesData = z.object({ months: z.array(MonthSummary), server_knowledge: Knowledge });
export const MonthDetailData = z.object({ month: MonthDetail });

export const MoneyMovementsData = z.object({ money_movements: z.array(MoneyMovement), server_knowledge: Knowledge });
export const MoneyMovementGroupsData = z.object({
  money_movement_groups: z.array(MoneyMovementGroup),
  server_knowledge: Knowledge,
});

export const TransactionsData = z.object({ transactions: z.array(TransactionDetail), server_knowledge: Knowledge });
export const HybridTransactionsData = z.object({
  transactions: z.array(HybridTransaction),
  server_knowledge: Knowledge.optional(),
});
export const TransactionData = z.object({ transaction: TransactionDetail, server_knowledge: Knowledge });
export const SaveTransactionsData = z.object({
  transaction_ids: z.array(z.string()),
  transaction: TransactionDetail.optional(),
  transactions: z.array(TransactionDetail).optional(),
  duplicate_import_ids: z.array(z.string()).optional(),
  server_knowledge: Knowledge,
});
export const TransactionsImportData = z.object({ transaction_ids: z.array(z.string()) });

export const ScheduledTransactionsData = z.object({
  scheduled_transactions: z.array(ScheduledTransactionDetail),
  server_knowledge: Knowledge,
});
export const ScheduledTransactionData = z.object({ scheduled_transaction: ScheduledTransactionDetail });

export type BudgetSummaryData = z.infer<typeof BudgetSummaryData>;
export type BudgetDetailData = z.infer<typeof BudgetDetailData>;
export type SaveTransactionsData = z.infer<typeof SaveTransactionsData>;
