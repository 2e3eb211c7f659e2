/**
 * The OAuth token endpoint, POST {app_url}/oauth/token: exchanges an authorization code (login)
 * or a refresh token (the provider) for a token answer.
 *
 * Failures say whether the service refused (the code or refresh token is no good: sign in again)
 * or could not be used (network, 5xx, 429: try again later, keep what is stored). The distinction
 * matters for refreshes: a passing outage must not send the user through a new sign-in.
 */
import { Pool } from '../api/client/http.js';
import { checkBaseUrl } from '../api/client/transport.js';
import { describeError } from './secret-common.js';

export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

export class TokenEndpointError extends Error {
  constructor(
    message: string,
    /** True when the service refused the grant; false when it could not be reached or failed. */
    readonly refused: boolean,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 30_000;

/** Text the service sent, cut short and stripped of anything we sent (it must never echo a secret to the user). */
function clean(text: string, form: Record<string, string>): string {
  return describeError(
    text,
    Object.values(form).filter((v) => v.length >= 8),
  );
}

export async function exchangeToken(appUrl: string, form: Record<string, string>): Promise<TokenAnswer> {
  const url = new URL('/oauth/token', checkBaseUrl(appUrl));
  let status: number;
  let text: string;
  // A pool of one connection for this one exchange (undici's bare `request` would load all of undici: http.ts).
  const pool = new Pool(url.origin, { connections: 1 });
  try {
    const res = await pool.request({
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    status = res.statusCode;
    text = await res.body.text();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new TokenEndpointError(`could not reach ${url.origin} (${typeof code === 'string' ? code : clean((e as Error).message ?? 'error', form)})`, false);
  } finally {
    void pool.close().catch(() => undefined);
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Reported below without the raw text, which could hold anything.
  }
  if (status === 200 && typeof body.access_token === 'string' && body.access_token !== '') {
    return {
      access_token: body.access_token,
      refresh_token: typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : undefined,
      expires_in: typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : undefined,
      scope: typeof body.scope === 'string' ? body.scope : undefined,
    };
  }
  const reason =
    typeof body.error === 'string'
      ? clean(`${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}`, form)
      : `HTTP ${status}`;
  // 400/401/403 are the service's word on the grant itself; anything else is the service failing.
  const refused = status === 400 || status === 401 || status === 403;
  throw new TokenEndpointError(refused ? `the token endpoint refused (${reason})` : `the token endpoint failed (${reason})`, refused);
}
