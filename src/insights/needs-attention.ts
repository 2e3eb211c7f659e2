/** needs_attention: what the attention checks (./attention.ts) found, with a few examples of each. */
import * as z from 'zod';
import { DETAIL_ARG } from './args.js';
import { attention, ATTENTION_KINDS } from './attention.js';
import { OFF_BUDGET_ARG } from './filter.js';
import { rowMoney } from './format.js';
import type { InsightArgs, InsightContext, InsightResult } from './types.js';

export const NEEDS_ATTENTION_INPUT = { kind: z.enum(ATTENTION_KINDS).optional().describe('One kind, up to 100 items.'), ...OFF_BUDGET_ARG, ...DETAIL_ARG };

/** Examples per kind: a few in compact detail, the five of the full answer, every item of one kind asked for. */
const EXAMPLES = { compact: 2, full: 5, kind: 100 };

export function needsAttention(ctx: InsightContext, a: InsightArgs<typeof NEEDS_ATTENTION_INPUT>): InsightResult {
  const full = a.detail === 'full';
  const examples = a.kind ? EXAMPLES.kind : full ? EXAMPLES.full : EXAMPLES.compact;
  const found = attention(
    { view: ctx.view, today: ctx.today, money: rowMoney(ctx.money, full), full, includeOffBudget: a.include_off_budget === true },
    examples,
    a.kind,
  );
  return { structured: { as_of: ctx.today, ...found } };
}
