/**
 * Argument errors, and the checks API and insight tools share: a message says what is wrong
 * and what is expected.
 */
export class ArgumentError extends Error {}

/** Refuses a date window that ends before it starts. */
export function checkDateRange(args: { since_date?: unknown; until_date?: unknown }): void {
  const since = args.since_date;
  const until = args.until_date;
  if (typeof since === 'string' && typeof until === 'string' && until < since) {
    throw new ArgumentError(`until_date ${until} is before since_date ${since}; give a window that ends on or after it starts`);
  }
}
