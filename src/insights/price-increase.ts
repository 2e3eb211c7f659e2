/**
 * Subscriptions whose price went up: a payee charged at a steady interval (three or more charges,
 * each gap within a few days of the usual one) at a steady price (the earlier charges within 2% of
 * each other), whose latest charge is at least 5% above that usual price. Bills that vary from
 * month to month (electricity, water) have no steady price, so they are not reported; nor is a
 * subscription that ended (its latest charge more than an interval and a half ago).
 */
import type { BudgetView } from './view.js';

const MIN_CHARGES = 3;
/** A gap counts as steady within this share of the usual gap, or these many days, whichever is more. */
const GAP_TOLERANCE = { share: 0.15, days: 3 };
/** Percent: the earlier charges agree within this; the latest is this much above them. */
const STEADY_PRICE_PCT = 2;
const INCREASE_PCT = 5;

export interface PriceIncrease {
  payee_id: string;
  /** The usual price (median of the earlier charges) and the latest charge, as positive milliunits. */
  old: number;
  new: number;
  /** The latest charge's date, and the usual days between charges. */
  date: string;
  interval_days: number;
}

const DAY_MS = 86_400_000;
const gap = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

/** The charges of each payee: one per transaction (a split's lines of that payee summed), oldest first. */
function chargesByPayee(view: BudgetView, includeOffBudget: boolean): Map<string, { id: string; date: string; amount: number }[]> {
  const sums = new Map<string, { payee: string; date: string; amount: number }>();
  for (const l of view.activity(includeOffBudget)) {
    if (!l.payee_id) continue;
    const key = `${l.transaction.id}|${l.payee_id}`;
    const s = sums.get(key);
    if (s) s.amount += l.amount;
    else sums.set(key, { payee: l.payee_id, date: l.date, amount: l.amount });
  }
  const out = new Map<string, { id: string; date: string; amount: number }[]>();
  for (const [key, s] of sums) {
    if (s.amount >= 0) continue;
    const list = out.get(s.payee) ?? [];
    list.push({ id: key, date: s.date, amount: -s.amount });
    out.set(s.payee, list);
  }
  for (const list of out.values()) list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.id < b.id ? -1 : 1));
  return out;
}

/** The longest run of charges ending with the latest whose gaps all keep close to their median, if 3 or more. */
export function steadyTail<T extends { date: string }>(charges: T[]): { run: T[]; interval: number } | undefined {
  for (let start = 0; start + MIN_CHARGES <= charges.length; start++) {
    const run = charges.slice(start);
    const gaps = run.slice(1).map((c, i) => gap(run[i]!.date, c.date));
    const usual = median(gaps);
    const tolerance = Math.max(GAP_TOLERANCE.days, usual * GAP_TOLERANCE.share);
    if (usual >= 6 && gaps.every((g) => Math.abs(g - usual) <= tolerance)) return { run, interval: usual };
  }
  return undefined;
}

/** The rule for one payee's charges (positive amounts, oldest first): its rise, if its latest is one. */
export function priceIncreaseOf(charges: { date: string; amount: number }[], today: string): Omit<PriceIncrease, 'payee_id'> | undefined {
  const steady = steadyTail(charges);
  if (!steady) return undefined;
  const latest = steady.run[steady.run.length - 1]!;
  if (gap(latest.date, today) > steady.interval * 1.5) return undefined;
  const earlier = steady.run.slice(0, -1).map((c) => c.amount);
  const usual = median(earlier);
  // Integer arithmetic in percent: |a − usual| · 100 ≤ usual · 2 for every earlier charge.
  if (!earlier.every((a) => Math.abs(a - usual) * 100 <= usual * STEADY_PRICE_PCT)) return undefined;
  if (latest.amount * 100 < usual * (100 + INCREASE_PCT)) return undefined;
  return { old: usual, new: latest.amount, date: latest.date, interval_days: steady.interval };
}

/** Every recurring charge whose latest price is 5% or more above its steady usual price, the largest rise first. */
export function priceIncreases(view: BudgetView, today: string, includeOffBudget: boolean): PriceIncrease[] {
  const found: PriceIncrease[] = [];
  for (const [payee, charges] of chargesByPayee(view, includeOffBudget)) {
    if (view.replica.payees.get(payee)?.transfer_account_id) continue;
    const rise = priceIncreaseOf(charges, today);
    if (rise) found.push({ payee_id: payee, ...rise });
  }
  return found.sort((a, b) => b.new * a.old - a.new * b.old || (a.payee_id < b.payee_id ? -1 : 1));
}
