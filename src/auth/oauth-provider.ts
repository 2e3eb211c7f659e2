/**
 * Access tokens from an OAuth grant. They last two hours and their refresh tokens are single
 * use, so refreshing is done exactly once for everyone who needs it:
 *  - in this process, concurrent callers share one refresh;
 *  - across processes (a desktop host and a coding agent on one grant), a lock of the state store
 *    (`locks/oauth-<grant>.lock` in the state directory) serialises refreshes, and whoever takes
 *    the lock first re-reads the stored grant:
 *    if another process already refreshed, it uses that token instead of spending the refresh
 *    token a second time;
 *  - the new pair is stored before the new access token is used (its first use revokes the
 *    old refresh token at the service).
 * A refresh the service refuses, or an implicit-grant token that expired, ends with a clear
 * message to sign in again; a token endpoint that cannot be reached keeps the grant and says to
 * try again (an outage must not force a new sign-in).
 */
import type { TokenProvider } from '../api/client/client.js';
import { FileStateStore } from '../storage/file-store.js';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import { NoTokenError } from './session.js';
import { storedGrantIdentity } from './credentials.js';
import type { SecretStore } from './secret-store.js';
import { exchangeToken, TokenEndpointError } from './token-endpoint.js';

export { exchangeToken } from './token-endpoint.js';

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
  /** Where the refresh lock is taken; default a file store on `stateDir`. */
  state?: StateStore;
  now?: () => number;
  warn?: (line: string) => void;
  /** What to tell the user when the grant is gone (hosted mode: the assistant signs in again). */
  signInAgain?: string;
  /**
   * Told how each refresh ended: 'refreshed' (a new token from YNAB), 'reused' (another process
   * or instance had just refreshed), 'refused' (the grant is gone) or 'unavailable'. For metrics.
   */
  onRefresh?: (outcome: 'refreshed' | 'reused' | 'refused' | 'unavailable') => void;
}

interface Grant {
  access: string;
  refresh: string | null;
  expiresAt: number | null;
}

/** The grant is gone (refused, revoked, expired without a refresh token): the user must sign in again. */
export class OAuthRefreshError extends NoTokenError {}

/** The token endpoint could not be used just now; the stored grant is kept and a later call retries. */
export class OAuthUnavailableError extends NoTokenError {}

async function readGrant(store: OAuthProviderOptions['store'], signInAgain: string): Promise<Grant> {
  const access = await store.get('access_token');
  if (!access) throw new OAuthRefreshError(signInAgain);
  const expires = await store.get('token_expires_at');
  return { access, refresh: await store.get('refresh_token'), expiresAt: expires ? Date.parse(expires) : null };
}

export async function oauthProvider(opts: OAuthProviderOptions): Promise<OAuthTokenProvider> {
  const now = opts.now ?? Date.now;
  const store = opts.store;
  const signInAgain = opts.signInAgain ?? SIGN_IN_AGAIN;
  const clientId = await store.get('oauth_client_id');
  const appUrl = (await store.get('oauth_app_url')) ?? 'https://app.ynab.com';
  const scope = (await store.get('token_scope')) === 'read-only' ? 'read-only' : 'full';
  const grantIdentity = await storedGrantIdentity(store);
  let current = await readGrant(store, signInAgain);
  let refreshing: Promise<Grant> | undefined;
  let refreshes = 0;
  const state = opts.state ?? new FileStateStore(opts.stateDir, { warn: opts.warn });
  const lockName = `oauth-${segment(grantIdentity)}`;

  const usable = (g: Grant) => g.expiresAt === null || now() < g.expiresAt - REFRESH_MARGIN_MS;
  // An implicit-grant token cannot be refreshed, so refreshing early gains nothing: use it until it expires.
  const lastResort = (g: Grant) => g.refresh === null && g.expiresAt !== null && now() < g.expiresAt;

  /** Refreshes unless `failed` is no longer the current token (someone refreshed meanwhile). */
  const refresh = (failed: string | null): Promise<Grant> => {
    const before = refreshes;
    refreshing ??= state
      .withLock(lockName, async () => {
        const stored = await readGrant(store, signInAgain);
        const changed = stored.access !== (failed ?? current.access);
        if (changed && usable(stored)) return stored;
        if (!stored.refresh) {
          if (lastResort(stored) && stored.access !== failed) return stored;
          throw new OAuthRefreshError(signInAgain);
        }
        const secret = await store.get('oauth_client_secret');
        if (!clientId || !secret) throw new OAuthRefreshError(`${signInAgain} (the OAuth client is not stored)`);
        let answer;
        try {
          answer = await exchangeToken(appUrl, { grant_type: 'refresh_token', refresh_token: stored.refresh, client_id: clientId, client_secret: secret });
        } catch (e) {
          if (e instanceof TokenEndpointError && !e.refused) {
            throw new OAuthUnavailableError(`Could not refresh the YNAB sign-in just now: ${e.message}. The stored sign-in is kept; try again shortly.`);
          }
          throw new OAuthRefreshError(`${signInAgain} (${(e as Error).message})`);
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
      })
      .then(
        (g) => {
          current = g;
          opts.onRefresh?.(refreshes > before ? 'refreshed' : 'reused');
          return g;
        },
        (e: unknown) => {
          opts.onRefresh?.(e instanceof OAuthRefreshError ? 'refused' : 'unavailable');
          throw e;
        },
      )
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
      if (usable(current) || lastResort(current)) return current.access;
      return (await refresh(null)).access;
    },
    async renewAfterUnauthorized(failed: string) {
      try {
        const g = await refresh(failed);
        return g.access !== failed;
      } catch (e) {
        if (e instanceof NoTokenError) throw e;
        opts.warn?.(`ynab-mcp: could not refresh the OAuth token: ${(e as Error).message}`);
        return false;
      }
    },
  };
}
