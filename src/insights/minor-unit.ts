/**
 * Milliunits rounded to the currency's minor unit (cents for USD: 10 milliunits), half away from
 * zero as YNAB rounds, so a median or an average is an amount a bank could charge. A local helper
 * of the planning insights until the shared one in src/api/money.ts lands.
 */
import type { BudgetView } from './view.js';

export function toMinorUnit(milliunits: number, decimalDigits = 2): number {
  const step = 10 ** Math.max(0, 3 - Math.min(3, decimalDigits));
  const r = Math.round(Math.abs(milliunits) / step) * step;
  return milliunits < 0 ? -r : r;
}

/** The budget's decimal digits (2 when its currency format is not given). */
export const digitsOf = (view: BudgetView): number => view.replica.summary.currency_format?.decimal_digits ?? 2;
