/**
 * Wording for quota refusals shown to users. Times are given in UTC at minute precision,
 * always rounded *up*: a refusal that says "14:05" must not be followed by another refusal
 * at 14:05:10, so a slot freeing at 14:05:10 is announced as 14:06.
 */

const MINUTE_MS = 60_000;

/** "2026-11-22 14:05" for an instant, rounded up to the next whole minute, in UTC. */
export function formatUtcMinute(date: Date): string {
  const ceiled = new Date(Math.ceil(date.getTime() / MINUTE_MS) * MINUTE_MS);
  return ceiled.toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * "12 minutes", "1 minute", "60 minutes"; hours only from two hours on ("2 hours 5 minutes"),
 * since waits within one window read better in minutes. Rounded up, never "0 minutes".
 */
export function formatWait(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / MINUTE_MS));
  const plural = (n: number, unit: string): string => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (minutes < 120) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

/**
 * "next request possible at 2026-11-22 14:05 UTC (in 12 minutes)", or "next request
 * possible now" when the instant has already passed. `noun` lets read refusals say "read".
 */
export function formatNextSlot(date: Date, now: number | Date = Date.now(), noun = 'request'): string {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const wait = date.getTime() - nowMs;
  if (wait <= 0) return `next ${noun} possible now`;
  return `next ${noun} possible at ${formatUtcMinute(date)} UTC (in ${formatWait(wait)})`;
}
