/**
 * The sandbox's OAuth endpoints on app_url, as the service offers them:
 *  - GET  /oauth/authorize: approves at once (there is no one to ask) as the user named by
 *    `login=<email>` (the first user without it, as a login page would let a browser choose) and
 *    redirects to the loopback redirect_uri with `code` in the query (code grant) or the token in
 *    the fragment (implicit grant), echoing `state`;
 *  - POST /oauth/token: authorization_code and refresh_token grants, form data (or query);
 *  - POST /oauth/revoke: RFC 7009 revocation.
 * Errors are OAuth errors ({error, error_description}), never a crash.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TokenRegistry } from './tokens.js';

export interface OAuthClient {
  id: string;
  secret: string;
}

export interface OAuthResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface PendingCode {
  redirect_uri: string;
  scope: 'full' | 'read-only';
  expires_at: number;
  /** The user who approved. */
  user_id: string;
}

/** Who may sign in: each user's email, and the budget an OAuth grant defaults to. */
export interface OAuthUser {
  id: string;
  email: string;
  defaultBudgetId: string | null;
}

const CODE_TTL_MS = 10 * 60_000;

function json(status: number, body: unknown): OAuthResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }, body: JSON.stringify(body) };
}

const oauthError = (status: number, error: string, description: string) => json(status, { error, error_description: description });

function page(status: number, message: string): OAuthResponse {
  const escaped = message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<!doctype html><title>Authorization error</title><p>${escaped}</p>` };
}

/** Redirect URIs must be loopback addresses: the sandbox serves local apps and tests only. */
export function isLoopbackRedirect(uri: string): boolean {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && !u.hash;
  } catch {
    return false;
  }
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class OAuthServer {
  private readonly codes = new Map<string, PendingCode>();
  /** Told when a code is issued (with it) or used (null): pending codes are state, saved too. */
  onCode: (code: string, pending: PendingCode | null) => void = () => {};

  constructor(
    private readonly client: OAuthClient,
    private readonly tokens: TokenRegistry,
    private readonly users: () => readonly OAuthUser[],
    private readonly clock: () => number,
  ) {}

  /** Codes issued and not used yet, for saving. */
  pendingCodes(): [string, PendingCode][] {
    return [...this.codes];
  }

  restoreCodes(codes: readonly [string, PendingCode][]): void {
    for (const [code, pending] of codes) this.codes.set(code, pending);
  }

  private userById(id: string): OAuthUser | undefined {
    return this.users().find((u) => u.id === id);
  }

  authorize(query: URLSearchParams): OAuthResponse {
    const clientId = query.get('client_id');
    const redirectUri = query.get('redirect_uri');
    if (!clientId || !sameSecret(clientId, this.client.id)) return page(400, 'Unknown client_id: this application is not registered with the sandbox.');
    if (!redirectUri || !isLoopbackRedirect(redirectUri)) {
      return page(400, 'The redirect_uri must be an http loopback address (127.0.0.1, localhost or [::1]) without a fragment.');
    }
    const login = query.get('login');
    const user = login === null ? this.users()[0] : this.users().find((u) => u.email.toLowerCase() === login.trim().toLowerCase());
    if (!user) return page(400, `Unknown login: no sandbox user has the email ${login}.`);
    const state = query.get('state');
    const responseType = query.get('response_type');
    const scopeParam = query.get('scope') ?? '';
    const redirect = (params: Record<string, string>, inFragment: boolean): OAuthResponse => {
      const u = new URL(redirectUri);
      const p = new URLSearchParams(params);
      if (state !== null) p.set('state', state);
      if (inFragment) u.hash = p.toString();
      else for (const [k, v] of p) u.searchParams.set(k, v);
      return { status: 302, headers: { location: u.toString(), 'cache-control': 'no-store' }, body: '' };
    };
    if (responseType !== 'code' && responseType !== 'token') {
      return redirect({ error: 'unsupported_response_type', error_description: 'response_type must be "code" or "token"' }, false);
    }
    if (scopeParam !== '' && scopeParam !== 'read-only') {
      return redirect({ error: 'invalid_scope', error_description: 'scope must be empty or "read-only"' }, responseType === 'token');
    }
    const scope = scopeParam === 'read-only' ? 'read-only' : 'full';
    if (responseType === 'token') {
      const grant = this.tokens.issueOAuth(scope, false, user.id, user.defaultBudgetId);
      return redirect(
        { access_token: grant.access_token, token_type: 'bearer', expires_in: String(this.tokens.ttlSeconds), ...(scope === 'read-only' ? { scope } : {}) },
        true,
      );
    }
    const code = randomBytes(24).toString('base64url');
    const pending: PendingCode = { redirect_uri: redirectUri, scope, expires_at: this.clock() + CODE_TTL_MS, user_id: user.id };
    this.codes.set(code, pending);
    this.onCode(code, pending);
    return redirect({ code }, false);
  }

  token(params: URLSearchParams): OAuthResponse {
    const clientId = params.get('client_id') ?? '';
    const secret = params.get('client_secret') ?? '';
    if (!sameSecret(clientId, this.client.id) || !sameSecret(secret, this.client.secret)) {
      return oauthError(401, 'invalid_client', 'client authentication failed: unknown client_id or wrong client_secret');
    }
    const grantType = params.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = params.get('code') ?? '';
      const pending = this.codes.get(code);
      if (!pending) return oauthError(400, 'invalid_grant', 'the authorization code is not valid or was already used');
      this.codes.delete(code);
      this.onCode(code, null);
      if (this.clock() > pending.expires_at) return oauthError(400, 'invalid_grant', 'the authorization code has expired');
      if (params.get('redirect_uri') !== pending.redirect_uri) {
        return oauthError(400, 'invalid_grant', 'redirect_uri does not match the one used in the authorization request');
      }
      const user = this.userById(pending.user_id);
      if (!user) return oauthError(400, 'invalid_grant', 'the user who approved this code no longer exists');
      return this.tokenResponse(this.tokens.issueOAuth(pending.scope, true, user.id, user.defaultBudgetId));
    }
    if (grantType === 'refresh_token') {
      const result = this.tokens.refresh(params.get('refresh_token') ?? '');
      if ('error' in result) return oauthError(400, 'invalid_grant', result.error);
      return this.tokenResponse(result);
    }
    return oauthError(400, 'unsupported_grant_type', 'grant_type must be "authorization_code" or "refresh_token"');
  }

  revoke(params: URLSearchParams): OAuthResponse {
    const clientId = params.get('client_id') ?? '';
    const secret = params.get('client_secret') ?? '';
    if (!sameSecret(clientId, this.client.id) || !sameSecret(secret, this.client.secret)) {
      return oauthError(401, 'invalid_client', 'client authentication failed: unknown client_id or wrong client_secret');
    }
    const token = params.get('token');
    if (!token) return oauthError(400, 'invalid_request', 'token is required');
    this.tokens.revoke(token);
    return json(200, {});
  }

  private tokenResponse(grant: { access_token: string; refresh_token: string | null; scope: string }): OAuthResponse {
    return json(200, {
      access_token: grant.access_token,
      token_type: 'bearer',
      expires_in: this.tokens.ttlSeconds,
      refresh_token: grant.refresh_token,
      ...(grant.scope === 'read-only' ? { scope: 'read-only' } : {}),
    });
  }
}

/**
 * Form data from the body (urlencoded or JSON) merged over the query string, as the service accepts
 * both; client credentials may also come as HTTP Basic (RFC 6749 §2.3.1, which many OAuth client
 * libraries use by default and the service's Doorkeeper accepts).
 */
export function oauthParams(req: IncomingMessage, url: URL, body: string): URLSearchParams {
  const params = new URLSearchParams(url.searchParams);
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string' || typeof v === 'number') params.set(k, String(v));
    } catch {
      // An unparseable body simply contributes nothing; the missing fields are reported.
    }
  } else {
    for (const [k, v] of new URLSearchParams(body)) params.set(k, v);
  }
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '');
  if (basic) {
    const pair = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    if (colon >= 0) {
      params.set('client_id', decode(pair.slice(0, colon)));
      params.set('client_secret', decode(pair.slice(colon + 1)));
    }
  }
  return params;
}
