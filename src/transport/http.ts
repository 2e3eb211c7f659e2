/**
 * Serves MCP over Streamable HTTP on node:http, for both protocol eras: 2026-07-28 clients and
 * 2025-era clients (the SDK's stateless legacy serving: each request gets a fresh server from the
 * factory, GET and DELETE answer 405). State lives in ServerState; the per-request McpServer is
 * cheap. A 2025-era client's capabilities reach the instances serving it through a signed
 * `Mcp-Session-Id` (http-sessions.ts): MCP Apps views work in both eras, on any number of
 * instances, with nothing remembered between requests. The confirm dialog does not (a stateless
 * instance cannot receive the client's answer); such clients get the preview and confirm_token.
 *
 * Each request passes, in order: Host (DNS rebinding) and Origin (browser pages) checks → 403, the
 * endpoint path → 404, a method other than POST → 405 with Allow (http-methods.ts), the bearer
 * token when one is configured → 401, then the SDK handler under a
 * body size limit (413) and a deadline (http-requests.ts). node:http's own timeouts cut off clients
 * that trickle headers or a body, so they hold a socket but never the server. What a start
 * refuses is http-options.ts; this file builds the handler, binds and closes.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type AuthInfo, type McpServerFactory } from '@modelcontextprotocol/server';
import type { HeaderOf } from './http-direct-answers.js';
import { sessionCapabilities, withSessionIds, type SessionBinding } from './http-sessions.js';
import { withWholeAnswers } from './http-whole-answers.js';
import { ListenAlerts } from './listen-alerts.js';
import { UserScopedBus } from './scoped-bus.js';
import { SessionIds } from './session-id.js';
import { answerUnservedMethods } from './http-methods.js';
import { hostAllowList, hostForHeader, isWildcardHost, machineAddresses } from './http-guards.js';
import { httpSettings, type HostedRouting, type HttpServeOptions } from './http-options.js';
import { requestListener } from './http-requests.js';
import { Drain, type DrainOutcome } from './http-health.js';
import { calledTool } from './http-deadline.js';
import { alertsUri } from '../mcp/resources/alerts-resource.js';
import { buildServer } from '../mcp/server.js';
import type { ServerState } from '../mcp/state/state.js';

export { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './http-options.js';
export type { HostedRouting, HttpObserver, HttpServeOptions, ServedRequest } from './http-options.js';

export interface HttpServer {
  /** The endpoint as this machine reaches it. */
  url: string;
  /** Every address the endpoint answers at: the bound one, or for 0.0.0.0 / :: loopback and each of the machine's. */
  urls: string[];
  /**
   * The graceful drain (http-health.ts): /readyz turns 503, new requests get 503 with Retry-After,
   * listen streams end, and it resolves once those in flight are done (or after `maxMs`, with how
   * many were not). close() afterwards.
   */
  drain(maxMs: number): Promise<DrainOutcome>;
  close(): Promise<void>;
}

/** Hosted: each user's own stack publishes alerts' updates, to that user's streams only. */
function listenAlertsOf(hosted: HostedRouting | undefined, state: ServerState | undefined, bus: UserScopedBus | undefined, log?: (line: string) => void) {
  return new ListenAlerts({
    stateOf: (auth) => (hosted && auth ? hosted.stateFor(auth) : state!),
    userOf: (auth) => (hosted && auth ? hosted.userOf(auth) : ''),
    publish: hosted ? (user, uri) => bus!.publishTo(user, { kind: 'resource_updated', uri }) : undefined,
    log: log ?? (() => {}),
  });
}

/** Idle keep-alive sockets are closed after this; clients reconnect. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * Hosted, behind a load balancer: longer than the balancer keeps an idle connection to an
 * instance (60 s for most; Node's own agent 5 s), so the balancer always closes first. With both
 * at 5 s, a request sent on a connection just as the instance closed it was lost, and the
 * balancer could only fail it (ECONNRESET on a reused socket: a POST is not retried).
 */
export const HOSTED_KEEP_ALIVE_TIMEOUT_MS = 65_000;

export async function serveHttp(state: ServerState | undefined, opts: HttpServeOptions = {}): Promise<HttpServer> {
  const settings = httpSettings(state, opts);
  const { host, path, hosted, maxBodyBytes, requestTimeoutMs, headersTimeoutMs, log } = settings;

  const sessions: SessionBinding = {
    ids: new SessionIds(hosted?.sessionKey ?? opts.sessionKey ?? randomBytes(32)),
    subject: (auth) => (hosted && auth ? hosted.sessionSubject(auth) : ''),
  };
  // Hosted: each listen stream belongs to the user who opened it (scoped-bus.ts).
  const bus = hosted ? new UserScopedBus(log ? (e) => log(`http: ${e.message}`) : undefined) : undefined;
  // A 2025-era request's server reads what its session id vouches for from the request's headers.
  const serverFor = (auth: AuthInfo | undefined, legacyHeader: HeaderOf | undefined) =>
    buildServer(hosted && auth ? hosted.stateFor(auth) : state!, {
      live: false,
      declared: legacyHeader ? sessionCapabilities(legacyHeader, auth, sessions) : undefined,
      onToolCall: opts.observer?.onToolCall,
      onlyTool: calledTool(),
      // Events in both eras: SEP-3415 at 2026-07-28, the design sketch (top-level `events`) before it (events-dialect.ts).
      events: true,
      principal: hosted && auth ? `user:${hosted.userOf(auth)}` : settings.token !== undefined ? 'bearer' : undefined,
    });
  const factory: McpServerFactory = (ctx) => serverFor(ctx.authInfo, ctx.era === 'legacy' ? (name) => ctx.requestInfo?.headers.get(name) ?? null : undefined);
  const handler = createMcpHandler(factory, {
    maxRequestBodySize: maxBodyBytes,
    onerror: log ? (e) => log(`http: ${e.message}`) : undefined,
    ...(bus ? { bus } : {}),
  });
  // 2025-era calls with nothing to send before their result are answered in JSON (http-whole-answers.ts);
  // a listen stream naming alerts URIs watches their budgets while open (listen-alerts.ts).
  const served = listenAlertsOf(hosted, state, bus, log).wrap(withSessionIds(withWholeAnswers(handler, factory, maxBodyBytes), sessions));
  // Per-request servers cannot withdraw tools from a long-lived connection as stdio does; modern
  // clients hear about it on their subscriptions/listen stream and list again. (2025-era HTTP
  // clients have no stream to hear it on: their next tools/list is already without write tools.)
  // Hosted: only the streams of the user whose server it was.
  const stopReadOnly = hosted
    ? hosted.onReadOnly((user) => bus!.publishTo(user, { kind: 'tools_list_changed' }))
    : state!.onReadOnly(() => handler.notify.toolsChanged());

  // An alert that fires updates its budget's alerts resource for the listen streams subscribed to
  // it. Hosted: each user's own stack publishes, to that user's streams only (listen-alerts.ts).
  const stopAlerts = hosted ? () => {} : state!.onStack((stack) => stack.events.onHeard((budgetId) => handler.notify.resourceUpdated(alertsUri(budgetId))));

  let hosts: ReturnType<typeof hostAllowList> = [];
  const drain = new Drain();

  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: hosted ? HOSTED_KEEP_ALIVE_TIMEOUT_MS : KEEP_ALIVE_TIMEOUT_MS,
      // How often node checks the two timeouts above (default 30 s, which would let a slow
      // client hold on far past them).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    },
    requestListener({ settings, hosts: () => hosts, served, direct: serverFor, bus, drain }),
  );

  answerUnservedMethods(server);

  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', rejectListen);
    server.listen({ host, port: opts.port ?? 0 }, () => {
      server.off('error', rejectListen);
      resolve();
    });
  }).catch(async (e: unknown) => {
    stopReadOnly();
    stopAlerts();
    await handler.close();
    throw e;
  });
  const port = (server.address() as AddressInfo).port;
  // Bound to every interface, the server answers at each of the machine's addresses.
  const addresses = isWildcardHost(host) ? machineAddresses(host) : [];
  hosts = hostAllowList(host, port, opts.allowedHosts, addresses);
  const shownHost = isWildcardHost(host) ? '127.0.0.1' : hostForHeader(host);
  const urlOf = (h: string) => `http://${hostForHeader(h)}:${port}${path}`;

  let closing: Promise<void> | undefined;
  return {
    url: urlOf(shownHost),
    urls: [urlOf(shownHost), ...addresses.map(urlOf)],
    // Idle keep-alive sockets are not closed as the drain starts: a load balancer may be sending
    // on one right then, and would see a reset instead of a 503 it can retry elsewhere. Refusals
    // say Connection: close, and close() ends the rest.
    drain: (maxMs) => drain.run(maxMs),
    close() {
      closing ??= (async () => {
        stopReadOnly();
        stopAlerts();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Open streams (subscriptions/listen) and idle keep-alive sockets would hold close() open.
        server.closeAllConnections();
        await handler.close();
        await closed;
      })();
      return closing;
    },
  };
}
