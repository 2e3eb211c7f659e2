/**
 * The service's error table (spec, "Errors"): every error body is
 * `{"error":{"id","name","detail"}}`. Shared by the sandbox (to answer) and the client (to classify).
 */

export const API_ERRORS = {
  bad_request: { status: 400, id: '400', name: 'bad_request' },
  not_authorized: { status: 401, id: '401', name: 'not_authorized' },
  subscription_lapsed: { status: 403, id: '403.1', name: 'subscription_lapsed' },
  trial_expired: { status: 403, id: '403.2', name: 'trial_expired' },
  unauthorized_scope: { status: 403, id: '403.3', name: 'unauthorized_scope' },
  data_limit_reached: { status: 403, id: '403.4', name: 'data_limit_reached' },
  not_found: { status: 404, id: '404.1', name: 'not_found' },
  resource_not_found: { status: 404, id: '404.2', name: 'resource_not_found' },
  conflict: { status: 409, id: '409', name: 'conflict' },
  too_many_requests: { status: 429, id: '429', name: 'too_many_requests' },
  internal_server_error: { status: 500, id: '500', name: 'internal_server_error' },
  service_unavailable: { status: 503, id: '503', name: 'service_unavailable' },
} as const;

export type ApiErrorName = keyof typeof API_ERRORS;

export interface ErrorBody {
  error: { id: string; name: string; detail: string };
}

export function errorBody(name: ApiErrorName, detail: string): ErrorBody {
  const e = API_ERRORS[name];
  return { error: { id: e.id, name: e.name, detail } };
}
