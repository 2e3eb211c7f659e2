/**
 * How insight answers write money: each figure, named by its concept, as exact integer milliunits
 * next to the same amount formatted in the budget's currency (`net`, `net_formatted`), so an
 * assistant quotes the text and computes, if it must, on the integers. Every money number has its
 * formatted text beside it, compact answers included (the vocabulary of issue 43; no answer field
 * is named `*_milliunits`).
 */
import { formatMilliunits } from '../../api/money.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';

export type Money = (name: string, milliunits: number) => Record<string, number | string>;

/** A formatter bound to the budget's currency. */
export function moneyWriter(format: CurrencyFormat | null): Money {
  return (name, milliunits) => ({ [name]: milliunits, [`${name}_formatted`]: formatMilliunits(milliunits, format) });
}

/**
 * The writer for the figures of rows (a summary's rows, examples, occurrences). Once compact rows
 * carried milliunits only; a model then converted figures itself (issue 43), so rows carry the
 * pair in both details, and compact answers save their bytes elsewhere (fewer fields, not
 * unquotable figures). Kept as a function so callers still say which figures are a row's.
 */
export function rowMoney(money: Money, _full: boolean): Money {
  return money;
}

/**
 * Figures keyed by a name, in a compact answer: the text in place of the number (`{ Netflix:
 * "$15.49" }`, the member named `<concept>_formatted`), as issue 43 allows, since a name written
 * twice (`Netflix`, `Netflix_formatted`) would cost a compact answer its items. Full detail gives
 * the numbers (rows, or keyedMoney).
 */
export function textByKey(format: CurrencyFormat | null, figures: Record<string, number>): Record<string, string> {
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, formatMilliunits(v, format)]));
}

/**
 * Figures keyed by a name, a strategy or a month, as the vocabulary writes them: the numbers under
 * their concept (`interest: { as_is: n }`) and beside them the texts under the same keys
 * (`interest_formatted: { as_is: "…" }`); with `numbers` false (compact), the texts alone.
 */
export function keyedMoney(format: CurrencyFormat | null, name: string, figures: Record<string, number>, numbers = true): Record<string, unknown> {
  return { ...(numbers ? { [name]: figures } : {}), [`${name}_formatted`]: textByKey(format, figures) };
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
