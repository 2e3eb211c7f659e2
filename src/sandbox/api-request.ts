/**
 * One request below /v1 as it reaches the sandbox, in the service's order: the bearer token
 * (401), the token's hourly limit (429), an injected fault (--faults: an error, a reset, a slow
 * or lost answer), then the operation itself (api-router.ts). Apart from the routing (requests.ts)
 * because this is where the sandbox behaves like the service under load and failure.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answers } from './answers.js';
import { errorAnswer, runOperation, type ApiAnswer } from './api-router.js';
import { ApiError } from './errors.js';
import type { FaultInjector } from './faults.js';
import type { RateLimiter } from './rate-limit.js';
import type { SandboxState } from './state.js';
import type { TokenRegistry } from './tokens.js';

export interface ApiRequestDeps {
  state: SandboxState;
  tokens: TokenRegistry;
  limiter: RateLimiter;
  faults: FaultInjector;
  /** Requests running longer end with 503. */
  requestTimeoutMs: number;
  /** Refuse request bodies with fields the API does not define. */
  strict: boolean | undefined;
  answers: Answers;
  log: (line: string) => void;
}

/** The token of `Authorization: Bearer`, else of `?access_token=` (as the service accepts it). */
function bearerOf(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return m ? m[1] : undefined;
  }
  return url.searchParams.get('access_token') ?? undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function apiRequests(deps: ApiRequestDeps) {
  const { tokens, limiter, faults, requestTimeoutMs, answers, log } = deps;
  const { send } = answers;

  return async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<void> {
    const auth = tokens.authenticate(bearerOf(req, url));
    if (!auth.ok) {
      send(
        res,
        { status: 401, body: new ApiError('not_authorized', auth.detail).body() },
        { 'www-authenticate': 'Bearer realm="sandbox", error="invalid_token"' },
      );
      return;
    }
    const taken = limiter.take(auth.grant.id);
    if (!taken.ok) {
      const detail = `rate limit of ${limiter.limit} requests per hour exceeded; retry in ${taken.retryAfterSeconds} seconds`;
      send(res, { status: 429, body: new ApiError('too_many_requests', detail).body() }, { 'retry-after': String(taken.retryAfterSeconds) });
      return;
    }
    const rateHeader = { 'x-rate-limit': `${taken.used}/${limiter.limit}` };
    const fault = faults.decide();
    if (fault === '500' || fault === '503') {
      const name = fault === '500' ? 'internal_server_error' : 'service_unavailable';
      send(res, { status: Number(fault), body: new ApiError(name, 'injected fault').body() }, rateHeader);
      return;
    }
    if (fault === 'echo-auth') {
      const detail = `injected fault; the request carried Authorization: ${req.headers.authorization ?? '(none)'}`;
      send(res, { status: 500, body: new ApiError('internal_server_error', detail).body() }, rateHeader);
      return;
    }
    if (fault === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault === 'slow') {
      const fraction = faults.slowFraction();
      if (fraction > 1) {
        await sleep(requestTimeoutMs);
        send(
          res,
          { status: 503, body: new ApiError('service_unavailable', `the request took longer than ${requestTimeoutMs / 1000} seconds`).body() },
          rateHeader,
        );
        return;
      }
      await sleep(Math.round(fraction * requestTimeoutMs));
    }
    let answer: ApiAnswer;
    try {
      answer = runOperation(
        deps.state,
        { method: req.method ?? 'GET', path: url.pathname.slice(3), query: url.searchParams, body, token: auth.info },
        { strictBodies: deps.strict },
      );
    } catch (e) {
      answer = errorAnswer(e, log);
    }
    if (fault === 'silent') {
      // The change was applied; the connection drops before any of the answer is sent.
      req.socket.destroy();
      return;
    }
    // 'reset-after': the change was applied; the answer is lost on its way back, after its status line.
    send(res, answer, rateHeader, fault === 'reset-after');
  };
}
