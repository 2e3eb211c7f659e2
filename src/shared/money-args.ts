/**
 * Money as tools take it: every amount is offered twice, as `<key>` (a decimal in currency units)
 * and `<key>_milliunits` (an integer), and exactly one of them may be given. A decimal with more
 * places than the budget's currency has is refused; milliunits stay exact. No float arithmetic:
 * the decimal is converted by api/money.ts.
 */
import { decimalToMilliunits, MoneyInputError } from '../api/money.js';
import { ArgumentError } from './argument-error.js';

export interface MoneyArgOptions {
  /** Where the pair sits, for messages (`subtransactions[1]`); empty at the top level. */
  where?: string;
  /** Neither given is an error (else undefined). */
  required?: boolean;
  /** null is taken (it clears the field) (else an error). */
  nullable?: boolean;
  /** Decimal digits of the budget's currency: a decimal amount may not have more. */
  digits: number | undefined;
}

type Args = Readonly<Record<string, unknown>>;

/** Milliunits from a money argument pair; undefined when neither was given, null when null was (and may be). */
export function moneyArg(args: Args, key: string, o: MoneyArgOptions): number | null | undefined {
  const decimal = args[key];
  const milli = args[`${key}_milliunits`];
  const label = o.where ? `${o.where}.${key}` : key;
  if (decimal !== undefined && milli !== undefined) {
    throw new ArgumentError(`give ${label} (a decimal amount) or ${label}_milliunits (an integer), not both`);
  }
  if (decimal === undefined && milli === undefined) {
    if (o.required) throw new ArgumentError(`${label} is required: give ${label} as a decimal amount (e.g. -12.34) or ${label}_milliunits as an integer`);
    return undefined;
  }
  if (decimal === null || milli === null) {
    if (!o.nullable) throw new ArgumentError(`${label} cannot be null`);
    return null;
  }
  if (milli !== undefined) return milli as number;
  try {
    return decimalToMilliunits(decimal as number, o.digits);
  } catch (e) {
    if (e instanceof MoneyInputError) {
      const hint =
        o.digits !== undefined && o.digits < 3 && /decimal places/.test(e.message)
          ? ` (the budget's currency has ${o.digits}; give ${label}_milliunits for an exact amount)`
          : '';
      throw new ArgumentError(`${label}: ${e.message}${hint}`);
    }
    throw e;
  }
}

/** A money pair that must be given. */
export function requiredMoney(args: Args, key: string, o: Omit<MoneyArgOptions, 'required' | 'nullable'>): number {
  return moneyArg(args, key, { ...o, required: true }) as number;
}

/** A money pair that may be left out (not null). */
export function optionalMoney(args: Args, key: string, o: Omit<MoneyArgOptions, 'required' | 'nullable'>): number | undefined {
  return moneyArg(args, key, o) ?? undefined;
}
