/**
 * Runs one operation of a request below /v1, once api-request.ts has authenticated it, counted it
 * against the token's hourly limit and decided on any injected fault: find the operation in the
 * operations table, check scope, parse the query and body against the table's schemas, run the
 * handler, and name the response members for the era that was asked (/plans or /budgets).
 */
import { memberName } from '../api/operations/index.js';
import { matchPath } from '../api/paths.js';
import { parseWireQuery, type QueryName } from '../api/query.js';
import { describeIssues } from '../api/issues.js';
import { requestBodySchema } from './body-schemas.js';
import { ApiError, badRequest } from './errors.js';
import type { FaultDecision } from './faults.js';
import { HANDLERS } from './handlers/index.js';
import type { RequestContext } from './handlers/context.js';
import { resolveBudget, type SandboxState, type TokenInfo } from './state.js';
import type { BudgetStore } from './store/budget-store.js';

export interface ApiRequest {
  method: string;
  /** Path below /v1, e.g. `/budgets/last-used/accounts`. */
  path: string;
  query: URLSearchParams;
  /** Raw body text ('' when none). */
  body: string;
  token: TokenInfo;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A budget-scoped handler reads `ctx.budget`; for other operations touching it is a bug. */
const NO_BUDGET = new Proxy({} as BudgetStore, {
  get() {
    throw new Error('sandbox: this operation is not scoped to a budget');
  },
});

function parseQuery(names: readonly QueryName[], query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const raw = query.get(name);
    if (raw === null || raw === '') continue;
    const parsed = parseWireQuery(name, raw);
    if (!parsed.ok) throw badRequest(parsed.error);
    out[name] = parsed.value;
  }
  return out;
}

function parseBody(text: string): unknown {
  if (!text.trim()) throw badRequest('a JSON request body is required');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body is not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
}

export interface RunOptions {
  /** Refuse unknown body fields with a 400 (`--strict`) instead of ignoring them as the service does. */
  strictBodies?: boolean;
}

/** Runs the operation. Throws ApiError for answers other than success. */
export function runOperation(state: SandboxState, req: ApiRequest, options: RunOptions = {}): ApiAnswer {
  const found = matchPath(req.method, req.path);
  if (found.kind === 'none') throw new ApiError('not_found', `no such endpoint: ${req.method} /v1${req.path}`);
  if (found.kind === 'method_not_allowed') {
    throw new ApiError('not_found', `no such endpoint: ${req.method} /v1${req.path} (this path accepts ${found.allowed.join(', ')})`);
  }
  const { op, era, params } = found.match;
  if (op.access === 'write' && req.token.scope === 'read-only') {
    throw new ApiError('unauthorized_scope', 'this access token has read-only scope and cannot change the budget');
  }
  // Each era answers by its own description: a parameter the /budgets era did not know is ignored there.
  const legacy = era === 'budgets' ? op.legacy : undefined;
  const query = parseQuery(legacy?.query ?? op.query, req.query);
  let body: unknown;
  if (op.body) {
    const parsed = requestBodySchema(op.body, options.strictBodies === true).safeParse(parseBody(req.body));
    if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues));
    body = parsed.data;
  }
  const handler = HANDLERS[op.id];
  if (!handler) throw new ApiError('internal_server_error', `operation ${op.id} has no handler`);
  const budget = op.scope === 'budget' ? resolveBudget(state, params.budget_id!, req.token) : NO_BUDGET;
  const ctx: RequestContext = { state, op, era, params, query, body, token: req.token, budget };
  const result = handler(ctx);
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result.data)) data[memberName(op, key, era)] = value;
  return { status: result.status ?? legacy?.status ?? op.status, body: { data } };
}

export function errorAnswer(e: unknown, log: (line: string) => void): ApiAnswer {
  if (e instanceof ApiError) return { status: e.status, body: e.body(), headers: e.headers };
  log(`sandbox: unexpected error: ${(e as Error)?.stack ?? String(e)}`);
  return { status: 500, body: new ApiError('internal_server_error', 'an unexpected error occurred').body() };
}

export type { FaultDecision };
