/**
 * An error the sandbox answers with: one of the service's error table entries plus a specific
 * detail saying what was wrong and what is expected.
 */
import { API_ERRORS, errorBody, type ApiErrorName, type ErrorBody } from '../api/errors.js';

export class ApiError extends Error {
  constructor(
    readonly errorName: ApiErrorName,
    readonly detail: string,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  get status(): number {
    return API_ERRORS[this.errorName].status;
  }

  body(): ErrorBody {
    return errorBody(this.errorName, this.detail);
  }
}

export const badRequest = (detail: string) => new ApiError('bad_request', detail);
export const resourceNotFound = (detail: string) => new ApiError('resource_not_found', detail);
export const conflict = (detail: string) => new ApiError('conflict', detail);
