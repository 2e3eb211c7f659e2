/**
 * Money is integer milliunits everywhere inside the project (1 unit = 1000 milliunits).
 * This module is the only place that turns milliunits into text or decimal input into
 * milliunits, and it does so with integer and string arithmetic only: never float maths.
 */
import type { CurrencyFormat } from './schemas/common.js';

/** Largest magnitude accepted anywhere: keeps every sum of amounts a safe integer. */
export const MAX_ABS_MILLIUNITS = 999_999_999_999_999;

/** US dollars as the service formats them. */
export const USD_FORMAT: CurrencyFormat = {
  iso_code: 'USD',
  example_format: '123,456.78',
  decimal_digits: 2,
  decimal_separator: '.',
  symbol_first: true,
  group_separator: ',',
  currency_symbol: '$',
  display_symbol: true,
};

function groupDigits(digits: string, separator: string): string {
  if (digits.length <= 3 || separator === '') return digits;
  const head = digits.length % 3;
  const parts: string[] = head ? [digits.slice(0, head)] : [];
  for (let i = head; i < digits.length; i += 3) parts.push(digits.slice(i, i + 3));
  return parts.join(separator);
}

/**
 * Formats milliunits the way the budget displays them: rounded half away from zero to the
 * currency's decimal digits, digits grouped, the symbol before or after, sign first.
 * Examples: -1234560 in USD → "-$1,234.56"; 1234560 in EUR (de) → "1.234,56€".
 * A budget without a currency format (older budgets have none; the API allows null), or one not
 * known here, gets a plain decimal, exact, with no symbol it does not have: -1234560 → "-1234.56".
 */
export function formatMilliunits(milliunits: number, format: CurrencyFormat | null | undefined): string {
  if (!format) return plainDecimal(milliunits);
  const digits = Math.min(Math.max(format.decimal_digits, 0), 3);
  const step = 10 ** (3 - digits);
  const abs = Math.abs(milliunits);
  let scaled = Math.floor(abs / step);
  if ((abs % step) * 2 >= step) scaled += 1;
  const unit = 10 ** digits;
  const whole = groupDigits(String(Math.floor(scaled / unit)), format.group_separator);
  const fraction = digits > 0 ? format.decimal_separator + String(scaled % unit).padStart(digits, '0') : '';
  const number = whole + fraction;
  const body = format.display_symbol ? (format.symbol_first ? format.currency_symbol + number : number + format.currency_symbol) : number;
  return milliunits < 0 && scaled > 0 ? `-${body}` : body;
}

/** Exact decimal text of milliunits with three decimals, e.g. -294230 → "-294.230". */
export function milliunitsToDecimalString(milliunits: number): string {
  const abs = Math.abs(milliunits);
  const text = `${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, '0')}`;
  return milliunits < 0 ? `-${text}` : text;
}

/** Two decimals, or three when the milliunits need them: -294230 → "-294.23", 5 → "0.005". */
function plainDecimal(milliunits: number): string {
  const text = milliunitsToDecimalString(milliunits);
  return text.endsWith('0') ? text.slice(0, -1) : text;
}

/**
 * The API's `*_currency` companion: the amount as a decimal number (-294230 → -294.23).
 * Built by parsing exact decimal text, so no float arithmetic is involved.
 */
export function milliunitsToCurrencyNumber(milliunits: number): number {
  const value = Number(milliunitsToDecimalString(milliunits));
  return Object.is(value, -0) ? 0 : value;
}

export class MoneyInputError extends Error {
  override readonly name = 'MoneyInputError';
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/**
 * Parses a decimal currency amount ("12.34", -5, "0.125") into milliunits exactly.
 * Refuses more than three decimals, non-finite numbers and anything outside ±MAX.
 * `decimalDigits`, when given, refuses precision the currency cannot hold (e.g. cents of JPY).
 */
export function decimalToMilliunits(input: string | number, decimalDigits?: number): number {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new MoneyInputError(`amount must be a finite number, got ${String(input)}`);
    // Numbers whose shortest text is exponential (1e21, 1e-7) are outside any sane amount.
    text = Object.is(input, -0) ? '0' : String(input);
  } else {
    text = input.trim();
  }
  const match = DECIMAL.exec(text);
  if (!match) throw new MoneyInputError(`amount must be a decimal number like 12.34 or -5, got ${JSON.stringify(String(input))}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const limit = decimalDigits === undefined ? 3 : Math.min(Math.max(decimalDigits, 0), 3);
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > limit) {
    throw new MoneyInputError(`amount ${text} has ${significant.length} decimal places; at most ${limit} ${limit === 1 ? 'is' : 'are'} allowed`);
  }
  const wholeDigits = whole.replace(/^0+(?=\d)/, '');
  if (wholeDigits.length > 12) throw new MoneyInputError(`amount ${text} is too large (at most 999999999999.999)`);
  const milli = Number(wholeDigits) * 1000 + Number(significant.padEnd(3, '0') || '0');
  if (milli > MAX_ABS_MILLIUNITS) throw new MoneyInputError(`amount ${text} is too large (at most 999999999999.999)`);
  return sign === '-' && milli !== 0 ? -milli : milli;
}

/** Sums milliunits, refusing a result that would leave the safe-integer range. */
export function sumMilliunits(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  if (!Number.isSafeInteger(total)) throw new RangeError('sum of amounts left the safe integer range');
  return total;
}

/** floor(a / b) for integers and a positive divisor, exact even where the float quotient rounds across an integer. */
export function divFloor(a: number, b: number): number {
  if (!(b > 0) || !Number.isInteger(a) || !Number.isInteger(b)) throw new RangeError('divFloor needs integers and a positive divisor');
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/** ceil(a / b) for integers and a positive divisor. */
export function divCeil(a: number, b: number): number {
  return -divFloor(-a, b);
}

/** Whole percent of part in whole, floored and clamped to 0..100 (0 when whole is 0). BigInt keeps part*100 exact. */
export function percentOf(part: number, whole: number): number {
  if (whole <= 0 || part <= 0) return 0;
  if (part >= whole) return 100;
  return Number((BigInt(part) * 100n) / BigInt(whole));
}

/**
 * The currency's minor unit: decimal digits of its format (2 when the budget has none, as for
 * USD; clamped to 0..3, milliunits holding at most three).
 */
export function minorDigits(format: Pick<CurrencyFormat, 'decimal_digits'> | null | undefined | number): number {
  const d = typeof format === 'number' ? format : (format?.decimal_digits ?? 2);
  return Math.min(Math.max(Math.trunc(d), 0), 3);
}

/** Milliunits in one minor unit: 10 for cents, 1000 for yen. */
export function minorStep(format: Parameters<typeof minorDigits>[0]): number {
  return 10 ** (3 - minorDigits(format));
}

/**
 * numerator / denominator milliunits, rounded to the currency's minor unit half away from zero, as
 * YNAB displays amounts and a lender rounds interest: the one way the server rounds a computed
 * amount (a median, an average, a monthly need, a month's interest). BigInt, so no product or
 * quotient loses precision and nothing is rounded twice. Example: 1619135 / 1 in USD → 1619140.
 */
export function roundToMinor(numerator: bigint | number, denominator: bigint | number, format: Parameters<typeof minorDigits>[0]): number {
  let n = BigInt(numerator);
  let d = BigInt(denominator);
  if (d === 0n) throw new RangeError('roundToMinor: division by zero');
  if (d < 0n) [n, d] = [-n, -d];
  const step = BigInt(minorStep(format));
  const whole = d * step;
  const abs = n < 0n ? -n : n;
  let q = abs / whole;
  if (2n * (abs % whole) >= whole) q += 1n;
  const out = Number(q * step);
  return n < 0n && out !== 0 ? -out : out;
}

/** Milliunits rounded to the currency's minor unit (half away from zero): 1619135 → 1619140 in USD. */
export function toMinorUnit(milliunits: number, format: Parameters<typeof minorDigits>[0]): number {
  return roundToMinor(milliunits, 1, format);
}

/** True when the amount is a whole number of the currency's minor unit. */
export function isWholeMinor(milliunits: number, format: Parameters<typeof minorDigits>[0]): boolean {
  return Number.isSafeInteger(milliunits) && milliunits % minorStep(format) === 0;
}
