/**
 * YNAB's loan terms as people read them. `debt_interest_rates`, `debt_minimum_payments` and
 * `debt_escrow_amounts` are maps from the ISO date a value starts to the value; rates come in
 * thousandths of a percent (4500 = 4.5%), payments and escrow in milliunits. One reading here
 * for every answer that names an account (the API tools' output and the insights).
 */

/** A map of YNAB's `LoanAccountPeriodicValue`: ISO date → value, or null. */
export type Periodic = Record<string, number> | null | undefined;

/** The value in effect on `date`: the entry with the latest start on or before it (null if none yet). */
export function valueOn(map: Periodic, date: string): number | null {
  let value: number | null = null;
  let from = '';
  for (const [start, v] of Object.entries(map ?? {})) if (start <= date && start >= from) [from, value] = [start, v];
  return value;
}

/** A rate in thousandths of a percent as text: 4500 → "4.5%", 5875 → "5.875%", 22900 → "22.9%". */
export function ratePercent(rate: number): string {
  const a = Math.abs(rate);
  const fraction = String(a % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  return `${rate < 0 ? '-' : ''}${Math.floor(a / 1000)}${fraction ? `.${fraction}` : ''}%`;
}

/** A percentage given as a number (22.9) in thousandths of a percent (22900), rounded half to even. */
export function percentToRate(percent: number): number {
  const scaled = percent * 1000;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  // Float noise (22.9 * 1000 = 22899.999…) is not a half: only a near-exact .5 is.
  if (Math.abs(diff - 0.5) < 1e-9) return floor % 2 === 0 ? floor : floor + 1;
  return Math.round(scaled);
}

/** The terms in effect on `date`, for an account that has any; null for one without. */
export function debtTermsOn(
  account: { debt_interest_rates?: Periodic; debt_minimum_payments?: Periodic; debt_escrow_amounts?: Periodic },
  date: string,
): { rate: number | null; minimum: number | null; escrow: number | null } | null {
  const rate = valueOn(account.debt_interest_rates, date);
  const minimum = valueOn(account.debt_minimum_payments, date);
  const escrow = valueOn(account.debt_escrow_amounts, date);
  return rate === null && minimum === null && escrow === null ? null : { rate, minimum, escrow };
}
