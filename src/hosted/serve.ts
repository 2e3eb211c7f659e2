/**
 * Hosted mode assembled: `ynab-mcp serve --transport http --hosted`. One process is one
 * stateless instance; run as many as you like behind a TLS terminator, all with the same Redis,
 * data key and YNAB OAuth application.
 *
 *   /mcp                                         MCP (Streamable HTTP), bearer tokens only
 *   /mcp/read-only                               the same, read tools only, its own tokens (resource-server.ts)
 *   /.well-known/oauth-protected-resource[/mcp[/read-only]]  RFC 9728 metadata
 *   /.well-known/oauth-authorization-server      RFC 8414 metadata (and openid-configuration)
 *   /oauth/authorize, /oauth/token, /oauth/register, /oauth/revoke, /oauth/jwks
 *                                                the authorization server (oidc-provider)
 *   /interaction/<uid>, /oauth/callback          consent, and the round trip to YNAB
 *   /healthz, /readyz                            up; ready (warmed up: warm-up.ts; Redis answers, the data key opens its records, not draining)
 *   /metrics                                     Prometheus, with --metrics-token-file (metrics-endpoint.ts)
 *
 * The MCP serving itself is src/transport/http.ts, as in the single-user server, with a router that
 * picks the user's state per request instead of one state for the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpConfig } from '../mcp/state/config.js';
import { serveHttp, type HttpServer } from '../transport/http.js';
import { RedisStateStore, type RedisStoreOptions } from '../storage/redis-store.js';
import { completeIdLists } from '../storage/id-list.js';
import type { IoAside } from '../storage/store.js';
import { TOOL_DEFINITIONS } from '../mcp/tools/definitions.js';
import { subscriptionFamily } from '../events/webhook-ids.js';
import { changeFamily } from '../writes/pipeline/undo-journal.js';
import { createAuthorizationServer } from './authorization-server.js';
import { interactionRoutes } from './interactions.js';
import { metricsRoute, type MetricsServer } from './metrics-endpoint.js';
import { watching } from './observe.js';
import type { HostedOptions, ObservabilityOptions } from './options.js';
import { hostedLog, type HostedLog } from './request-log.js';
import { bearerAuthenticator, metadataRoute, READ_ONLY_PATH, type HostedAuth } from './resource-server.js';
import { registrationLimit } from './registration-limit.js';
import { HostedUsers, maxUsersHeld } from './users.js';
import { readiness } from './readiness.js';
import { Warming } from './warm-up.js';
import { YnabGrants } from './ynab-grants.js';
import { SharedReplicaCache } from '../sync/replica-cache.js';
import { DEFAULT_WATCH_INTERVAL_MS } from '../events/watcher-loop.js';
import type { WatchFlags } from '../shared/watch.js';
import { watchUsers } from './watchers.js';
import { Admission, type AdmissionState } from '../transport/http-admission.js';
import { background, type Background } from '../transport/background.js';
import type { HostedRouting } from '../transport/http-options.js';

const DAY = 86_400_000;
/**
 * The longest a request keeps its turn (src/transport/http-admission.ts): an answer from a copy takes
 * milliseconds; past this the request waits on the person (a dialog) or on YNAB, and the next goes.
 * YNAB_MCP_ADMISSION_HOLD_MS sets it (a machine so loaded that computing an answer takes a second).
 */
const ADMISSION_HOLD_MS = Number(process.env.YNAB_MCP_ADMISSION_HOLD_MS) || 1000;
/**
 * What belongs to a user goes from Redis by itself once they stop coming: their grant, copies and
 * journals 35 days after the last write (past the 30 days a refresh token lives), request ledgers
 * after a day (they only count the last hour).
 */
/**
 * The tools that write to YNAB (those with kinds of write: a house rule's, access 'write' too, changes
 * only this server's store and waits on no one): let in ahead of reads (http-admission.ts, `enter(first)`).
 */
const WRITES = new Set(TOOL_DEFINITIONS.filter((d) => d.kinds.length > 0).map((d) => d.name));
export const RETENTION: Record<string, number> = { 'grants/': 35 * DAY, 'replicas/': 35 * DAY, 'journal/': 35 * DAY, 'changes/': 35 * DAY, 'quota/': DAY };

/**
 * The Redis store, with every subscription and change in its id list (once, before serving), so
 * that a new user's lists are known empty without a SCAN of the whole keyspace (storage/id-list.ts).
 */
async function connectStore(url: string, log: (line: string) => void, hooks: Pick<RedisStoreOptions, 'onCommand' | 'aside'>): Promise<RedisStateStore> {
  const store = await RedisStateStore.connect(url, { log, retention: RETENTION, ...hooks });
  try {
    const listed = await completeIdLists(store, [subscriptionFamily, changeFamily]);
    if (listed > 0) log(`ynab-mcp: ${listed} webhook subscriptions and undo changes added to their id lists`);
    return store;
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
}

/**
 * --concurrent-requests and --requests-in-loop: the admission; the waits on Redis, which hand a
 * request's slot on and keep its place in the loop (the store's), and those on YNAB or on another
 * request's work, which hand both on (the users' stacks'); and the work no caller waits for, run
 * when the instance is quiet (background.ts). All in http-admission.ts.
 */
function admitting(
  slots: number,
  places: number,
  onExpired: () => void,
): {
  routing: Pick<HostedRouting, 'admission' | 'firstIn'>;
  redis?: IoAside;
  users: { aside?: IoAside; background?: Background };
  state: () => AdmissionState | undefined;
} {
  const admission = slots > 0 ? new Admission(slots, ADMISSION_HOLD_MS, places > 0 ? places : Infinity) : undefined;
  if (admission) admission.onExpired = onExpired;
  const users = { aside: admission && (<T>(io: () => Promise<T>) => admission.aside(io, 'away')), background: admission && background(admission) };
  const routing = { admission, firstIn: (tool: string) => WRITES.has(tool) };
  return { routing, redis: admission && ((io, where) => admission.aside(io, where)), users, state: () => admission?.state() };
}

export interface HostedServeOptions {
  hosted: HostedOptions;
  config: McpConfig;
  maxStalenessMs: number;
  host?: string;
  port?: number;
  log: (line: string) => void;
  /** SDK errors on the log too. */
  verbose?: boolean;
  /** --log-format, --metrics-token-file, --metrics-port (default: text, no metrics). */
  observability?: ObservabilityOptions;
  /** Where request lines go (default: text on stderr). */
  requestLog?: HostedLog;
  /** The interval watcher's interval and share (--watch-interval, --watch-share). */
  watch?: WatchFlags;
}

export interface HostedServer extends HttpServer {
  users: HostedUsers;
  store: RedisStateStore;
  /** The --metrics-port server's URL. */
  metricsUrl?: string;
}

export async function serveHosted(o: HostedServeOptions): Promise<HostedServer> {
  const { hosted: opts, log } = o;
  const warming = new Warming(); // before Redis: a bad YNAB_MCP_READY_WITHIN_MS stops the start with nothing open
  const seen = o.observability ?? { logFormat: 'text' };
  const replicas = new SharedReplicaCache(opts.replicaCacheBytes);
  const { routing, redis, users: admitted, state } = admitting(opts.concurrentRequests, opts.requestsInLoop, () => watch.metrics?.admissionExpired());
  const watch = watching(seen, o.requestLog ?? hostedLog('text'), async () => replicas.bytes(), state);
  const store = await connectStore(opts.redisUrl, log, { onCommand: watch.onCommand, aside: redis });
  let metricsServer: MetricsServer | undefined;
  const config = { ...o.config, localFiles: false }; // many users, one machine: no tool reads a file here by path
  try {
    const grants = new YnabGrants(store, opts.dataKey, { clientId: opts.ynab.clientId, clientSecret: opts.ynab.clientSecret, appUrl: opts.ynab.appUrl });
    // The user's YNAB grant is theirs once the sign-in succeeds: as the assistant's code is issued.
    const provider = await createAuthorizationServer(store, opts, log, (grantId) => grants.commitStaged(grantId));
    const held = new HostedUsers({
      maxHeld: maxUsersHeld(),
      store,
      replicas,
      opts,
      config,
      grants,
      maxStalenessMs: o.maxStalenessMs,
      log,
      watch: watch.users,
      watcher: o.watch,
      ...admitted, // the admission's aside and background (http-admission.ts, background.ts)
    });
    const watchers = watchUsers(store, held, o.watch?.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS, log);
    const authenticate = bearerAuthenticator(provider, grants, opts, held.readAhead);
    const interactions = interactionRoutes({ provider, store, grants, opts, log, onSignIn: watch.onSignIn });
    const authorizationServer = provider.callback();
    const publicUrl = new URL(opts.publicUrl);
    const metadata = metadataRoute(opts);
    const registrations = registrationLimit(store, opts);

    const route = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
      const url = new URL(req.url ?? '/', opts.publicUrl);
      // The authorization server and the consent pages see the public origin (https behind the
      // terminator: secure cookies, https URLs), whatever the terminator passed on.
      req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
      req.headers['x-forwarded-host'] = publicUrl.host;
      if (metadata(req, res, url)) return true;
      if (await metricsRoute(watch.metrics, seen.metricsToken, req, res)) return true;
      if (await interactions(req, res, url)) return true;
      if (await registrations(req, res, url)) return true;
      // Everything else is the authorization server's. It never sees a browser session: each
      // sign-in goes through consent and YNAB again.
      if (req.headers.cookie) {
        req.headers.cookie = req.headers.cookie
          .split(';')
          .filter((c) => !c.trim().startsWith('_session'))
          .join(';');
      }
      await authorizationServer(req, res);
      return true;
    };

    metricsServer = await watch.serveMetricsPort();
    const http = await serveHttp(undefined, {
      host: o.host,
      port: o.port,
      log: o.verbose ? log : undefined,
      readiness: readiness(store, opts, warming, state),
      observer: held.readAhead.observing(watch.observer),
      hosted: {
        origins: opts.access.origins,
        paths: [READ_ONLY_PATH],
        route,
        authenticate,
        stateFor: (auth) => held.stateFor(auth.extra as unknown as HostedAuth),
        onReadOnly: (listener) => held.onReadOnly(listener),
        userOf: (auth) => (auth.extra as unknown as HostedAuth).identity,
        // Every instance signs and reads 2025-era session ids alike; an id names its user and client.
        sessionKey: opts.dataKey.subkey('sessions'),
        sessionSubject: (auth) => `${(auth.extra as unknown as HostedAuth).identity}\n${auth.clientId}`,
        ...routing, // the admission, and the calls it lets in first
      },
    });
    warming.start(store, config, log, (r) => watch.metrics?.warmedUp(r), held.warmRecent);
    return {
      url: http.url,
      urls: http.urls,
      users: held,
      store,
      drain: (maxMs) => http.drain(maxMs),
      metricsUrl: metricsServer?.url,
      async close() {
        await metricsServer?.close();
        await watchers.stop();
        await http.close();
        await held.close();
        await store.close();
      },
    };
  } catch (e) {
    await metricsServer?.close();
    await store.close();
    throw e;
  }
}
