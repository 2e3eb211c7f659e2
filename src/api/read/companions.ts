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
    out[`${f}_formatted`] = nullableFormatted(format, entity[f]);
    out[`${f}_currency`] = nullableCurrency(entity[f]);
  }
  return out as NullableMoney<K>;
}

/** A nullable amount's companions (null for null), also for builders that write their keys in one literal (entities.ts category). */
export const nullableFormatted = (format: CurrencyFormat | null, v: number | null | undefined): string | null =>
  v === null || v === undefined ? null : formatMilliunits(v, format);
export const nullableCurrency = (v: number | null | undefined): number | null => (v === null || v === undefined ? null : milliunitsToCurrencyNumber(v));
