/**
 * A module loader hook (node:module register) for tests that ask which modules a process loads and
 * when: each module it loads, but Node's own, is written to stderr as one JSON line,
 * {"module_load": <ms since the epoch>, "url": "<its URL>"}. Registered by module-loads.mjs.
 */
import { writeSync } from 'node:fs';

export async function load(url, context, next) {
  if (!url.startsWith('node:')) writeSync(2, `${JSON.stringify({ module_load: Date.now(), url })}\n`);
  return next(url, context);
}
