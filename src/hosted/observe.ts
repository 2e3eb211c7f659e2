/**
 * What hosted mode watches, wired in one place (serve.ts hands these hooks to the layers that
 * declare them): every HTTP request (the transport's observer) gets an id, sent back as
 * `X-Request-Id`, and ends in one log line and, for /mcp, the request metrics; tool calls, requests
 * to YNAB, refreshes, budget copies, Redis commands and sign-ins go to the metrics. Requests to
 * YNAB are also counted per HTTP request (an AsyncLocalStorage context around its serving), for
 * its log line.
 */
import { randomUUID } from 'node:crypto';
import type { RequestInfo } from '../api/client/transport.js';
import type { CatchUp } from '../sync/manager.js';
import { TOOL_DEFINITIONS } from '../mcp/tools/definitions.js';
import type { HttpObserver, ServedRequest } from '../transport/http.js';
import { HostedMetrics, mcpMethodName, type RequestOutcome } from './metrics.js';
import { serveMetrics, type MetricsServer } from './metrics-endpoint.js';
import type { ObservabilityOptions } from './options.js';
import type { HostedLog } from './request-log.js';
import type { AdmissionState } from '../transport/http-admission.js';
import { contextSlot } from '../shared/async-context.js';

/** Routes as the log names them: fixed paths, and ids replaced by a placeholder. */
const ROUTES: [RegExp, string][] = [
  [/^\/interaction\/[^/]+$/, '/interaction/:uid'],
  [/^\/oauth\/authorize\/[^/]+$/, '/oauth/authorize/:uid'],
  [/^\/\.well-known\/[a-z-]+(\/mcp)?$/, ''],
  [/^\/oauth\/(authorize|token|register|revoke|jwks|callback|introspect)$/, ''],
  [/^\/(healthz|readyz|metrics)$/, ''],
];

/** A client may name any tool: only the table's names reach the log. */
const TOOLS = new Set(TOOL_DEFINITIONS.map((d) => d.name));

export function routeOf(url: string | undefined, endpoint: boolean): string {
  if (endpoint) return '/mcp';
  const path = (url ?? '/').split('?')[0]!;
  for (const [re, name] of ROUTES) if (re.test(path)) return name || path;
  return '(other)';
}

function outcomeOf(s: ServedRequest): RequestOutcome {
  if (s.timedOut) return 'timeout';
  if (s.aborted) return 'aborted';
  if (s.status === 401 || s.status === 403) return 'refused';
  return s.status < 400 ? 'ok' : 'error';
}

/** What one request (or the background work) asked of YNAB and Redis. */
interface Counts {
  upstream: number;
  redisCommands: number;
  /** Waits on Redis: commands sent while none of the same flow was awaiting an answer. */
  redisRoundTrips: number;
  redisOutstanding: number;
}
const counts = (): Counts => ({ upstream: 0, redisCommands: 0, redisRoundTrips: 0, redisOutstanding: 0 });

export interface HostedWatch {
  observer: HttpObserver;
  /** For the Redis store's onCommand: a command sent, counted for the request it is part of. */
  onCommand(command: string): (seconds: number) => void;
  /** For the stack's onRequest: a request to YNAB ended. */
  onUpstream(info: RequestInfo): void;
}

export function hostedWatch(log: HostedLog, metrics: HostedMetrics | undefined): HostedWatch {
  const current = contextSlot<Counts>('request counts');
  // Commands outside any request (the watchers, the feed) are counted as one background flow.
  const background = counts();
  return {
    observer: {
      begin(req, res) {
        const id = randomUUID();
        res.setHeader('x-request-id', id);
        const context = counts();
        return {
          run: (serve) => current.run(context, serve),
          end(s) {
            if (s.endpoint) metrics?.mcpRequest(s.rpc, outcomeOf(s), s.ms / 1000);
            log.request({
              request_id: id,
              method: s.method,
              route: routeOf(req.url, s.endpoint),
              ...(s.rpc ? { rpc: mcpMethodName(s.rpc) } : {}),
              ...(s.tool ? { tool: TOOLS.has(s.tool) ? s.tool : '(unknown)' } : {}),
              status: s.status,
              duration_ms: s.ms,
              upstream_requests: context.upstream,
              ...(context.redisCommands ? { redis_round_trips: context.redisRoundTrips, redis_commands: context.redisCommands } : {}),
              ...(s.user ? { user: s.user } : {}),
              ...(s.waited ? { queued_ms: Math.round(s.waited.queuedMs), io_ms: Math.round(s.waited.ioMs) } : {}),
              ...(s.timedOut || s.aborted ? { note: s.timedOut ? 'timed out' : 'aborted' } : {}),
            });
          },
        };
      },
      onToolCall: metrics && ((tool, outcome, seconds) => metrics.toolCall(tool, outcome, seconds)),
    },
    onCommand(command) {
      const context = current.getStore() ?? background;
      // A command sent while another of the same flow awaits its answer shares its round trip
      // (the client pipelines them): only the first of a batch waits on Redis.
      const trip = context.redisOutstanding === 0;
      context.redisOutstanding += 1;
      context.redisCommands += 1;
      if (trip) {
        context.redisRoundTrips += 1;
        metrics?.redisRoundTrip();
      }
      return (seconds) => {
        context.redisOutstanding -= 1;
        metrics?.redisCommand(command, seconds);
      };
    },
    onUpstream(info) {
      const context = current.getStore();
      if (context) context.upstream += 1;
      metrics?.upstream(info.method, info.outcome, info.ms / 1000);
    },
  };
}

/** Every hook hosted mode hands to the layers below, from the options of --log-format and --metrics-*. */
export interface Watching extends HostedWatch {
  /** Present when metrics are served somewhere (they are only counted then). */
  metrics: HostedMetrics | undefined;
  users: {
    onRequest: (info: RequestInfo) => void;
    onReplicaCache?: (result: 'hit' | 'saved' | 'miss') => void;
    onReplicaCatchUp?: (via: CatchUp) => void;
    onRefresh?: HostedMetricsRefresh;
    onDetected?: (type: string) => void;
    onWebhookDelivery?: (outcome: string) => void;
    onWatchLag?: (seconds: number) => void;
    onWatchSkip?: (reason: 'share') => void;
  };
  onSignIn: ((outcome: string) => void) | undefined;
  /** Starts the --metrics-port server, if asked for. */
  serveMetricsPort(): Promise<MetricsServer | undefined>;
}
type HostedMetricsRefresh = (outcome: 'refreshed' | 'reused' | 'refused' | 'unavailable') => void;

export function watching(
  seen: ObservabilityOptions,
  log: HostedLog,
  replicaBytes: () => Promise<number>,
  admission?: () => AdmissionState | undefined,
): Watching {
  const metrics = seen.metricsToken !== undefined || seen.metricsPort !== undefined ? new HostedMetrics(replicaBytes, admission) : undefined;
  const watch = hostedWatch(log, metrics);
  return {
    ...watch,
    metrics,
    users: {
      onRequest: (info) => watch.onUpstream(info),
      onReplicaCache: metrics && ((result) => metrics.replica(result)),
      onReplicaCatchUp: metrics && ((via) => metrics.catchUp(via)),
      onRefresh: metrics && ((outcome) => metrics.refresh(outcome)),
      onDetected: metrics && ((type) => metrics.eventDetected(type)),
      onWebhookDelivery: metrics && ((outcome) => metrics.webhookDelivery(outcome)),
      onWatchLag: metrics && ((seconds) => metrics.watchLag(seconds)),
      onWatchSkip: metrics && ((reason) => metrics.watchSkipped(reason)),
    },
    onSignIn: metrics && ((outcome) => metrics.signIn(outcome)),
    async serveMetricsPort() {
      if (!metrics || seen.metricsPort === undefined) return undefined;
      try {
        return await serveMetrics(metrics, seen.metricsPort);
      } catch (e) {
        throw new Error(`--metrics-port ${seen.metricsPort}: cannot listen on 127.0.0.1:${seen.metricsPort} (${(e as Error).message})`, { cause: e });
      }
    },
  };
}
