/** needs_attention: what the attention checks (./attention.ts) found: the first of each kind, or every item. */
import * as z from 'zod';
import { DETAIL_ARG } from '../core/args.js';
import { attention, ATTENTION_KINDS } from './attention.js';
import { OFF_BUDGET_ARG } from '../core/filter.js';
import { firstItem } from './first-item.js';
import { quotable } from './quotable.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

export const NEEDS_ATTENTION_INPUT = { kind: z.enum(ATTENTION_KINDS).optional().describe('One kind, up to 100 items.'), ...OFF_BUDGET_ARG, ...DETAIL_ARG };

/** Items listed per kind: every one in full detail (lean rows) up to 50, of one kind asked for up to 100; past it, how many more. */
const LISTED = { full: 50, kind: 100 };

/**
 * The compact list's bytes (as JSON), so that the answer stays within 2 KB with its data boundary
 * and envelope however many kinds fire: past it, the last kinds lose their reason, then their
 * first item (count and totals stay; `kind` lists every item).
 */
const COMPACT_BYTES = 1_580;

export function needsAttention(ctx: InsightContext, a: InsightArgs<typeof NEEDS_ATTENTION_INPUT>): InsightResult {
  const full = a.detail === 'full';
  const overview = !full && !a.kind;
  const listed = a.kind ? LISTED.kind : LISTED.full;
  const found = attention(
    { view: ctx.view, today: ctx.today, money: quotable(ctx.format), full, includeOffBudget: a.include_off_budget === true, reconciled: ctx.reconciled },
    overview ? 1 : listed,
    a.kind,
  );
  const kinds: Record<string, unknown>[] = found.attention.map((k) => {
    // The overview names the first item of each kind with its figure, in place of the rows.
    if (overview) {
      const { examples, ...rest } = k;
      return { ...rest, first: firstItem(k.kind, examples[0]) };
    }
    return k.count > k.examples.length ? { ...k, more: k.count - k.examples.length, rest: restOf(k.kind, !!a.kind) } : k;
  });
  // The alerts beside the overview (src/mcp/events/pull-alerts.ts) take their room from it.
  if (overview) fit(kinds, COMPACT_BYTES - (ctx.room ?? 0));
  return { structured: { as_of: ctx.today, attention: kinds, clear: found.clear } };
}

/** Where the items past the list are: the kind alone lists up to 100; the review queue, every transaction. */
function restOf(kind: string, asked: boolean): string {
  const review = kind === 'unapproved' || kind === 'uncategorized' ? `review_transactions status "${kind}" lists them all` : '';
  return [asked ? '' : `kind "${kind}" lists up to ${LISTED.kind}`, review].filter(Boolean).join('; ') || `the first ${LISTED.kind} listed`;
}

/**
 * Fits the overview in `bytes`: drops the reasons, the last kind's first (not Ready to Assign's:
 * it says the month and the state), then, if still too long, the first items the same way.
 */
function fit(kinds: Record<string, unknown>[], bytes: number): void {
  const size = () => Buffer.byteLength(JSON.stringify(kinds), 'utf8');
  for (const field of ['reason', 'first'] as const)
    for (let i = kinds.length - 1; i >= 0 && size() > bytes; i--) if (kinds[i]!.kind !== 'ready_to_assign') delete kinds[i]![field];
}
