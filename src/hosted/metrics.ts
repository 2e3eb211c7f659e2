/**
 * Hosted mode's Prometheus metrics (prom-client), in a registry of this instance's own (not the
 * library's global one, so that two servers in one process, as in tests, never share counts).
 * The rest of hosted mode calls the small methods below; the metric objects stay in here.
 *
 * Every label takes its value from a bounded set: MCP method names, the tool table's names,
 * outcomes, HTTP methods and status codes, Redis command names. Never a user, a budget, a token or
 * a URL: anything that does not fit its set is counted as "other".
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CatchUp } from '../sync/manager.js';
import { deliveryOutcome, EVENT_TYPES, eventMetrics } from './metrics-events.js';
import { admissionGauges, loadMetrics, WARM_UP_STEPS } from './metrics-load.js';
import type { WarmUpReport } from './warm-up.js';
import type { AdmissionState } from '../transport/http-admission.js';

/** JSON-RPC methods MCP clients send; anything else is "other". */
const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
]);
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const SIGN_IN_OUTCOMES = new Set(['ok', 'refused', 'not_allowed', 'access_denied', 'server_error', 'temporarily_unavailable']);

/** Seconds, from a millisecond cache hit to a request near its 60 s deadline. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Redis commands take well under a millisecond on a private network. */
const REDIS_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1];

export type RequestOutcome = 'ok' | 'refused' | 'error' | 'timeout' | 'aborted';

const pick = (value: string | undefined, allowed: Set<string>, fallback = 'other') => (value !== undefined && allowed.has(value) ? value : fallback);

/** An MCP method as metrics and the log name it: one of MCP's, "other", or "none" (no JSON-RPC request read). */
export const mcpMethodName = (method: string | undefined): string => (method === undefined ? 'none' : pick(method, MCP_METHODS));

export class HostedMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'outcome'>;
  private readonly requestSeconds: Histogram<'method'>;
  private readonly tools: Counter<'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'tool'>;
  private readonly upstreamRequests: Counter<'method' | 'status'>;
  private readonly upstreamSeconds: Histogram<'method'>;
  private readonly refreshes: Counter<'outcome'>;
  private readonly replicaCache: Counter<'result'>;
  private readonly catchUps: Counter<'via'>;
  private readonly redisSeconds: Histogram<'command'>;
  private readonly load = loadMetrics(this.registry);
  private readonly signIns: Counter<'outcome'>;
  private readonly events = eventMetrics(this.registry);

  /**
   * `replicaBytes`: the bytes of budget copies this instance holds; `admission`: what the MCP
   * requests' admission is doing (src/transport/http-admission.ts). Both read at each scrape.
   */
  constructor(replicaBytes: () => Promise<number>, admission: () => AdmissionState | undefined = () => undefined) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'ynab_mcp_' });
    this.requests = new Counter({
      name: 'ynab_mcp_requests_total',
      help: 'MCP requests by JSON-RPC method and outcome',
      labelNames: ['method', 'outcome'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'ynab_mcp_request_duration_seconds',
      help: 'Time to answer an MCP request, by JSON-RPC method',
      labelNames: ['method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tools = new Counter({
      name: 'ynab_mcp_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, error, input)',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolSeconds = new Histogram({
      name: 'ynab_mcp_tool_call_duration_seconds',
      help: 'Time of a tool call, by tool',
      labelNames: ['tool'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.upstreamRequests = new Counter({
      name: 'ynab_mcp_upstream_requests_total',
      help: 'Requests to the YNAB API by HTTP method and status (429 included; "network" when no answer came)',
      labelNames: ['method', 'status'],
      registers,
    });
    this.upstreamSeconds = new Histogram({
      name: 'ynab_mcp_upstream_request_duration_seconds',
      help: 'Time of a request to the YNAB API, by HTTP method',
      labelNames: ['method'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.refreshes = new Counter({
      name: 'ynab_mcp_token_refreshes_total',
      help: 'YNAB token refreshes by outcome (refreshed, reused: another instance had refreshed, refused, unavailable)',
      labelNames: ['outcome'],
      registers,
    });
    this.replicaCache = new Counter({
      name: 'ynab_mcp_replica_cache_total',
      help: 'Budget copies asked for, by result (hit: held and fresh; saved: read from Redis without a request; miss: synced)',
      labelNames: ['result'],
      registers,
    });
    this.catchUps = new Counter({
      name: 'ynab_mcp_replica_catch_ups_total',
      help: "Budget copies brought up to date under the budget's lock, by how (changes: what another instance's sync recorded; copy: the saved copy read whole; request: a delta from YNAB)",
      labelNames: ['via'],
      registers,
    });
    new Gauge({
      name: 'ynab_mcp_replica_cache_bytes',
      help: 'Bytes of budget copies this instance holds in memory, all users together',
      registers,
      async collect() {
        this.set(await replicaBytes());
      },
    });
    new Gauge({
      name: 'ynab_mcp_requests_waiting',
      help: 'MCP requests waiting for their turn (--concurrent-requests, --requests-in-loop): a queue that stays long means the instances are too few',
      registers,
      collect() {
        this.set(admission()?.waiting ?? 0);
      },
    });
    admissionGauges(registers, admission);
    this.redisSeconds = new Histogram({
      name: 'ynab_mcp_redis_command_duration_seconds',
      help: 'Time of a Redis command, by command',
      labelNames: ['command'],
      buckets: REDIS_BUCKETS,
      registers,
    });
    this.signIns = new Counter({
      name: 'ynab_mcp_sign_ins_total',
      help: 'YNAB sign-ins coming back to /oauth/callback, by outcome (ok, refused: not a sign-in of ours, or an OAuth error)',
      labelNames: ['outcome'],
      registers,
    });
  }

  mcpRequest(method: string | undefined, outcome: RequestOutcome, seconds: number): void {
    const m = mcpMethodName(method);
    this.requests.inc({ method: m, outcome });
    this.requestSeconds.observe({ method: m }, seconds);
  }

  /** `tool` comes from the tool table (mcp/server.ts registers only those). */
  toolCall(tool: string, outcome: 'ok' | 'error' | 'input', seconds: number): void {
    this.tools.inc({ tool, outcome });
    this.toolSeconds.observe({ tool }, seconds);
  }

  /** `status`: the HTTP status, or the network failure's description (counted as "network"). */
  upstream(method: string, status: number | string, seconds: number): void {
    const m = pick(method.toUpperCase(), HTTP_METHODS);
    const s = typeof status === 'number' && status >= 100 && status <= 599 ? String(status) : 'network';
    this.upstreamRequests.inc({ method: m, status: s });
    this.upstreamSeconds.observe({ method: m }, seconds);
  }

  refresh(outcome: 'refreshed' | 'reused' | 'refused' | 'unavailable'): void {
    this.refreshes.inc({ outcome });
  }

  replica(result: 'hit' | 'saved' | 'miss'): void {
    this.replicaCache.inc({ result });
  }

  catchUp(via: CatchUp): void {
    this.catchUps.inc({ via });
  }

  /** Command names come from the store's own code (GET, SET, EVALSHA, …). */
  redisCommand(command: string, seconds: number): void {
    this.redisSeconds.observe({ command: /^[A-Z]{1,16}$/i.test(command) ? command.toUpperCase() : 'other' }, seconds);
  }

  redisRoundTrip(): void {
    this.load.redisTrips.inc();
  }

  warmedUp(report: WarmUpReport): void {
    this.load.warmUpSeconds.set(report.readyAtMs / 1000);
    for (const s of report.steps) this.load.warmUpSteps.set({ step: pick(s.name, WARM_UP_STEPS), outcome: s.failed ? 'failed' : 'ok' }, s.ms / 1000);
  }

  admissionExpired(): void {
    this.load.turnsExpired.inc();
  }

  /** `type`: an event type of the catalog (src/events/catalog.ts); anything else is "other". */
  eventDetected(type: string): void {
    this.events.detected.inc({ type: pick(type, EVENT_TYPES) });
  }

  /** One webhook delivery attempt's outcome (src/events/webhook-send.ts), as the metric names it. */
  webhookDelivery(outcome: string): void {
    this.events.deliveries.inc({ outcome: deliveryOutcome(outcome) });
  }

  /** A watcher sync's delay behind its due time. */
  watchLag(seconds: number): void {
    this.events.lag.observe(seconds);
  }

  /** A due budget put off to the next interval (the watcher's share of the hour was used up). */
  watchSkipped(reason: 'share'): void {
    this.events.skipped.inc({ reason });
  }

  signIn(outcome: string): void {
    this.signIns.inc({ outcome: pick(outcome, SIGN_IN_OUTCOMES, 'error') });
  }

  /** The exposition text, and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
