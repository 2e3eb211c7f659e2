/**
 * The price-rise rule for one series of charges: a payee charged at a steady interval (three or
 * more charges, each gap within a few days of the usual one) whose charges before the latest price
 * keep steady prices (each price held two or more charges within 2% of each other, so a price that
 * rose before is a step, not noise), then at a new price 5% or more above the last of them, for the
 * latest one to three charges (a rise stays a rise after the second charge at the new price). Bills
 * that vary from month to month (electricity, water) have no steady price, so they are not
 * reported. Which series it is asked about, and so which rises `recurring`, `needs_attention` and
 * the alerts report, is decided once, by the recurring detection (./price-rises.ts).
 *
 * Only a series' latest 24 charges are read (what the household pays now): the check is one pass
 * over the lines and one sort per series, O(n log n), which the events watcher can run every cycle.
 */
import { toMinorUnit } from '../../api/money.js';

const MIN_CHARGES = 3;
/** The charges a series considers: the recent ones are what the household does now. */
export const RECENT = 24;
/** A gap counts as steady within this share of the usual gap, or these many days, whichever is more. */
const GAP_TOLERANCE = { share: 0.15, days: 3 };
/** Percent: charges at one price agree within this; the new price is this much above the old. */
const STEADY_PRICE_PCT = 2;
const INCREASE_PCT = 5;
/** The old price held at least this many charges; the new one at most this many so far. */
const OLD_AT_LEAST = 2;
const NEW_AT_MOST = 3;

export interface PriceIncrease {
  payee_id: string;
  /** The usual price (median of the charges at the old price) and the new one, as positive milliunits. */
  old: number;
  new: number;
  /** The first charge at the new price, and the usual days between charges. */
  date: string;
  interval_days: number;
  /** Charges at the new price so far (1 to 3). */
  charges_at_new: number;
}

const DAY_MS = 86_400_000;
const gap = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);

/** The median, in milliunits (the mean of the middle two, rounded, for an even count). */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

/**
 * The longest run of charges ending with the latest whose gaps all keep close to their median, if 3
 * or more. Each date is parsed once and each gap worked out once: a run from `start` has the gaps
 * from `start` on. (Parsing both dates of every gap of every run tried was half of an alerts scan
 * after a write: 24 charges, 23 runs, up to 1,100 Date.parse a series.)
 */
export function steadyTail<T extends { date: string }>(charges: T[]): { run: T[]; interval: number } | undefined {
  const times = charges.map((c) => Date.parse(c.date));
  const gaps = times.slice(1).map((t, i) => Math.round((t - times[i]!) / DAY_MS)); // gap(charges[i], charges[i + 1])
  for (let start = 0; start + MIN_CHARGES <= charges.length; start++) {
    const own = gaps.slice(start);
    const usual = median(own);
    const tolerance = Math.max(GAP_TOLERANCE.days, usual * GAP_TOLERANCE.share);
    if (usual >= 6 && own.every((g) => Math.abs(g - usual) <= tolerance)) return { run: charges.slice(start), interval: usual };
  }
  return undefined;
}

/** Integer arithmetic in percent: |a − to| · 100 ≤ to · 2. */
const near = (a: number, to: number) => Math.abs(a - to) * 100 <= to * STEADY_PRICE_PCT;

/**
 * The rule for one series' charges (positive amounts, oldest first; only the latest 24 are read):
 * its rise, if its latest charges are one. `digits`: the currency's minor unit, for the old price.
 */
export function priceIncreaseOf(all: { date: string; amount: number }[], today: string, digits = 2): Omit<PriceIncrease, 'payee_id'> | undefined {
  const steady = steadyTail(all.slice(-RECENT));
  if (!steady) return undefined;
  const { run } = steady;
  const latest = run[run.length - 1]!;
  if (gap(latest.date, today) > steady.interval * 1.5) return undefined;
  // The charges at the latest price, back from the latest.
  let k = 1;
  while (k < run.length && near(run[run.length - 1 - k]!.amount, latest.amount)) k++;
  if (k > NEW_AT_MOST) return undefined;
  // The earlier charges as steps of one price each; the old price is the last step's.
  const steps: number[][] = [];
  for (const c of run.slice(0, -k)) {
    const step = steps[steps.length - 1];
    if (step && near(c.amount, step[0]!)) step.push(c.amount);
    else steps.push([c.amount]);
  }
  if (!steps.length || steps.some((s) => s.length < OLD_AT_LEAST)) return undefined;
  const earlier = steps[steps.length - 1]!;
  const usual = toMinorUnit(median(earlier), digits);
  if (!earlier.every((a) => near(a, usual))) return undefined;
  if (latest.amount * 100 < usual * (100 + INCREASE_PCT)) return undefined;
  return { old: usual, new: latest.amount, date: run[run.length - k]!.date, interval_days: steady.interval, charges_at_new: k };
}
