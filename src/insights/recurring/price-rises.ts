/**
 * The price rises every surface reports (`recurring`, `needs_attention`'s price_increase, the
 * price.increased alert): the recurring items the detection finds (./recurring-detect.ts) whose
 * charges show a rise by the rule of ./price-increase.ts. Declared once here, so a charge that
 * `needs_attention` calls a rise is one `recurring` lists, with the same figures.
 */
import { detectAll, detectRecurring, type Detected } from './recurring-detect.js';
import type { PriceIncrease } from './price-increase.js';
import type { BudgetView } from '../core/view.js';

/** Every recurring charge whose price rose 5% or more above its steady price, the largest rise first. */
export function priceIncreases(view: BudgetView, today: string, includeOffBudget: boolean): PriceIncrease[] {
  return ranked(bestRises(detectRecurring(view, today, includeOffBudget)));
}

/** The rises by payee (of `payees` alone, uncached): what priceIncreases gives of them, unranked (events/over-lines.ts). */
export function priceIncreasesOf(view: BudgetView, today: string, includeOffBudget: boolean, payees?: ReadonlySet<string>): Map<string, PriceIncrease> {
  return bestRises(detectAll(view, today, includeOffBudget, payees));
}

function bestRises(detected: readonly Detected[]): Map<string, PriceIncrease> {
  const best = new Map<string, PriceIncrease>();
  for (const d of detected) {
    const rise = d.price_change;
    if (!rise) continue;
    // One payee charged in two accounts: its larger rise.
    const had = best.get(rise.payee_id);
    if (!had || rise.new * had.old > had.new * rise.old) best.set(rise.payee_id, rise);
  }
  return best;
}

/** The largest rise first, then by payee. */
export const ranked = (best: ReadonlyMap<string, PriceIncrease>): PriceIncrease[] =>
  [...best.values()].sort((a, b) => b.new * a.old - a.new * b.old || (a.payee_id < b.payee_id ? -1 : 1));
