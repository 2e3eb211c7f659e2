/**
 * How insight answers write money: each figure as exact integer milliunits next to the same
 * amount formatted in the budget's currency (`net_milliunits`, `net_formatted`), so an assistant
 * quotes the text and computes, if it must, on the integers.
 */
import { formatMilliunits } from '../api/money.js';
import type { CurrencyFormat } from '../api/schemas/common.js';

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

/** Leaves out null and undefined members (they cost tokens and say nothing). */
export function present<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === null || o[k] === undefined) delete o[k];
  return o;
}
