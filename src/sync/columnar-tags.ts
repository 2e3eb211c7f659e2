/**
 * What the writer (columnar-codec.ts) and the reader (columnar-reader.ts) of the saved copies'
 * columnar form agree on: the tag of each value, how dates become days, and the order a row's
 * fields are coded in.
 */

/** The kind of each value, one byte in its column's tag stream. */
export const T = {
  Null: 0,
  False: 1,
  True: 2,
  /** An integer (zigzag varint); then the same divided by 10, by 1000. */
  Int: 3,
  Int10: 4,
  Int1000: 5,
  Float: 6,
  /** A UUID met for the first time: 16 bytes; a random (version 4) one: 122 bits. */
  UuidNew: 7,
  UuidNew4: 8,
  /** A UUID met before: its index, or how many UUIDs back it was met. */
  UuidRef: 9,
  UuidBack: 10,
  Date: 11,
  StrNew: 12,
  StrRef: 13,
  Json: 14,
  Table: 15,
  Object: 16,
  /** The value the row's reference (see rowOrder) had. */
  Same: 17,
  /** An integer as the difference from the reference's; then divided by 10, by 1000. */
  Delta: 18,
  Delta10: 19,
  Delta1000: 20,
} as const;

const DAY = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const dateOf = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

/** Days since 1970 of a `YYYY-MM-DD` that reads back as itself, else undefined. */
export function dayOf(s: string): number | undefined {
  if (s.length !== 10 || !DATE.test(s)) return undefined;
  const day = Date.UTC(+s.slice(0, 4), +s.slice(5, 7) - 1, +s.slice(8, 10)) / DAY;
  return Number.isInteger(day) && dateOf(day) === s ? day : undefined;
}

/**
 * The column whose value names a row's likely twin: a transaction is most like the last one with
 * the same payee (its category, account, memo, often its amount).
 */
export const CONTEXT = 'payee_id';

/**
 * The order a row's fields are coded in, as indexes into its keys: `id` first (a row whose id was
 * met before is coded against that previous version: a category in each month), then CONTEXT
 * (without a previous version, the row is coded against the last row with the same value there),
 * then the rest as they come. The reader needs the reference before the values coded against it.
 */
export function rowOrder(keys: readonly string[]): number[] {
  const order = keys.map((_, i) => i);
  const c = keys.indexOf(CONTEXT);
  if (c > 0) {
    order.splice(c, 1);
    order.splice(keys[0] === 'id' ? 1 : 0, 0, c);
  }
  return order;
}

/** The id a row is known by: its first field when that is `id` and a string. */
export const rowId = (keys: readonly string[], row: Record<string, unknown>): string | undefined =>
  keys[0] === 'id' && typeof row.id === 'string' ? row.id : undefined;

/**
 * A category's balance as YNAB carries it, when the row has what it needs before it: what was left
 * the month before (its reference row; overspending is not carried), plus what was assigned and
 * what was spent. The balance is coded against it (most months it is exact), never replaced by it.
 */
export function expectedBalance(keys: readonly string[], i: number, get: (k: string) => unknown, ref: Record<string, unknown> | undefined): number | undefined {
  if (keys[i] !== 'balance') return undefined;
  const b = keys.indexOf('budgeted');
  const a = keys.indexOf('activity');
  if (b < 0 || a < 0 || b > i || a > i) return undefined;
  const [budgeted, activity, before] = [get('budgeted'), get('activity'), ref?.balance];
  if (!Number.isSafeInteger(budgeted) || !Number.isSafeInteger(activity)) return undefined;
  const carried = Number.isSafeInteger(before) ? Math.max(before as number, 0) : 0;
  return carried + (budgeted as number) + (activity as number);
}
