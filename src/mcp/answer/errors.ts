/**
 * Every failure a tool can meet, as a message that says what happened and what to do next.
 * Messages pass through the client's scrubber, so no token can reach a result.
 */
import { DEFAULT_BASE_URL } from '../../api/client/base-url.js';
import {
  ApiError,
  ConfigError,
  InvalidArgumentError,
  NetworkError,
  PartialWriteError,
  QuotaExhaustedError,
  ReadOnlyError,
  UncertainWriteError,
  UnsupportedChangeError,
} from '../../api/client/errors.js';
import { StateStoreError } from '../../storage/store.js';
import { CreateRecordsBusyError } from '../../sync/create-records.js';
import { StepError } from '../../writes/pipeline/steps.js';
import { ConfirmRefusedError } from '../../writes/pipeline/confirm-tokens.js';
import { UndoConflictError } from '../../writes/undo/undo.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { OutputTooLargeError } from '../output/builder.js';
import { PagingError } from '../../shared/paging.js';
import { NoTokenError, type ServerState } from '../state/state.js';
import type { ToolDefinition } from '../tools/definitions.js';

const DEFAULT_API_HOST = new URL(DEFAULT_BASE_URL).host;

/** A default budget that came from the server's configuration, for errors about it. */
export interface ConfiguredBudget {
  value: string;
  from: string;
}

/**
 * The configured default budget when `args` used it and it has not been seen to exist (no copy
 * of it is held): a 404 then most likely means the setting is wrong, not an id in the arguments.
 */
export async function configuredBudgetOf(state: ServerState, def: ToolDefinition, args: Record<string, unknown>): Promise<ConfiguredBudget | undefined> {
  const from = state.config.defaultBudgetFrom;
  if (!from || !def.budget || args.budget_id !== undefined) return undefined;
  const held = (await state.started())?.replicas.peek(state.config.defaultBudget);
  return held ? undefined : { value: state.config.defaultBudget, from };
}

/**
 * The one format of every invalid-arguments message, the SDK's own included: arguments that fail
 * their schema, and the checks of an argument's form that stand in for one (an id that cannot be
 * an id, a cursor or field this server never gave out).
 */
export function invalidArguments(tool: string, problems: string): string {
  return `Input validation error: Invalid arguments for tool ${tool}: ${problems}`;
}

/**
 * What a tool refused once its arguments had passed their schema, in the domain's words: the
 * budget's state does not allow it (Ready to Assign short, a month the budget does not have yet,
 * nothing to undo, a name it does not hold) or the arguments do not go together. Not "Input
 * validation error": the arguments may well be valid. A write says that nothing was changed.
 */
export function refusal(message: string, write: boolean): string {
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  return write && !/Nothing was changed/.test(message) ? `${sentence} Nothing was changed.` : sentence;
}

export function describeError(e: unknown, tool: string, write: boolean, configured?: ConfiguredBudget): string {
  if (e instanceof PagingError || e instanceof InvalidArgumentError) return invalidArguments(tool, e.message);
  if (e instanceof ArgumentError) return refusal(e.message, write);
  if (e instanceof UnsupportedChangeError) return `${e.message} Nothing was changed.`;
  if (e instanceof ConfirmRefusedError) return `${tool} was not applied: ${e.message}`;
  if (e instanceof UndoConflictError) return `Undo refused: ${e.message}${/Nothing was changed\.$/.test(e.message) ? '' : '. Nothing was changed.'}`;
  if (e instanceof StepError) return `${tool} could not finish: ${e.message}.`;
  if (e instanceof OutputTooLargeError) return `The answer of ${tool} is too large: ${e.message}`;
  if (e instanceof NoTokenError || e instanceof ConfigError) return e.message;
  if (e instanceof ReadOnlyError) return `${e.message}. Nothing was changed.`;
  if (e instanceof UncertainWriteError) return `Outcome unknown: ${e.message}.`;
  if (e instanceof PartialWriteError) return `Partly done: ${e.message}.`;
  if (e instanceof StateStoreError) return `ynab-mcp cannot use its state: ${e.message}${write ? ' Nothing was changed.' : ''}`;
  if (e instanceof CreateRecordsBusyError) return `${e.message}.`;
  if (e instanceof QuotaExhaustedError) return `No request to YNAB is possible right now: ${e.message}.${write ? ' Nothing was changed.' : ''}`;
  if (e instanceof NetworkError) {
    if (write && e.refused) {
      return `YNAB refused the change (${e.message}); it was not applied, and why was cut off with the connection. Try once more to see the reason.`;
    }
    if (write && e.sent)
      return `The connection to YNAB failed after the change was sent (${e.message}); it is not known whether it was applied. Check before retrying.`;
    const unchanged = write ? ' Nothing was changed.' : '';
    if (e.failure === 'tls') return `Could not connect to YNAB securely: ${e.message}.${unchanged}`;
    const next = e.message.includes(DEFAULT_API_HOST) ? 'Try again shortly.' : 'Check that address (--base-url or YNAB_BASE_URL), or try again shortly.';
    return `Could not reach YNAB: ${e.message}.${unchanged} ${next}`;
  }
  if (e instanceof ApiError && e.errorName === 'unexpected_response' && (e.status === 404 || e.status === 405)) {
    return `${e.detail}: that does not look like the YNAB API. Check the base URL (--base-url or YNAB_BASE_URL; YNAB's is ${DEFAULT_BASE_URL}).${write ? ' Nothing was changed.' : ''}`;
  }
  if (e instanceof ApiError && e.status === 404 && configured) {
    return (
      `The budget ${JSON.stringify(configured.value)} set by ${configured.from} (this server's configuration, checked at the first call that uses it) was not found (404). ` +
      `Set ${configured.from} to an id from list_budgets, or to "last-used"; or pass budget_id.`
    );
  }
  if (e instanceof ApiError) {
    switch (true) {
      case e.status === 400:
        return `YNAB refused the request (400 bad_request): ${e.detail}`;
      case e.status === 401:
        return 'YNAB did not accept the access token (401 not_authorized). Run "ynab-mcp login" to sign in again, or check YNAB_ACCESS_TOKEN.';
      case e.isReadOnlyScope:
        return 'YNAB refused the change: this token only has read-only access (403.3 unauthorized_scope). The server now works read-only; sign in with full access to make changes.';
      case e.errorId === '403.1':
        return "YNAB refused the request: the account's subscription has lapsed (403.1).";
      case e.errorId === '403.2':
        return "YNAB refused the request: the account's trial has expired (403.2).";
      case e.status === 403:
        return `YNAB refused the request (${e.errorId} ${e.errorName}): ${e.detail}`;
      case e.status === 404:
        return `Not found (${e.errorId} ${e.errorName}): ${e.detail}. The list tools give valid ids.`;
      case e.status === 409:
        return `Conflict (409): ${e.detail}`;
      case e.status === 429:
        return `YNAB's hourly request limit was reached (429); no more requests go out until the hour frees a slot.${e.retryAfterSeconds ? ` Retry in about ${Math.ceil(e.retryAfterSeconds / 60)} minutes.` : ''}`;
      default:
        return `YNAB had a problem (${e.status} ${e.errorName}): ${e.detail || 'no detail'}.${write ? ' Check whether the change was applied before retrying.' : ' Try again shortly.'}`;
    }
  }
  return `Internal error in ${tool}: ${(e as Error)?.message ?? String(e)}`;
}
