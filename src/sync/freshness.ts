/** How fresh an answer from a replica is, and which failures still let an older copy answer (manager.ts). */
import { ApiError, NetworkError, QuotaExhaustedError } from '../api/client/errors.js';
import { StateStoreError } from '../storage/store.js';

export interface Freshness {
  source: 'replica';
  synced_at: string;
  age_seconds: number;
  stale: boolean;
  /** Why a stale answer was given, and when fresh data can be had. */
  notice?: string;
}

/** Failures after which an older replica is still a useful answer. */
export function canServeStale(e: unknown): boolean {
  return (
    e instanceof QuotaExhaustedError ||
    e instanceof StateStoreError ||
    e instanceof NetworkError ||
    (e instanceof ApiError && (e.status >= 500 || e.status === 429))
  );
}
