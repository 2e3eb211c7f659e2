/**
 * What /readyz checks in hosted mode (the drain is checked by the transport, http-health.ts): that
 * the instance's warm-up is over (warm-up.ts: a crowd is not sent to an instance still loading its
 * code), that Redis answers, within READY_TIMEOUT_MS (a probe must not hang on a Redis that does not), and
 * that this instance's data key opens the deployment's sealed signing key there. One GET does
 * both. An instance whose Redis is someone else's, or was swapped under it, is then not ready
 * instead of answering every user with errors. The record missing (a Redis emptied since the
 * start) is no reason to stop serving: users sign in again, which needs the instances up.
 */
import type { StateStore } from '../storage/store.js';
import type { HostedOptions } from './options.js';
import { SIGNING_KEYS } from './authorization-server.js';
import type { Warming } from './warm-up.js';

export const READY_TIMEOUT_MS = 1_000;

export function readiness(store: StateStore, opts: HostedOptions, warming?: Warming): () => Promise<string | undefined> {
  return async () => {
    if (warming && !warming.report) return 'warming up (loading code, opening Redis connections, building a first answer)';
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), READY_TIMEOUT_MS)));
    try {
      const sealed = await Promise.race([store.get(SIGNING_KEYS), late]);
      if (sealed === 'late') return `Redis did not answer within ${READY_TIMEOUT_MS} ms`;
      if (sealed !== undefined && opts.dataKey.openJson(sealed, SIGNING_KEYS) === undefined)
        return "the data key does not open this Redis's records (another deployment's Redis, or another data key)";
      return undefined;
    } catch {
      return 'Redis cannot be reached';
    } finally {
      clearTimeout(timer);
    }
  };
}
