/**
 * What a handler receives and returns. Handlers are synchronous: each request runs to the end
 * before the next starts, so a write is atomic with respect to every other request.
 */
import type { Era, Operation } from '../../api/operations/index.js';
import type { SandboxState, TokenInfo } from '../state.js';
import type { BudgetStore } from '../store/budget-store.js';

export interface RequestContext {
  state: SandboxState;
  op: Operation;
  era: Era;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The body, already validated against the operation's schema. */
  body: unknown;
  token: TokenInfo;
  /** The resolved budget of a budget-scoped operation. */
  budget: BudgetStore;
}

export interface HandlerResult {
  status?: number;
  data: Record<string, unknown>;
}

export type Handler = (ctx: RequestContext) => HandlerResult;
