/**
 * Work a hosted instance does for no waiting caller: the alerts' scan after a sync (src/stack/stack.ts),
 * which the answer that asked for the sync does not wait for. Such jobs run one at a time, each when no
 * request is active on the instance (http-admission.ts quiet), so a crowd's calls get the cores first:
 * a burst of writes at once asked for as many scans (about 24 ms of CPU each on a demo budget), which,
 * run as they came, took that CPU from the calls still being answered (bench/RESULTS.md, hosted).
 * A job waits at most `maxWaitMs` from when it was asked for, then runs whatever the load, so an
 * alert is late by that at most however busy the instance stays.
 */
import type { Admission } from './http-admission.js';

/** How long a job may wait for the instance to be quiet. */
export const BACKGROUND_MAX_WAIT_MS = 10_000;

/** Runs jobs one at a time, each once the instance is quiet or its wait is up; resolves with the job's result. */
export type Background = <T>(job: () => Promise<T>) => Promise<T>;

export function background(admission: Pick<Admission, 'quiet'>, maxWaitMs = BACKGROUND_MAX_WAIT_MS): Background {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const until = performance.now() + maxWaitMs;
    const run = last.then(async () => {
      await admission.quiet(until - performance.now());
      return job();
    });
    last = run.catch(() => undefined); // one job's failure is its caller's, not the next job's
    return run;
  };
}
