/**
 * debt_payoff: when each debt is paid off, and the interest it costs, paying minimums only
 * (`as_is`) and by avalanche or snowball with an extra amount each month (./debt-plan.ts does
 * the months). Loans use YNAB's own terms (debt_interest_rates, debt_minimum_payments,
 * debt_escrow_amounts); cards and other debts without them take an APR argument and a stated
 * minimum. `target_debt` answers for one debt: the extra on it alone, nothing rolled over (YNAB's
 * Loan Planner, ./debt-alone.ts), beside the plans. Every assumption the answer rests on comes back with it. Its arguments are declared
 * here; the computation (./debt-payoff-run.ts) loads with the first call, so listing the tools
 * does not load it.
 */
import * as z from 'zod';
import { MILLIUNITS_DOC } from '../../shared/field-docs.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { DETAIL_ARG } from '../core/args.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const DEBT_PAYOFF_INPUT = {
  // Bounds are checked by the computation (each word here is paid for in every tools/list).
  strategy: z
    .enum(['both', 'avalanche', 'snowball', 'as_is'])
    .optional()
    .describe('as_is: minimums only; avalanche: extra to highest rate first; snowball: to smallest balance; both (default): all three.'),
  extra_per_month: z.number().optional().describe('Beyond minimums, in currency units (200 = 200.00).'),
  extra_per_month_milliunits: z.int().optional().describe(MILLIUNITS_DOC),
  // The Loan Planner's question (issue 58 item 1): the extra on this debt alone, beside the plans.
  target_debt: NameOrId.optional().describe('Only this debt; extra on it alone (no rollover), first in plans.'),
  apr: z.record(z.string(), z.number()).optional(),
  detail: DETAIL_ARG.detail.unwrap().optional().describe('compact (default) or full: with the monthly schedule.'),
};

export async function debtPayoff(ctx: InsightContext, a: InsightArgs<typeof DEBT_PAYOFF_INPUT>): Promise<InsightResult> {
  return (await import('./debt-payoff-run.js')).debtPayoffRun(ctx, a);
}
