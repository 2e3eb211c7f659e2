/**
 * One HTTP request to the MCP server (http.ts), through its checks in this order: /healthz and
 * /readyz answered first, with no check (http-health.ts); during a drain, 503; Host (DNS
 * rebinding) → 403, unless hosted; Origin (browser pages) → 403 (hosted: on its MCP endpoints,
 * against its own list; its OAuth routes serve clients from any origin); the endpoint path → 404 (hosted
 * mode's own routes first); a method other than POST → 405 with Allow (http-methods.ts); the
 * bearer token, or hosted mode's authentication → 401 (hosted: a POST first waits its turn, http-admission.ts); then the body, read under its size limit
 * (413, http-body.ts), and the SDK handler under a deadline (http-deadline.ts). Every request is logged in one line when there is a log (never its
 * headers), and what throws ends in a 500 or a cut connection, never a crash.
 * Kept apart from the server's setup so that the guard order reads in one place.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { jsonBody, readBody } from './http-body.js';
import type { LegacyServerFor } from './http-direct-answers.js';
import { answerWithin, type Exchange, toolOf } from './http-deadline.js';
import { answerHealth, endListenOnDrain, refuseDraining, type Drain } from './http-health.js';
import { bearerToken, exactOriginCheck, hostAllowed, originCheck, tokenMatches, type hostAllowList } from './http-guards.js';
import { refuseMethod, methodServed } from './http-methods.js';
import type { HttpSettings } from './http-options.js';
import type { UserScopedBus } from './scoped-bus.js';

export interface RequestDeps {
  settings: HttpSettings;
  /** The Host values accepted: known once the server is bound (its port). */
  hosts: () => ReturnType<typeof hostAllowList>;
  /** The SDK's handler, with session ids. */
  served: FetchLikeMcpHandler;
  /** The server for a 2025-era call answered whole straight from node:http (http-direct-answers.ts). */
  direct?: LegacyServerFor;
  /** Hosted: each listen stream belongs to the user who opened it. */
  bus: UserScopedBus | undefined;
  /** The graceful drain: refuses new requests once started, and counts those in flight. */
  drain: Drain;
}

/** The MCP endpoint, or (hosted) one of the endpoints beside it. */
function isEndpoint(settings: HttpSettings, pathname: string): boolean {
  return pathname === settings.path || (settings.hosted?.paths ?? []).includes(pathname);
}

export function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function serve(deps: RequestDeps, req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void> {
  const { hosted, path, origins, readiness } = deps.settings;
  // Before the Host, Origin and token checks: probes come by address and carry nothing (http-health.ts).
  if (await answerHealth(req, res, deps.drain, readiness)) return;
  deps.drain.track(res);
  if (deps.drain.draining) return refuseDraining(res);
  const pathname = (req.url ?? '/').split('?')[0]!;
  const endpoint = isEndpoint(deps.settings, pathname);
  if (!hosted) {
    if (!hostAllowed(req.headers.host, deps.hosts())) return reject(res, 403, 'Forbidden: this Host is not allowed (DNS rebinding protection)');
    const origin = originCheck(req.headers.origin, origins);
    if (!origin.ok) return reject(res, 403, `Forbidden: ${origin.message}`);
  } else if (endpoint) {
    // The 2025-11-25 transport: a present Origin that is not allowed is refused, hosted or not.
    const origin = exactOriginCheck(req.headers.origin, hosted.origins);
    if (!origin.ok) return reject(res, 403, `Forbidden: ${origin.message}`);
  }
  if (!endpoint) {
    if (hosted && (await hosted.route(req, res))) return;
    return reject(res, 404, `Not found: the MCP endpoint is ${path}`);
  }
  if (!methodServed(req.method)) return refuseMethod(req, res);
  if (hosted?.admission && req.method === 'POST') {
    // The body first, under its limit (it holds no slot, and touches neither Redis nor YNAB): a
    // call that writes to YNAB is let in ahead of reads (http-admission.ts). Then the turn, before
    // authentication, which reads Redis: the queue orders every step that does.
    const body = await readBody(req, res, deps.settings.maxBodyBytes);
    if (!body) return;
    // Parsed here only when small (a call's name is all the queue needs, and a write's body is a
    // few kB): a large body is parsed after its token is checked, as before, and queues as a read.
    const read = { body, parsed: body.length <= PEEK_BYTES ? jsonBody(body) : undefined };
    const turn = await hosted.admission.enter(writesToYnab(read.parsed, hosted.firstIn));
    exchange.waited = turn.waited;
    if (res.destroyed || req.socket.destroyed) return turn(); // the client left while it waited
    // The drain began while it waited: nothing of it has been served, so it is refused as a new
    // request is (503, Retry-After), for the load balancer to send to another instance, rather
    // than started on an instance about to close (whose drain could end before it did).
    if (deps.drain.draining) {
      turn();
      return refuseDraining(res);
    }
    res.once('close', turn);
    // Its work runs in its turn: its waits on YNAB and Redis hand the slot on (http-admission.ts).
    return turn.run(() => authorized(deps, req, res, exchange, read));
  }
  return authorized(deps, req, res, exchange);
}

/** The largest body parsed before its request queues (and before its token is checked). */
const PEEK_BYTES = 64 * 1024;

/** Whether a JSON-RPC body calls a tool `firstIn` names (hosted: one that writes to YNAB). */
function writesToYnab(parsed: unknown, firstIn: ((tool: string) => boolean) | undefined): boolean {
  if (!firstIn) return false;
  const tool = toolOf(parsed);
  return tool !== undefined && firstIn(tool);
}

/** The request from its authentication on: the token, the body (unless `read` already, parsed or not), the SDK's answer. */
async function authorized(
  deps: RequestDeps,
  req: IncomingMessage,
  res: ServerResponse,
  exchange: Exchange,
  read?: { body: Buffer; parsed: unknown },
): Promise<void> {
  const { hosted, token, log, requestTimeoutMs, maxBodyBytes } = deps.settings;
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
  // A body over the limit is answered 413 (a JSON-RPC error body, Connection: close) before
  // anything is parsed, and the rest of it read and thrown away (http-body.ts): there is no
  // request id to answer to yet, and the status is what HTTP clients surface.
  const body = read?.body ?? (await readBody(req, res, maxBodyBytes));
  if (!body) return;
  const parsed = read?.parsed !== undefined ? read.parsed : jsonBody(body);
  const answering = {
    handler: endListenOnDrain(deps.served, deps.drain, exchange),
    direct: deps.direct,
    ms: requestTimeoutMs,
    exchange,
    onerror: log ? (e: Error) => log(`http: ${e.message}`) : undefined,
  };
  const answer = () => answerWithin(answering, req, res, body, parsed);
  const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
  await (deps.bus && auth ? deps.bus.run(hosted!.userOf(auth), answer) : answer());
}

/** The node:http request listener: each request served as above, logged, and never left unanswered. */
export function requestListener(deps: RequestDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { log, path, observer, hosted } = deps.settings;
  return (req, res) => {
    const started = performance.now();
    const exchange: Exchange = { id: null };
    const observing = observer?.begin(req, res);
    if (observing || log) {
      res.on('close', () => {
        const endpoint = isEndpoint(deps.settings, (req.url ?? '/').split('?')[0]!);
        const ms = Math.round(performance.now() - started);
        if (observing) {
          const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
          const [rpc, tool] = exchange.rpc?.split(' ') ?? [];
          observing.end({
            method: req.method ?? 'GET',
            endpoint,
            rpc,
            tool,
            status: res.statusCode,
            ms,
            timedOut: exchange.timedOut === true,
            aborted: !res.writableFinished,
            user: hosted && auth ? hosted.userOf(auth) : undefined,
            waited: exchange.waited?.(),
          });
          return;
        }
        const what = [exchange.rpc, exchange.timedOut ? 'timed out' : undefined, res.writableFinished ? undefined : 'aborted'].filter(Boolean).join(', ');
        log!(`http: ${req.method} ${endpoint ? (req.url ?? '/').split('?')[0] : '(other path)'} ${res.statusCode} ${ms}ms${what ? ` (${what})` : ''}`);
      });
    }
    const serving = () => serve(deps, req, res, exchange);
    (observing ? observing.run(serving) : serving()).catch((e: unknown) => {
      log?.(`http: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) reject(res, 500, 'Internal server error');
      else res.destroy();
    });
  };
}
