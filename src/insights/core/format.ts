/**
 * How insight answers write money: each figure as exact integer milliunits next to the same
 * amount formatted in the budget's currency (`net_milliunits`, `net_formatted`), so an assistant
 * quotes the text and computes, if it must, on the integers.
 */
import { formatMilliunits } from '../../api/money.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';

export type Money = (name: string, milliunits: number) => Record<string, number | string>;

/** A formatter bound to the budget's currency. */
export function moneyWriter(format: CurrencyFormat | null): Money {
  return (name, milliunits) => ({ [`${name}_milliunits`]: milliunits, [`${name}_formatted`]: formatMilliunits(milliunits, format) });
}

/**
 * The writer for the figures of rows (a summary's rows, examples, occurrences): the pair in full
 * detail; in compact detail (the default) milliunits only, as the compact category rows of the
 * API tools, since formatted companions on every row would double a typical answer. Totals and
 * headline figures always keep their formatted companions.
 */
export function rowMoney(money: Money, full: boolean): Money {
  return full ? money : (name, milliunits) => ({ [`${name}_milliunits`]: milliunits });
}

/**
 * Outflow and inflow of a row or total: in full detail always; in compact detail only when both
 * are there, since otherwise the net (or total) says it all, the other being zero.
 */
export function flows(money: Money, outflow: number, inflow: number, full: boolean): Record<string, number | string> {
  return full || (outflow !== 0 && inflow !== 0) ? { ...money('outflow', outflow), ...money('inflow', inflow) } : {};
}

/** Leaves out null and undefined members (they cost tokens and say nothing). */
export function present<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === null || o[k] === undefined) delete o[k];
  return o;
}
