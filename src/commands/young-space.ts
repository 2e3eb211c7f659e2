/**
 * The young generation of a one-user server kept at 8 MB. V8 grows it to 32 MB (two semi-spaces
 * of 16 MB) as soon as much survives a scavenge, as a large budget's export read does, and never
 * gives the pages back: at 100,000 transactions 32 MB of the server's resident set for the rest
 * of its life, and its peak 197 MB against 173-175 kept at 8 MB, with the same CPU (issue 61,
 * measured). V8 reads its growth factor at each growth, so a factor of 1 set at run time, once
 * the young generation has reached the size wanted, stops it there. Hosted mode, where many
 * users' answers are computed at once, keeps V8's default.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export const YOUNG_SPACE_BYTES = 8 * 2 ** 20;

const youngSpace = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

let capped = false;

/**
 * Stops the young generation's growth once it holds `bytes`: read after each collection until
 * then (the observer runs between turns, so a turn that keeps much at once may take it one step
 * further; an export read as it arrives takes many turns).
 */
export function capYoungSpace(bytes = YOUNG_SPACE_BYTES): void {
  if (capped) return;
  capped = true;
  const stop = () => setFlagsFromString('--semi-space-growth-factor=1');
  if (youngSpace() >= bytes) return stop();
  const seen = new PerformanceObserver(() => {
    if (youngSpace() < bytes) return;
    stop();
    seen.disconnect();
  });
  seen.observe({ entryTypes: ['gc'] });
}
