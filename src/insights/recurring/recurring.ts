/**
 * recurring: every recurring charge and income the history shows (./recurring-detect.ts), grouped
 * as subscriptions, bills and income, with what each costs a year and the totals per month and
 * year. Its arguments are declared here; the computation (./recurring-list.ts) loads with the first
 * call, so listing the tools does not load it.
 */
import { DETAIL_ARG } from '../core/args.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const RECURRING_INPUT = { ...DETAIL_ARG };

export async function recurring(ctx: InsightContext, a: InsightArgs<typeof RECURRING_INPUT>): Promise<InsightResult> {
  return (await import('./recurring-list.js')).recurringList(ctx, a.detail === 'full');
}
