/**
 * The options of MCP over HTTP (http.ts), and their check before anything is bound. A mistake
 * is a ConfigError that names it, at start: an empty token, a non-loopback address without one
 * (other machines could reach the budget), a limit that is not a positive number, an allow list
 * entry that does not parse. Kept apart from the serving so that what a start refuses reads as one list.
 */
import type { Admission } from './http-admission.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { ConfigError } from '../api/client/errors.js';
import type { BuildOptions } from '../mcp/server.js';
import type { ServerState } from '../mcp/state/state.js';
import { hostAllowList, isLoopbackHost, originAllowList } from './http-guards.js';
import type { Readiness } from './http-health.js';

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
   * an MCP request is served with. Host is not checked (a public server behind a TLS terminator),
   * nor is binding beyond loopback refused; Origin is checked on the MCP endpoints against the
   * routing's own list (`origins`).
   */
  hosted?: HostedRouting;
  /** What /readyz checks besides the drain: undefined when ready, else why not (http-health.ts). */
  readiness?: Readiness;
  /** Hears of every request and tool call (hosted mode's metrics and request log); replaces the `log` line per request. */
  observer?: HttpObserver;
}

/** A request as it ended, for an observer: what it asked for, never its headers or body. */
export interface ServedRequest {
  /** The HTTP method. */
  method: string;
  /** Whether it was for the MCP endpoint (other paths are the observer's to name: they may carry ids). */
  endpoint: boolean;
  /** The JSON-RPC method (`tools/call`, …) when the body was one request with a plain method name. */
  rpc?: string;
  /** The tool of a tools/call. */
  tool?: string;
  status: number;
  ms: number;
  timedOut: boolean;
  /** The connection closed before the answer was complete. */
  aborted: boolean;
  /** Who it was served for (hosted: userOf's name), once authenticated. */
  user?: string;
  /** Admitted (hosted POSTs): ms waiting for a slot (on arrival and back from I/O) and out on I/O. */
  waited?: { queuedMs: number; ioMs: number };
}

export interface HttpObserver {
  /** A request begins: `run` wraps its serving (a per-request context, say), `end` hears how it ended. */
  begin(req: IncomingMessage, res: ServerResponse): { run<T>(serve: () => Promise<T>): Promise<T>; end(served: ServedRequest): void };
  /** Every tool call as it ends (mcp/server.ts). */
  onToolCall?: BuildOptions['onToolCall'];
}

export interface HostedRouting {
  /** Browser origins allowed on the MCP endpoints, exactly; a request without Origin passes. */
  origins: readonly string[];
  /** MCP endpoints served beside `path` (the read-only endpoint), authenticated the same way. */
  paths?: readonly string[];
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
  /** The order POSTs to the endpoint are set to work in (http-admission.ts); undefined: all at once. */
  admission?: Admission;
  /** Tools whose calls are let in ahead of others (the writes to YNAB: most of their time is waits away from the loop). */
  firstIn?: (tool: string) => boolean;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;

/** The options checked, with their defaults. */
export interface HttpSettings {
  host: string;
  path: string;
  token: string | undefined;
  hosted: HostedRouting | undefined;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  origins: string[];
  readiness: Readiness | undefined;
  /** The log, scrubbed of the token. */
  log: ((line: string) => void) | undefined;
  observer: HttpObserver | undefined;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}

export function httpSettings(state: ServerState | undefined, opts: HttpServeOptions): HttpSettings {
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
  return { host, path, token, hosted, maxBodyBytes, requestTimeoutMs, headersTimeoutMs, origins, log, readiness: opts.readiness, observer: opts.observer };
}
