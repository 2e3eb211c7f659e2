/**
 * The argument schemas every kind of tool is built from (API tools, insights, task writes): ids and
 * names, budget_id, months, paging. Kept below the layers that declare tools, so a computation can
 * type its arguments from the schema it is called with.
 */
import * as z from 'zod';
import { signedAmountHint } from '../api/number-text.js';
import { FIELD_DOCS } from './field-docs.js';
import { MAX_LIMIT } from './paging.js';

/**
 * A string whose length is bounded to guard the server, not to inform the caller: the bound is
 * checked, with a specific message, but not advertised as a schema keyword that every host would
 * pay for in every conversation.
 */
export function guardedString(max: number) {
  return z
    .string()
    .refine((v) => v.length > 0, { message: 'must not be empty' })
    .refine((v) => v.length <= max, { message: `must be at most ${max} characters` });
}

/**
 * An amount with a sign, in currency units (a transaction's, a split line's, a scheduled
 * transaction's): text given for it is answered with the signed forms, "a purchase is -12.50; an
 * income or refund is 12.50" (signedAmountHint), not only how to write a number.
 */
export function signedAmount() {
  return z.number({ error: (issue) => (issue.code === 'invalid_type' ? signedAmountHint(issue.input) : undefined) });
}

/** An id, or the exact name of what it stands for. */
export const NameOrId = guardedString(500);

/** budget_id, as every budget tool takes it (the server's instructions say what it takes, once). */
export const BUDGET_ARG = NameOrId.optional();

/**
 * A page size: at least 1, checked with the same message as a `minimum` keyword would give but not
 * advertised (no host asks for an empty page, and 23 tools would pay for saying so); the maximum is.
 */
export const PAGE_SIZE = (max: number) =>
  z
    .int()
    .max(max)
    .refine((v) => v >= 1, { message: 'must be at least 1' });

/** limit and cursor, as every paged tool takes them (the server's instructions say where a cursor comes from). */
export const PAGING = {
  limit: PAGE_SIZE(MAX_LIMIT).optional().describe(FIELD_DOCS.limit!),
  cursor: guardedString(200).optional(),
};

/** A budget month: "current" or YYYY-MM-01 (checked here; the description says the format once). */
export const MONTH_ARG = z
  .string()
  .refine((v) => /^(current|\d{4}-(0[1-9]|1[0-2])-01)$/.test(v), { message: 'must be "current" or the first day of a month as YYYY-MM-01' });
