/**
 * What can go wrong talking to the service, as typed errors that carry what a caller needs to
 * decide and to explain: the status and error id/name/detail of an API error, whether a failed
 * write may have reached the server, and when the next request is possible.
 *
 * Messages never contain the token: details the server sends back are scrubbed of it (a server
 * that echoes a header must not be able to leak it through us; see scrub.ts).
 */

export class YnabError extends Error {
  override name = 'YnabError';
}

export class ApiError extends YnabError {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly errorId: string,
    readonly errorName: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${status} ${errorName}: ${detail}`);
  }

  get isReadOnlyScope(): boolean {
    return this.status === 403 && this.errorId === '403.3';
  }

  get isNotFound(): boolean {
    return this.status === 404;
  }
}

/** `tls`: the certificate or handshake was refused; trying again gives the same answer. */
export type NetworkFailure = 'connect' | 'timeout' | 'reset' | 'tls';

export class NetworkError extends YnabError {
  override name = 'NetworkError';
  constructor(
    readonly failure: NetworkFailure,
    /** The request was fully sent: a write may have been applied even though no answer came. */
    readonly sent: boolean,
    message: string,
    /**
     * The status the service answered with, when its status line arrived and the body was lost:
     * proof that the request reached it (a 2xx write was applied), which a lost answer otherwise lacks.
     */
    readonly answered?: number,
  ) {
    super(message);
  }

  /** The status line said the change was applied (2xx): only its details were lost. */
  get applied(): boolean {
    return this.answered !== undefined && this.answered >= 200 && this.answered < 300;
  }

  /** The status line said the change was refused (4xx): nothing was applied, only why was lost. */
  get refused(): boolean {
    return this.answered !== undefined && this.answered >= 400 && this.answered < 500;
  }
}

export class QuotaExhaustedError extends YnabError {
  override name = 'QuotaExhaustedError';
  constructor(
    readonly nextSlotAt: Date,
    message: string,
  ) {
    super(message);
  }
}

/** A write was sent, its answer was lost, and checking whether it happened failed too. */
export class UncertainWriteError extends YnabError {
  override name = 'UncertainWriteError';
}

/** Part of a batch was made and the rest definitively was not: the message names which is which. */
export class PartialWriteError extends YnabError {
  override name = 'PartialWriteError';
}

export class ReadOnlyError extends YnabError {
  override name = 'ReadOnlyError';
}

export class ConfigError extends YnabError {
  override name = 'ConfigError';
}

/**
 * An argument that cannot be sent as it is (an id with an unpaired surrogate, a path segment that
 * would change the request's path): refused before any request, naming the argument.
 */
export class InvalidArgumentError extends YnabError {
  override name = 'InvalidArgumentError';
  constructor(
    /** The argument as the caller named it: `budget_id`, `transactions[2].memo`. */
    readonly argument: string,
    message: string,
  ) {
    super(message);
  }
}

/** A change the API cannot make (or silently would not make): refused before anything is sent. */
export class UnsupportedChangeError extends YnabError {
  override name = 'UnsupportedChangeError';
}

// The one scrubber lives in its own module; it is re-exported here, where callers found it first.
export { scrub } from './scrub.js';
