/**
 * Access tokens from an OAuth grant. They last two hours and their refresh tokens are single
 * use, so refreshing is done exactly once for everyone who needs it:
 *  - in this process, concurrent callers share one refresh;
 *  - across processes (a desktop host and a coding agent on one grant), a lock file in the state
 *    directory serialises refreshes, and whoever takes the lock first re-reads the stored grant:
 *    if another process already refreshed, it uses that token instead of spending the refresh
 *    token a second time;
 *  - the new pair is stored before the new access token is used (its first use revokes the
 *    old refresh token at the service).
 * A refresh that fails, or an implicit-grant token that expired, ends with a clear message to
 * sign in again.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { request } from 'undici';
import type { TokenProvider } from '../api/client/client.js';
import { checkBaseUrl } from '../api/client/transport.js';
import { NoTokenError } from '../mcp/state.js';
import { ensurePrivateDir } from '../paths.js';
import type { SecretStore } from './secret-store.js';

/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export const SIGN_IN_AGAIN = 'The YNAB sign-in has expired or was revoked: run "ynab-mcp login --oauth" to sign in again.';

export interface OAuthTokenProvider extends TokenProvider {
  readonly scope: 'full' | 'read-only';
  /** A stable id of the grant (set at login), for saved replicas and locks. */
  readonly grantIdentity: string;
  expiresAt(): string | null;
  /** How many refreshes this process performed (for status and tests). */
  readonly refreshes: number;
}

export interface OAuthProviderOptions {
  store: Pick<SecretStore, 'get' | 'set' | 'delete'>;
  stateDir: string;
  now?: () => number;
  warn?: (line: string) => void;
}

interface Grant {
  access: string;
  refresh: string | null;
  expiresAt: number | null;
}

export class OAuthRefreshError extends NoTokenError {}

async function readGrant(store: OAuthProviderOptions['store']): Promise<Grant> {
  const access = await store.get('access_token');
  if (!access) throw new OAuthRefreshError(SIGN_IN_AGAIN);
  const expires = await store.get('token_expires_at');
  return { access, refresh: await store.get('refresh_token'), expiresAt: expires ? Date.parse(expires) : null };
}

/** POST {app_url}/oauth/token; the response is the standard token answer. */
export async function exchangeToken(appUrl: string, form: Record<string, string>): Promise<{ access_token: string; refresh_token?: string; expires_in?: number; scope?: string }> {
  const base = checkBaseUrl(appUrl);
  const res = await request(new URL('/oauth/token', base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const text = await res.body.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Reported below without the raw text, which could hold anything.
  }
  if (res.statusCode !== 200 || typeof body.access_token !== 'string') {
    const reason = typeof body.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `HTTP ${res.statusCode}`;
    throw new OAuthRefreshError(`the token endpoint refused (${reason})`);
  }
  return body as { access_token: string; refresh_token?: string; expires_in?: number; scope?: string };
}

export async function oauthProvider(opts: OAuthProviderOptions): Promise<OAuthTokenProvider> {
  const now = opts.now ?? Date.now;
  const store = opts.store;
  const clientId = await store.get('oauth_client_id');
  const appUrl = (await store.get('oauth_app_url')) ?? 'https://app.ynab.com';
  const scope = (await store.get('token_scope')) === 'read-only' ? 'read-only' : 'full';
  const grantIdentity = (await store.get('grant_id')) ?? clientId ?? 'oauth';
  let current = await readGrant(store);
  let refreshing: Promise<Grant> | undefined;
  let refreshes = 0;
  const lockDir = ensurePrivateDir(join(opts.stateDir, 'locks'));
  const lockTarget = join(lockDir, `oauth-${grantIdentity.replace(/[^0-9A-Za-z_-]/g, '_')}`);
  mkdirSync(lockTarget, { recursive: true, mode: 0o700 });

  const usable = (g: Grant) => g.expiresAt === null || now() < g.expiresAt - REFRESH_MARGIN_MS;

  /** Refreshes unless `failed` is no longer the current token (someone refreshed meanwhile). */
  const refresh = (failed: string | null): Promise<Grant> => {
    refreshing ??= (async () => {
      const release = await lockfile.lock(lockTarget, { retries: { retries: 100, minTimeout: 50, maxTimeout: 500 }, stale: 30_000, realpath: false });
      try {
        const stored = await readGrant(store);
        const changed = stored.access !== (failed ?? current.access);
        if (changed && usable(stored)) return stored;
        if (!stored.refresh) throw new OAuthRefreshError(SIGN_IN_AGAIN);
        const secret = await store.get('oauth_client_secret');
        if (!clientId || !secret) throw new OAuthRefreshError(`${SIGN_IN_AGAIN} (the OAuth client is not stored)`);
        let answer;
        try {
          answer = await exchangeToken(appUrl, { grant_type: 'refresh_token', refresh_token: stored.refresh, client_id: clientId, client_secret: secret });
        } catch (e) {
          throw new OAuthRefreshError(`${SIGN_IN_AGAIN} (${(e as Error).message})`);
        }
        const next: Grant = {
          access: answer.access_token,
          refresh: answer.refresh_token ?? null,
          expiresAt: now() + (answer.expires_in ?? 7200) * 1000,
        };
        // Store first: the first use of the new access token revokes the old refresh token.
        if (next.refresh) await store.set('refresh_token', next.refresh);
        else await store.delete('refresh_token');
        await store.set('token_expires_at', new Date(next.expiresAt!).toISOString());
        await store.set('access_token', next.access);
        refreshes += 1;
        return next;
      } finally {
        await release();
      }
    })()
      .then((g) => {
        current = g;
        return g;
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };

  return {
    scope,
    grantIdentity,
    get refreshes() {
      return refreshes;
    },
    expiresAt: () => (current.expiresAt === null ? null : new Date(current.expiresAt).toISOString()),
    async token() {
      if (usable(current)) return current.access;
      return (await refresh(null)).access;
    },
    async renewAfterUnauthorized(failed: string) {
      try {
        const g = await refresh(failed);
        return g.access !== failed;
      } catch (e) {
        if (e instanceof OAuthRefreshError) throw e;
        opts.warn?.(`ynab-mcp: could not refresh the OAuth token: ${(e as Error).message}`);
        return false;
      }
    },
  };
}
