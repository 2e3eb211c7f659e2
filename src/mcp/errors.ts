/**
 * Every failure a tool can meet, as a message that says what happened and what to do next.
 * Messages pass through the client's scrubber, so no token can reach a result.
 */
import { ApiError, ConfigError, InvalidArgumentError, NetworkError, QuotaExhaustedError, ReadOnlyError, UncertainWriteError, UnsupportedChangeError } from '../api/client/errors.js';
import { StateStoreError } from '../storage/store.js';
import { JournalBusyError } from '../sync/journal.js';
import { StepError } from '../writes/steps.js';
import { ConfirmRefusedError } from '../writes/tokens.js';
import { UndoConflictError } from '../writes/undo.js';
import { ArgumentError } from './tools/args.js';
import { OutputTooLargeError } from './output/builder.js';
import { PagingError } from './output/page.js';
import { NoTokenError } from './state.js';

export function describeError(e: unknown, tool: string, write: boolean): string {
  if (e instanceof ArgumentError || e instanceof PagingError || e instanceof InvalidArgumentError) return `Invalid arguments for ${tool}: ${e.message}`;
  if (e instanceof UnsupportedChangeError) return `${e.message} Nothing was changed.`;
  if (e instanceof ConfirmRefusedError) return `${tool} was not applied: ${e.message}`;
  if (e instanceof UndoConflictError) return `Undo refused: ${e.message}${/Nothing was changed\.$/.test(e.message) ? '' : '. Nothing was changed.'}`;
  if (e instanceof StepError) return `${tool} could not finish: ${e.message}.`;
  if (e instanceof OutputTooLargeError) return `The answer of ${tool} is too large: ${e.message}`;
  if (e instanceof NoTokenError || e instanceof ConfigError) return e.message;
  if (e instanceof ReadOnlyError) return `${e.message}. Nothing was changed.`;
  if (e instanceof UncertainWriteError) return `Outcome unknown: ${e.message}.`;
  if (e instanceof StateStoreError) return `ynab-mcp cannot use its state: ${e.message}${write ? ' Nothing was changed.' : ''}`;
  if (e instanceof JournalBusyError) return `${e.message}.`;
  if (e instanceof QuotaExhaustedError) return `No request to YNAB is possible right now: ${e.message}.${write ? ' Nothing was changed.' : ''}`;
  if (e instanceof NetworkError) {
    if (write && e.sent) return `The connection to YNAB failed after the change was sent (${e.message}); it is not known whether it was applied. Check before retrying.`;
    return `Could not reach YNAB: ${e.message}.${write ? ' Nothing was changed.' : ' Try again shortly.'}`;
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
        return 'YNAB refused the request: the account\'s subscription has lapsed (403.1).';
      case e.errorId === '403.2':
        return 'YNAB refused the request: the account\'s trial has expired (403.2).';
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
