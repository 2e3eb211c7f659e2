/**
 * Primitives and enums of the v1 API, as zod schemas. Field optionality follows the official
 * OpenAPI description exactly (a field the spec does not list as required is `.optional()`),
 * so the same schemas can parse the real service; the sandbox always emits every field.
 */
import * as z from 'zod';
import { dateProblem, isIsoDate } from '../dates.js';

/** UUID-shaped id (8-4-4-4-12 hex). The API's ids are UUIDs but not always RFC-4122 v4. */
export const Uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
  message: 'must be formatted as a uuid (universally unique identifier)',
});

/** ISO calendar date `YYYY-MM-DD` that exists on the calendar. */
/** A calendar date; an impossible one is refused saying why ("February 2026 has 28 days"). */
export const IsoDate = z.string().refine(isIsoDate, { error: (issue) => dateProblem(issue.input) });

/** Timestamp with milliseconds and Z, e.g. 2024-03-01T12:00:00.000Z. */
export const IsoDateTime = z.iso.datetime({ offset: true });

/** Money in milliunits (1000 = one unit of currency). Always an integer. */
export const Milliunits = z.int();

export const Knowledge = z.int().min(0);

export const AccountType = z.enum([
  'checking',
  'savings',
  'cash',
  'creditCard',
  'lineOfCredit',
  'otherAsset',
  'otherLiability',
  'mortgage',
  'autoLoan',
  'studentLoan',
  'personalLoan',
  'medicalDebt',
  'otherDebt',
]);
export type AccountType = z.infer<typeof AccountType>;

export const SaveAccountType = z.enum(['checking', 'savings', 'cash', 'creditCard', 'otherAsset', 'otherLiability']);

export const GoalType = z.enum(['TB', 'TBD', 'MF', 'NEED', 'DEBT']);
export type GoalType = z.infer<typeof GoalType>;

export const GoalFrequency = z.enum(['monthly', 'weekly', 'yearly']);

export const TransactionClearedStatus = z.enum(['cleared', 'uncleared', 'reconciled']);
export type TransactionClearedStatus = z.infer<typeof TransactionClearedStatus>;

/** Flag colours; `""` is a real value on the wire (no flag), as is null. */
export const TransactionFlagColor = z.enum(['red', 'orange', 'yellow', 'green', 'blue', 'purple', '']).nullable();
export type TransactionFlagColor = z.infer<typeof TransactionFlagColor>;

export const ScheduledTransactionFrequency = z.enum([
  'never',
  'daily',
  'weekly',
  'everyOtherWeek',
  'twiceAMonth',
  'every4Weeks',
  'monthly',
  'everyOtherMonth',
  'every3Months',
  'every4Months',
  'twiceAYear',
  'yearly',
  'everyOtherYear',
]);
export type ScheduledTransactionFrequency = z.infer<typeof ScheduledTransactionFrequency>;

export const DebtTransactionType = z.enum(['payment', 'refund', 'fee', 'interest', 'escrow', 'balanceAdjustment', 'credit', 'charge']);
export type DebtTransactionType = z.infer<typeof DebtTransactionType>;

export const HybridTransactionType = z.enum(['transaction', 'subtransaction']);

export const TransactionListType = z.enum(['uncategorized', 'unapproved']);

export const CurrencyFormat = z.object({
  iso_code: z.string(),
  example_format: z.string(),
  decimal_digits: z.int(),
  decimal_separator: z.string(),
  symbol_first: z.boolean(),
  group_separator: z.string(),
  currency_symbol: z.string(),
  display_symbol: z.boolean(),
});
export type CurrencyFormat = z.infer<typeof CurrencyFormat>;

export const DateFormat = z.object({ format: z.string() });
export type DateFormat = z.infer<typeof DateFormat>;

/** Map of ISO date → milliunits (loan rates, payments, escrow), or null. */
export const LoanAccountPeriodicValue = z.record(z.string(), z.int()).nullable();

type Companions<K extends string> = { [P in `${K}_formatted`]: z.ZodOptional<z.ZodString> } & {
  [P in `${K}_currency`]: z.ZodOptional<z.ZodNumber>;
};
type NullableCompanions<K extends string> = { [P in `${K}_formatted`]: z.ZodOptional<z.ZodNullable<z.ZodString>> } & {
  [P in `${K}_currency`]: z.ZodOptional<z.ZodNullable<z.ZodNumber>>;
};

/** The `<field>_formatted` / `<field>_currency` companions the full entity schemas add per amount. */
export function companions<K extends string>(...fields: K[]): Companions<K> {
  const shape: Record<string, z.ZodType> = {};
  for (const f of fields) {
    shape[`${f}_formatted`] = z.string().optional();
    shape[`${f}_currency`] = z.number().optional();
  }
  return shape as Companions<K>;
}

export function nullableCompanions<K extends string>(...fields: K[]): NullableCompanions<K> {
  const shape: Record<string, z.ZodType> = {};
  for (const f of fields) {
    shape[`${f}_formatted`] = z.string().nullable().optional();
    shape[`${f}_currency`] = z.number().nullable().optional();
  }
  return shape as NullableCompanions<K>;
}
