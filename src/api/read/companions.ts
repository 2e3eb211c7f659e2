/**
 * The `<field>_formatted` / `<field>_currency` companions of full entities: each amount in the
 * budget's currency format and as a decimal number.
 */
import { formatMilliunits, milliunitsToCurrencyNumber } from '../money.js';
import type { CurrencyFormat } from '../schemas/common.js';

export type Money<K extends string> = { [P in `${K}_formatted`]: string } & { [P in `${K}_currency`]: number };
export type NullableMoney<K extends string> = { [P in `${K}_formatted`]: string | null } & { [P in `${K}_currency`]: number | null };

export function money<T extends Record<K, number>, K extends string>(format: CurrencyFormat | null, entity: T, ...fields: K[]): Money<K> {
  const out: Record<string, string | number> = {};
  for (const f of fields) {
    out[`${f}_formatted`] = formatMilliunits(entity[f], format);
    out[`${f}_currency`] = milliunitsToCurrencyNumber(entity[f]);
  }
  return out as Money<K>;
}

export function nullableMoney<T extends Partial<Record<K, number | null>>, K extends string>(
  format: CurrencyFormat | null,
  entity: T,
  ...fields: K[]
): NullableMoney<K> {
  const out: Record<string, string | number | null> = {};
  for (const f of fields) {
    const v = entity[f];
    out[`${f}_formatted`] = v === null || v === undefined ? null : formatMilliunits(v, format);
    out[`${f}_currency`] = v === null || v === undefined ? null : milliunitsToCurrencyNumber(v);
  }
  return out as NullableMoney<K>;
}

/** One amount's companions, for builders that write their keys in one literal (see entities.ts category). */
export const formatted = (format: CurrencyFormat | null, v: number): string => formatMilliunits(v, format);
export const currency = (v: number): number => milliunitsToCurrencyNumber(v);
export const nullableFormatted = (format: CurrencyFormat | null, v: number | null | undefined): string | null =>
  v === null || v === undefined ? null : formatMilliunits(v, format);
export const nullableCurrency = (v: number | null | undefined): number | null => (v === null || v === undefined ? null : milliunitsToCurrencyNumber(v));
