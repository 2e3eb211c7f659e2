/**
 * The alerts' metrics (docs/alerts.md, Operators): occurrences detected by event type, webhook
 * delivery attempts by outcome, the interval watcher's lag behind each budget's due time, and the
 * due syncs it put off because its share of the hour was used up. Labels come from bounded sets
 * (the catalog's types, the outcomes below); never a user, a budget, a URL or a secret.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { EVENT_NAMES } from '../events/catalog.js';

export const EVENT_TYPES = new Set<string>(EVENT_NAMES);

/**
 * A delivery attempt's outcome as webhook_deliveries_total names it: `delivered` (2xx), `refused`
 * (410 Gone or 413, not retried; or an address that is not public, refused before connecting),
 * `failed` (any other attempt that did not deliver: a timeout, a 5xx, a refused connection; retried
 * up to the bound, after which the subscription is marked failing).
 */
export function deliveryOutcome(outcome: string): 'delivered' | 'refused' | 'failed' {
  if (outcome === 'ok') return 'delivered';
  return outcome === 'gone' || outcome === 'too_large' || outcome === 'blocked' ? 'refused' : 'failed';
}

/** Seconds a watcher sync came after its due time: at most a tick (20 s) when all is well. */
const LAG_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600];

export function eventMetrics(registry: Registry) {
  const registers = [registry];
  return {
    detected: new Counter({
      name: 'ynab_mcp_events_detected_total',
      help: 'Alert occurrences recorded after a sync of a budget copy, by event type',
      labelNames: ['type'],
      registers,
    }),
    deliveries: new Counter({
      name: 'ynab_mcp_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered; refused: 410, 413 or an address that is not public; failed: retried up to the bound)',
      labelNames: ['outcome'],
      registers,
    }),
    lag: new Histogram({
      name: 'ynab_mcp_watch_lag_seconds',
      help: "How long after its due time (the copy's last sync plus --watch-interval) the watcher synced a watched budget",
      buckets: LAG_BUCKETS,
      registers,
    }),
    skipped: new Counter({
      name: 'ynab_mcp_watch_skipped_total',
      help: "Due watcher syncs put off to the next interval, by reason (share: the watcher's share of the token's hour is used up)",
      labelNames: ['reason'],
      registers,
    }),
  };
}
