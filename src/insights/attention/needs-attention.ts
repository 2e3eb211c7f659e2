/** needs_attention: what the attention checks (./attention.ts) found, with a few examples of each. */
import * as z from 'zod';
import { DETAIL_ARG } from '../core/args.js';
import { attention, ATTENTION_KINDS, type Found } from './attention.js';
import { OFF_BUDGET_ARG } from '../core/filter.js';
import { quotable } from './quotable.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const NEEDS_ATTENTION_INPUT = { kind: z.enum(ATTENTION_KINDS).optional().describe('One kind, up to 100 items.'), ...OFF_BUDGET_ARG, ...DETAIL_ARG };

/** Examples per kind: a few in compact detail, the five of the full answer, every item of one kind asked for. */
const EXAMPLES = { compact: 2, full: 5, kind: 100 };

/**
 * The compact list's bytes (as JSON), so that the answer stays within 2 KB with its data boundary
 * and envelope however many kinds fire: past it, the last kinds show one example, then none (their
 * count and reason stay; `kind` lists every item).
 */
const COMPACT_BYTES = 1_580;

export function needsAttention(ctx: InsightContext, a: InsightArgs<typeof NEEDS_ATTENTION_INPUT>): InsightResult {
  const full = a.detail === 'full';
  const examples = a.kind ? EXAMPLES.kind : full ? EXAMPLES.full : EXAMPLES.compact;
  const found = attention(
    { view: ctx.view, today: ctx.today, money: quotable(ctx.format), full, includeOffBudget: a.include_off_budget === true, reconciled: ctx.reconciled },
    examples,
    a.kind,
  );
  if (!full && !a.kind) fit(found.attention, COMPACT_BYTES);
  return { structured: { as_of: ctx.today, ...found } };
}

/** Drops examples, the last kind's first and one at a time (down to one each, then none), until the list fits `bytes`. */
function fit(kinds: Found[], bytes: number): void {
  const size = () => Buffer.byteLength(JSON.stringify(kinds), 'utf8');
  for (const keep of [1, 0])
    for (let i = kinds.length - 1; i >= 0 && size() > bytes; i--) if (kinds[i]!.examples.length > keep) kinds[i]!.examples = kinds[i]!.examples.slice(0, keep);
}
