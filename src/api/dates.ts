/**
 * Calendar helpers. Every date in the API is a UTC calendar date `YYYY-MM-DD`; months are
 * the first day of the month. Dates are handled as strings and compared lexically, which is
 * exact for this format; conversion to Date happens only for day arithmetic, in UTC.
 */

export type IsoDate = string;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1900 || month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Why `value` is not a date the API takes, in words that say how to fix it: "2026-02-30 is not a
 * date: February 2026 has 28 days", "\"2026/2/3\" is not a date: write it YYYY-MM-DD (2026-02-03)".
 * For a valid date, undefined.
 */
export function dateProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a date as YYYY-MM-DD';
  if (isIsoDate(value)) return undefined;
  const m = DATE_RE.exec(value);
  if (!m) {
    const loose = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/.exec(value.trim());
    const padded = loose ? `${loose[1]}-${loose[2]!.padStart(2, '0')}-${loose[3]!.padStart(2, '0')}` : undefined;
    const example = padded && isIsoDate(padded) ? padded : '2026-02-28';
    const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    return `${shown} is not a date: write it YYYY-MM-DD (${example})`;
  }
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return `${value} is not a date: months run 01 to 12`;
  if (day < 1) return `${value} is not a date: days start at 01`;
  if (year < 1900) return `${value} is not a date YNAB takes: its years start at 1900`;
  return `${value} is not a date: ${MONTH_NAMES[month - 1]} ${year} has ${daysInMonth(year, month)} days`;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function isMonthStart(value: string): boolean {
  return isIsoDate(value) && value.endsWith('-01');
}

export function toIsoDate(date: Date): IsoDate {
  return date.toISOString().slice(0, 10);
}

export function todayUtc(now: Date = new Date()): IsoDate {
  return toIsoDate(now);
}

/** The first day of the month a date falls in: "2024-03-17" → "2024-03-01". */
export function monthOf(date: IsoDate): IsoDate {
  return `${date.slice(0, 7)}-01`;
}

export function currentMonth(now: Date = new Date()): IsoDate {
  return monthOf(todayUtc(now));
}

function parts(date: IsoDate): [number, number, number] {
  return [Number(date.slice(0, 4)), Number(date.slice(5, 7)), Number(date.slice(8, 10))];
}

export function addDays(date: IsoDate, days: number): IsoDate {
  const [y, m, d] = parts(date);
  return toIsoDate(new Date(Date.UTC(y, m - 1, d + days)));
}

/** Adds months keeping the day where possible, clamping to the month's last day (Jan 31 + 1 → Feb 28/29). */
export function addMonths(date: IsoDate, months: number): IsoDate {
  const [y, m, d] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const day = Math.min(d, daysInMonth(year, month));
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function addYears(date: IsoDate, years: number): IsoDate {
  return addMonths(date, years * 12);
}

/** Whole days from a to b (b - a). */
export function daysBetween(a: IsoDate, b: IsoDate): number {
  const [ay, am, ad] = parts(a);
  const [by, bm, bd] = parts(b);
  return Math.round((Date.UTC(by, bm - 1, bd) - Date.UTC(ay, am - 1, ad)) / 86_400_000);
}

/** Months from month a to month b (b - a), both first-of-month dates. */
export function monthsBetween(a: IsoDate, b: IsoDate): number {
  const [ay, am] = parts(a);
  const [by, bm] = parts(b);
  return (by - ay) * 12 + (bm - am);
}

/** Every month from `first` to `last` inclusive. */
export function monthRange(first: IsoDate, last: IsoDate): IsoDate[] {
  const out: IsoDate[] = [];
  for (let m = monthOf(first); m <= last; m = addMonths(m, 1)) out.push(m);
  return out;
}

/** UTC timestamp with milliseconds and `Z`, as the API writes `last_modified_on`. */
export function isoTimestamp(date: Date): string {
  return date.toISOString();
}
