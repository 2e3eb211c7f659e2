/**
 * forecast: each chosen account's balance carried forward from today through what is coming
 * (./forecast-events.ts), month by month and, for the first 60 days, day by day; the first date a
 * chosen account goes below zero, and the next income with the cash there is until then. Its
 * arguments are declared here; the computation (./forecast-run.ts) loads with the first call, so
 * listing the tools does not load it.
 */
import * as z from 'zod';
import { guardedString, NameOrId } from '../../shared/arg-schemas.js';
import { DETAIL_ARG } from '../core/args.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const FORECAST_INPUT = {
  // Bounds and the default are said in errors and the answer, not here: every byte of a definition is paid for.
  months: z.int().max(24).optional(),
  account_id: NameOrId.optional(),
  until_date: guardedString(20).optional().describe('YYYY-MM-DD or "next payday".'),
  include: z
    .array(z.enum(['scheduled', 'recurring', 'assigned', 'irregular_income']))
    .optional()
    .describe('Default scheduled, recurring (from history); assigned: assigned, still to spend; irregular_income: varying pay.'),
  detail: DETAIL_ARG.detail,
};

export async function forecast(ctx: InsightContext, a: InsightArgs<typeof FORECAST_INPUT>): Promise<InsightResult> {
  return (await import('./forecast-run.js')).forecastRun(ctx, a);
}
