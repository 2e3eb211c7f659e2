/**
 * Request bodies of the write operations. Objects are strict: the client and the MCP tools build
 * their arguments from them, and an unknown field is refused naming it, so a typo never becomes a
 * no-op. The sandbox parses with a stripping copy (sandbox/body-schemas.ts): the service ignores
 * fields it does not define, and only `--strict` refuses them.
 *
 * Field limits are the spec's where it documents one (memo 500, payee_name 200, import_id 36,
 * category group name 50, payee name 500). Where the spec documents none, the project applies
 * TEXT_LIMIT so that no single field can carry unbounded text into a budget.
 */
import * as z from 'zod';
import {
  GoalFrequency,
  IsoDate,
  Milliunits,
  SaveAccountType,
  ScheduledTransactionFrequency,
  TransactionClearedStatus,
  TransactionFlagColor,
  Uuid,
} from './common.js';

export const TEXT_LIMIT = 500;

const memo = z.string().max(500).nullable();
const payeeName = z.string().max(200).nullable();
const importId = z.string().max(36).nullable();

export const SaveAccount = z.strictObject({
  name: z.string().min(1).max(TEXT_LIMIT),
  type: SaveAccountType,
  balance: Milliunits,
});

export const SaveCategory = z.strictObject({
  name: z.string().min(1).max(TEXT_LIMIT).nullable().optional(),
  note: z.string().max(TEXT_LIMIT).nullable().optional(),
  category_group_id: Uuid.optional(),
  goal_target: Milliunits.min(0).nullable().optional(),
  goal_target_date: IsoDate.nullable().optional(),
  goal_needs_whole_amount: z.boolean().nullable().optional(),
  goal_frequency: GoalFrequency.optional(),
});
export const NewCategory = SaveCategory.extend({
  name: z.string().min(1).max(TEXT_LIMIT),
  category_group_id: Uuid,
});
export const ExistingCategory = SaveCategory;

export const SaveMonthCategory = z.strictObject({ budgeted: Milliunits });

export const SaveCategoryGroup = z.strictObject({ name: z.string().min(1).max(50) });

export const PostPayee = z.strictObject({ name: z.string().min(1).max(500) });
export const SavePayee = z.strictObject({ name: z.string().min(1).max(500).optional() });

export const SaveSubTransaction = z.strictObject({
  amount: Milliunits,
  payee_id: Uuid.nullable().optional(),
  payee_name: payeeName.optional(),
  category_id: Uuid.nullable().optional(),
  memo: memo.optional(),
});

const saveTransactionFields = {
  account_id: Uuid,
  date: IsoDate,
  amount: Milliunits,
  payee_id: Uuid.nullable(),
  payee_name: payeeName,
  category_id: Uuid.nullable(),
  memo,
  cleared: TransactionClearedStatus,
  approved: z.boolean(),
  flag_color: TransactionFlagColor,
  subtransactions: z.array(SaveSubTransaction),
};

/** The spec's SaveTransactionWithOptionalFields: every field optional. */
export const SaveTransactionWithOptionalFields = z.strictObject(saveTransactionFields).partial();

/** POST body item. The service requires account, date and amount to create a transaction. */
export const NewTransaction = SaveTransactionWithOptionalFields.extend({
  account_id: Uuid,
  date: IsoDate,
  amount: Milliunits,
  import_id: importId.optional(),
});

/** PUT body: a partial update of one transaction. */
export const ExistingTransaction = SaveTransactionWithOptionalFields;

/** PATCH (bulk) body item: identified by `id` or, failing that, by `import_id`. */
export const SaveTransactionWithIdOrImportId = SaveTransactionWithOptionalFields.extend({
  id: z.string().min(1).max(100).nullable().optional(),
  import_id: importId.optional(),
});

export const SaveScheduledTransaction = z.strictObject({
  account_id: Uuid,
  date: IsoDate,
  amount: Milliunits.optional(),
  payee_id: Uuid.nullable().optional(),
  payee_name: payeeName.optional(),
  category_id: Uuid.nullable().optional(),
  memo: memo.optional(),
  flag_color: TransactionFlagColor.optional(),
  frequency: ScheduledTransactionFrequency.optional(),
});

// Wrappers, as sent on the wire.
export const PostAccountWrapper = z.strictObject({ account: SaveAccount });
export const PostCategoryWrapper = z.strictObject({ category: NewCategory });
export const PatchCategoryWrapper = z.strictObject({ category: ExistingCategory });
export const PatchMonthCategoryWrapper = z.strictObject({ category: SaveMonthCategory });
export const PostCategoryGroupWrapper = z.strictObject({ category_group: SaveCategoryGroup });
export const PatchCategoryGroupWrapper = PostCategoryGroupWrapper;
export const PostPayeeWrapper = z.strictObject({ payee: PostPayee });
export const PatchPayeeWrapper = z.strictObject({ payee: SavePayee });
export const PostTransactionsWrapper = z.strictObject({
  transaction: NewTransaction.optional(),
  transactions: z.array(NewTransaction).max(1000).optional(),
});
export const PatchTransactionsWrapper = z.strictObject({
  transactions: z.array(SaveTransactionWithIdOrImportId).min(1).max(1000),
});
export const PutTransactionWrapper = z.strictObject({ transaction: ExistingTransaction });
export const PostScheduledTransactionWrapper = z.strictObject({ scheduled_transaction: SaveScheduledTransaction });
export const PutScheduledTransactionWrapper = PostScheduledTransactionWrapper;

export type SaveAccount = z.infer<typeof SaveAccount>;
export type SaveCategory = z.infer<typeof SaveCategory>;
export type NewCategory = z.infer<typeof NewCategory>;
export type SaveSubTransaction = z.infer<typeof SaveSubTransaction>;
export type SaveTransactionWithOptionalFields = z.infer<typeof SaveTransactionWithOptionalFields>;
export type NewTransaction = z.infer<typeof NewTransaction>;
export type ExistingTransaction = z.infer<typeof ExistingTransaction>;
export type SaveTransactionWithIdOrImportId = z.infer<typeof SaveTransactionWithIdOrImportId>;
export type SaveScheduledTransaction = z.infer<typeof SaveScheduledTransaction>;
