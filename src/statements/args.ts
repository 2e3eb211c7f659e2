/**
 * The file arguments of the two statement tools (import_statement, reconcile_account), apart from
 * the readers: a tool's definition needs only these, so listing the tools loads no parser library
 * (they load with the first file read, src/writes/statement/statement-rows.ts).
 */
import * as z from 'zod';
import { ENUM_DOCS } from '../shared/field-docs.js';
import { DATE_FORMATS, READ_FORMATS, STATEMENT_LIMITS } from './types.js';

// Column names are not bounded here (each bound costs the tool definition bytes): columns.ts
// refuses one over COLUMN_NAME_MAX characters, naming it.
const ColumnsArg = z.strictObject({
  date: z.string().optional(),
  payee: z.string().optional(),
  memo: z.string().optional(),
  amount: z.string().optional(),
  inflow: z.string().optional(),
  outflow: z.string().optional(),
  debit: z.string().optional(),
  credit: z.string().optional(),
  date_format: z.enum(DATE_FORMATS).optional().describe(ENUM_DOCS.date_format),
  amount_sign: z.enum(['outflow-negative', 'outflow-positive']).optional().describe(ENUM_DOCS.amount_sign),
  decimal_separator: z.enum(['.', ',']).optional().describe(ENUM_DOCS.decimal_separator),
  direction: z.string().optional(),
  status: z.string().optional(),
});

/** The file arguments both statement tools take. The `path` rule (local only) is the tools' to enforce. */
export const STATEMENT_FILE_ARGS = {
  content: z.string().max(STATEMENT_LIMITS.bytes).optional().describe('The file text'),
  path: z.string().max(1000).optional().describe('Or a local file path'),
  format: z
    .enum(['auto', ...READ_FORMATS])
    .optional()
    .describe(ENUM_DOCS.format),
  columns: ColumnsArg.optional().describe('CSV columns: header names or 1-based numbers; direction "col:debit/credit", status "col:pending"'),
  // Not bounded here either: a value longer than any account's number or name names none (statement-account.ts).
  statement_account: z.string().optional().describe('Which account of a multi-account file: number or name'),
} satisfies z.ZodRawShape;
