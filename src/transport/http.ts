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
 * body size limit (413) and a deadline. node:http's own timeouts cut off clients that trickle
 * headers or a body, so they hold a socket but never the server.
 */
import { ConfigError } from '../api/client/errors.js';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import { withDeadline, type Exchange } from './http-deadline.js';
import { sessionCapabilities, withSessionIds, type SessionBinding } from './http-sessions.js';
import { UserScopedBus } from './scoped-bus.js';
import { SessionIds } from './session-id.js';
import { answerUnservedMethods, methodServed, refuseMethod } from './http-methods.js';
import {
  bearerToken,
  hostAllowed,
  hostAllowList,
  hostForHeader,
  isLoopbackHost,
  isWildcardHost,
  machineAddresses,
  originAllowList,
  originCheck,
  tokenMatches,
} from './http-guards.js';
import { buildServer } from '../mcp/server.js';
import type { ServerState } from '../mcp/state.js';

export interface HttpServeOptions {
  /** Interface to bind; default 127.0.0.1. Anything but loopback needs `token`. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The MCP endpoint; default /mcp. */
  path?: string;
  /** When set, every request to the endpoint needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra Host values to accept: `name` (any port) or `name:port`. */
  allowedHosts?: string[];
  /** Extra Origins to accept: origins or hostnames (any port), or `scheme://*`. */
  allowedOrigins?: string[];
  /** Largest request body; default 1 MiB. */
  maxBodyBytes?: number;
  /** Time to receive a request and, separately, to answer it; default 60 s. */
  requestTimeoutMs?: number;
  /** Time to receive a request's headers; default 10 s (at most requestTimeoutMs). */
  headersTimeoutMs?: number;
  /** One line per request (method, path, status, duration, JSON-RPC method): never headers. */
  log?: (line: string) => void;
  /**
   * Signs 2025-era session ids (32+ bytes); keep it across restarts (serve keeps it in the state
   * directory) so connected clients keep their views. Default: a key of this process. Hosted
   * mode brings its own.
   */
  sessionKey?: Buffer;
  /**
   * Hosted mode (src/hosted): many users, OAuth. Replaces the single state and the static token:
   * requests outside the MCP endpoint go to `route` first, and `authenticate` decides whose state
   * an MCP request is served with. Host and Origin are not checked (a public server behind a TLS
   * terminator; bearer tokens, not cookies, authenticate), nor is binding beyond loopback refused.
   */
  hosted?: HostedRouting;
}

export interface HostedRouting {
  /** Answers a request outside the MCP endpoint (OAuth, metadata, consent); true when it did. */
  route(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The user an MCP request is for, or undefined after answering it (401 with a challenge). */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined>;
  /** The state of the user `auth` names (authenticate's answer). */
  stateFor(auth: AuthInfo): ServerState;
  /** Told when a user's server became read-only, with who (userOf's name for them). */
  onReadOnly(listener: (user: string) => void): () => void;
  /** Who `auth` is: the name onReadOnly uses, so that only their open streams are told. */
  userOf(auth: AuthInfo): string;
  /** Signs 2025-era session ids: the same on every instance (derived from the shared data key). */
  sessionKey: Buffer;
  /** Whom a session id is bound to (the user `auth` names), so that it is worthless to anyone else. */
  sessionSubject(auth: AuthInfo): string;
}

export interface HttpServer {
  /** The endpoint as this machine reaches it. */
  url: string;
  /** Every address the endpoint answers at: the bound one, or for 0.0.0.0 / :: loopback and each of the machine's. */
  urls: string[];
  close(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Idle keep-alive sockets are closed after this; clients reconnect. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}

function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function serveHttp(state: ServerState | undefined, opts: HttpServeOptions = {}): Promise<HttpServer> {
  const host = opts.host ?? '127.0.0.1';
  const path = opts.path ?? '/mcp';
  const token = opts.token;
  const hosted = opts.hosted;
  if (!state && !hosted) throw new ConfigError('serveHttp needs a server state or hosted routing');
  if (token !== undefined && token.trim() === '')
    throw new ConfigError('the HTTP token is empty; give a non-empty --http-token-file / YNAB_MCP_HTTP_TOKEN, or none');
  if (!hosted && !isLoopbackHost(host) && token === undefined) {
    throw new ConfigError(
      `refusing to serve MCP over HTTP on ${host}: it is not a loopback address, so other machines could reach your budget; set --http-token-file (or YNAB_MCP_HTTP_TOKEN), or bind 127.0.0.1`,
    );
  }
  const maxBodyBytes = positive('maxBodyBytes', opts.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
  const requestTimeoutMs = positive('requestTimeoutMs', opts.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
  // node:http requires headersTimeout <= requestTimeout.
  const headersTimeoutMs = Math.min(positive('headersTimeoutMs', opts.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS), requestTimeoutMs);
  let origins: string[];
  try {
    origins = originAllowList(opts.allowedOrigins);
    hostAllowList(host, 0, opts.allowedHosts); // validates the entries before anything is bound
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  // Every line is scrubbed of the token: SDK error reports are the one thing here that could
  // quote a request back, and the token must never reach a log.
  const log = opts.log && ((line: string) => opts.log!(token ? line.split(token).join('[token]') : line));

  const sessions: SessionBinding = {
    ids: new SessionIds(hosted?.sessionKey ?? opts.sessionKey ?? randomBytes(32)),
    subject: (auth) => (hosted && auth ? hosted.sessionSubject(auth) : ''),
  };
  // Hosted: each listen stream belongs to the user who opened it (scoped-bus.ts).
  const bus = hosted ? new UserScopedBus(log ? (e) => log(`http: ${e.message}`) : undefined) : undefined;
  const handler = createMcpHandler(
    (ctx) =>
      buildServer(hosted && ctx.authInfo ? hosted.stateFor(ctx.authInfo) : state!, {
        live: false,
        declared: ctx.era === 'legacy' ? sessionCapabilities(ctx.requestInfo, ctx.authInfo, sessions) : undefined,
      }),
    {
      maxRequestBodySize: maxBodyBytes,
      onerror: log ? (e) => log(`http: ${e.message}`) : undefined,
      ...(bus ? { bus } : {}),
    },
  );
  const served = withSessionIds(handler, sessions);
  // Per-request servers cannot withdraw tools from a long-lived connection as stdio does; modern
  // clients hear about it on their subscriptions/listen stream and list again. (2025-era HTTP
  // clients have no stream to hear it on: their next tools/list is already without write tools.)
  // Hosted: only the streams of the user whose server it was.
  const stopReadOnly = hosted
    ? hosted.onReadOnly((user) => bus!.publishTo(user, { kind: 'tools_list_changed' }))
    : state!.onReadOnly(() => handler.notify.toolsChanged());

  let hosts: ReturnType<typeof hostAllowList> = [];

  async function serve(req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void> {
    if (!hosted) {
      if (!hostAllowed(req.headers.host, hosts)) return reject(res, 403, 'Forbidden: this Host is not allowed (DNS rebinding protection)');
      const origin = originCheck(req.headers.origin, origins);
      if (!origin.ok) return reject(res, 403, `Forbidden: ${origin.message}`);
    }
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== path) {
      if (hosted && (await hosted.route(req, res))) return;
      return reject(res, 404, `Not found: the MCP endpoint is ${path}`);
    }
    if (!methodServed(req.method)) return refuseMethod(req, res);
    if (hosted) {
      const auth = await hosted.authenticate(req, res);
      if (!auth) return;
      // Read by the SDK's node adapter and handed to the server factory (ctx.authInfo).
      (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    } else if (token !== undefined) {
      const presented = bearerToken(req.headers.authorization);
      if (!tokenMatches(token, presented)) {
        const challenge = presented === undefined ? 'Bearer realm="ynab-mcp"' : 'Bearer realm="ynab-mcp", error="invalid_token"';
        return reject(res, 401, 'Unauthorized: send "Authorization: Bearer <token>" with the token this server was started with', {
          'www-authenticate': challenge,
        });
      }
    }
    // The adapter answers a body over the limit with 413 (a JSON-RPC error body, Connection:
    // close) before anything is parsed: there is no request id to answer to yet, and the status is
    // what HTTP clients surface.
    const answer = () =>
      toNodeHandler(withDeadline(served, requestTimeoutMs, exchange), {
        maxRequestBodySize: maxBodyBytes,
        onerror: log ? (e) => log(`http: ${e.message}`) : undefined,
      })(req, res);
    const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
    await (bus && auth ? bus.run(hosted!.userOf(auth), answer) : answer());
  }

  const server = createServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // How often node checks the two timeouts above (default 30 s, which would let a slow
      // client hold on far past them).
      connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
    },
    (req, res) => {
      const started = performance.now();
      const exchange: Exchange = { id: null };
      if (log) {
        res.on('close', () => {
          const where = (req.url ?? '/').split('?')[0] === path ? path : '(other path)';
          const what = [exchange.rpc, exchange.timedOut ? 'timed out' : undefined, res.writableFinished ? undefined : 'aborted'].filter(Boolean).join(', ');
          log(`http: ${req.method} ${where} ${res.statusCode} ${Math.round(performance.now() - started)}ms${what ? ` (${what})` : ''}`);
        });
      }
      serve(req, res, exchange).catch((e: unknown) => {
        log?.(`http: ${e instanceof Error ? e.message : String(e)}`);
        if (!res.headersSent) reject(res, 500, 'Internal server error');
        else res.destroy();
      });
    },
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
    close() {
      closing ??= (async () => {
        stopReadOnly();
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
