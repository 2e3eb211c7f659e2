/**
 * Health, readiness and the graceful drain of the HTTP server (http.ts), for load balancers and
 * orchestrators:
 *  - `GET /healthz`: the process is up and serving HTTP (200 `{"status":"ok"}`, also while
 *    draining: a liveness probe must not get a draining process killed early).
 *  - `GET /readyz`: the server can take work: 200 `{"status":"ready"}`, or 503 with the reason
 *    (`draining`, or what the `readiness` check said, e.g. Redis does not answer).
 *  Neither needs a token nor passes the Host and Origin checks: a load balancer calls them by the
 *  instance's address, whatever Host it sends, and both answer a fixed status and nothing about
 *  the server's users or budgets, so a DNS-rebound page or a stranger learns only "up" or "not
 *  ready". Only GET and HEAD; never cached.
 *
 * The drain (`Drain`): from its start every new request other than these two is refused with 503,
 * `Retry-After` and `Connection: close` (nothing of it is served, so a load balancer may send it to
 * another instance), open listen streams are ended (their clients reconnect through the load
 * balancer, to another instance), and requests already in flight finish. It is over once none is
 * in flight and none has arrived for QUIET_MS, counted from the start at the earliest (the load
 * balancer has noticed and stopped sending here; closing the listener sooner would turn its last
 * requests into refused connections), or at the limit the caller gives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import type { Exchange } from './http-deadline.js';

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

/** Seconds a refused client is told to wait: by then the load balancer has noticed the drain. */
export const RETRY_AFTER_S = 5;

/** Time without requests after which a drain with nothing in flight is over. */
export const QUIET_MS = 1_000;

/** What a readiness check says: undefined when ready, else why not (shown in the 503). */
export type Readiness = () => Promise<string | undefined>;

export interface DrainOutcome {
  /** Requests still in flight when the drain ended (cut by the close that follows). */
  cut: number;
  ms: number;
}

export class Drain {
  private active = 0;
  private lastActivity = 0;
  private started: number | undefined;
  private readonly stop = new AbortController();
  private wake: (() => void) | undefined;

  get draining(): boolean {
    return this.started !== undefined;
  }

  /** Aborted when the drain starts: listen streams are forwarded with it, so they end then. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Counts a request (served or refused) until its response closes. */
  track(res: ServerResponse): void {
    this.active++;
    this.lastActivity = performance.now();
    res.once('close', () => {
      this.active--;
      this.lastActivity = performance.now();
      this.wake?.();
    });
  }

  /** Starts the drain and resolves when it is over, or after `maxMs` with what was still in flight. */
  async run(maxMs: number): Promise<DrainOutcome> {
    if (this.started === undefined) {
      this.started = performance.now();
      // The start counts as activity: a load balancer gets QUIET_MS to see /readyz turn 503
      // before the listener goes, even when nothing was in flight.
      this.lastActivity = this.started;
    }
    this.stop.abort();
    const deadline = this.started + maxMs;
    for (;;) {
      const now = performance.now();
      if (now >= deadline) break;
      const quietFor = now - this.lastActivity;
      if (this.active === 0 && quietFor >= QUIET_MS) break;
      const wait = Math.min(deadline - now, this.active === 0 ? QUIET_MS - quietFor : deadline - now);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, wait));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return { cut: this.active, ms: Math.round(performance.now() - this.started) };
  }
}

function answer(res: ServerResponse, status: number, body: Record<string, string>, head: boolean): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(head ? undefined : JSON.stringify(body));
}

/** Answers /healthz and /readyz; false for any other path. */
export async function answerHealth(req: IncomingMessage, res: ServerResponse, drain: Drain, readiness: Readiness | undefined): Promise<boolean> {
  const pathname = (req.url ?? '/').split('?')[0];
  if (!(HEALTH_PATHS as readonly string[]).includes(pathname!)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' });
    res.end();
    return true;
  }
  const head = req.method === 'HEAD';
  if (pathname === '/healthz') {
    answer(res, 200, { status: 'ok' }, head);
    return true;
  }
  // Draining is asked again after the readiness check: a drain that began while it awaited Redis
  // must not be answered "ready".
  const checked = drain.draining ? undefined : await readiness?.();
  const reason = drain.draining ? 'draining' : checked;
  if (reason) answer(res, 503, { status: 'not ready', reason }, head);
  else answer(res, 200, { status: 'ready' }, head);
  return true;
}

/** The answer to a request that arrives during the drain. */
export function refuseDraining(res: ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_S), connection: 'close' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'This server instance is shutting down; retry shortly (another instance will answer).' },
      id: null,
    }),
  );
}

/**
 * Listen streams (`subscriptions/listen`, known from `exchange` once the deadline wrapper has read
 * the body) are forwarded with the drain's signal as well, so the SDK ends them when the drain
 * starts, as it does when their client hangs up. Other requests run to their end.
 */
export function endListenOnDrain(handler: FetchLikeMcpHandler, drain: Drain, exchange: Exchange): FetchLikeMcpHandler {
  return {
    fetch(request, options) {
      if (exchange.rpc !== 'subscriptions/listen') return handler.fetch(request, options);
      return handler.fetch(new Request(request, { signal: AbortSignal.any([request.signal, drain.signal]) }), options);
    },
  };
}
