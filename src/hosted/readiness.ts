/**
 * What /readyz checks in hosted mode (the drain is checked by the transport, http-health.ts): that
 * the instance's warm-up is over (warm-up.ts: a crowd is not sent to an instance still loading its
 * code), that Redis answers, within READY_TIMEOUT_MS (a probe must not hang on a Redis that does not), and
 * that this instance's data key opens the deployment's sealed signing key there. One GET does
 * both. An instance whose Redis is someone else's, or was swapped under it, is then not ready
 * instead of answering every user with errors. The record missing (a Redis emptied since the
 * start) is no reason to stop serving: users sign in again, which needs the instances up.
 *
 * And that the requests' line moves: requests that have waited ADMISSION_STALLED_MS for their turn
 * with none let in (src/transport/http-admission.ts) mean an instance that has stopped serving, which
 * the load balancer should stop sending to (and an operator should restart; the metric
 * ynab_mcp_admission_stalled_seconds says the same). No request waits that long on a working
 * instance: a slot passes on after its longest hold (1 s), and a Redis command ends within 5 s.
 */
import type { StateStore } from '../storage/store.js';
import type { HostedOptions } from './options.js';
import { SIGNING_KEYS } from './authorization-server.js';
import type { Warming } from './warm-up.js';
import type { AdmissionState } from '../transport/http-admission.js';

export const READY_TIMEOUT_MS = 1_000;
/** How long the requests' line may stand still, requests waiting and none let in, before the instance is not ready. */
export const ADMISSION_STALLED_MS = 20_000;

export function readiness(
  store: StateStore,
  opts: HostedOptions,
  warming?: Warming,
  admission?: () => AdmissionState | undefined,
): () => Promise<string | undefined> {
  return async () => {
    if (warming && !warming.report) return 'warming up (loading code, opening Redis connections, building a first answer)';
    const line = admission?.();
    if (line && line.stalledMs >= ADMISSION_STALLED_MS)
      return `${line.waiting} requests have waited ${Math.floor(line.stalledMs / 1000)} s for their turn and none was let in: this instance has stopped serving; restart it`;
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
