/**
 * What a reconcile's difference most likely is, beyond the uncleared sets of subset-sum.ts and
 * the transactions in twice of reconcile-duplicates.ts:
 *  - one uncleared transaction whose amount is the difference, over all of them (subset-sum.ts
 *    looks at the 40 latest only);
 *  - where nothing is exact, the nearest: uncleared transactions within 5 units of the currency
 *    of the difference, or whose amount is the difference with two adjacent digits swapped (a
 *    slip of typing). They explain nothing (no effect) and are listed before any adjustment.
 */
import type * as E from '../../api/schemas/entities.js';

type Shown = Record<string, unknown>;

/** "Within a few units": 5 of the currency's major unit, in milliunits. */
export const NEAR_MILLIUNITS = 5_000;
/** Candidates listed at most. */
const NEAREST = 5;

/** The amount's digits with two adjacent ones swapped, for every swap that changes it. */
function swaps(m: number): Set<number> {
  const digits = String(Math.abs(m));
  const out = new Set<number>();
  for (let i = 0; i + 1 < digits.length; i++) {
    if (digits[i] === digits[i + 1]) continue;
    const s = digits.slice(0, i) + digits[i + 1] + digits[i] + digits.slice(i + 2);
    out.add(Math.sign(m) * Number(s));
  }
  return out;
}

export interface Nearest {
  transaction: E.TransactionSummaryBase;
  off_by: number;
  why: 'within_5_units' | 'digits_swapped';
}

/** Uncleared transactions nearest the difference left (see the header), the nearest first. */
export function nearest(open: readonly E.TransactionSummaryBase[], left: number): Nearest[] {
  const swapped = swaps(left);
  const out: Nearest[] = [];
  for (const t of open) {
    if (t.amount === left || Math.sign(t.amount) !== Math.sign(left)) continue;
    const off = left - t.amount;
    if (swapped.has(t.amount)) out.push({ transaction: t, off_by: off, why: 'digits_swapped' });
    else if (Math.abs(off) <= NEAR_MILLIUNITS) out.push({ transaction: t, off_by: off, why: 'within_5_units' });
  }
  out.sort((a, b) => Math.abs(a.off_by) - Math.abs(b.off_by) || a.transaction.id.localeCompare(b.transaction.id));
  return out.slice(0, NEAREST);
}

export const nearestShown = (shown: (t: E.TransactionSummaryBase) => Shown, money: (m: number) => string, ns: readonly Nearest[]): Shown[] =>
  ns.map((n) => ({ ...shown(n.transaction), off_by: n.off_by, off_by_formatted: money(n.off_by), why: n.why }));
