/**
 * `ynab-mcp login --oauth`: the browser sign-in.
 *
 * 1. Listen on the loopback redirect (127.0.0.1:<port>/callback) with a random `state`.
 * 2. Send the browser to {app_url}/oauth/authorize (opened, and printed in case it cannot be).
 * 3. On the callback: the `state` must match (else refuse: a stale or forged redirect), then
 *    - code grant: exchange the code at {app_url}/oauth/token for access + refresh token;
 *    - implicit grant: take the token the relay page posted from the URL fragment.
 * 4. Check the new token with GET /user, and only then replace the stored sign-in.
 * Nothing is stored unless every step worked. Waiting for the browser ends after `timeoutMs`.
 * This file listens, sends the browser and waits; steps 3 and 4 are oauth-redirect.ts.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../api/client/errors.js';
import { checkBaseUrl } from '../api/client/transport.js';
import { openBrowser } from './browser.js';
import type { Scope } from './credentials.js';
import { startLoopback, type Outcome } from './loopback.js';
import { signInFromRedirect, type OAuthLoginResult } from './oauth-redirect.js';
import type { SecretStore } from './secret-common.js';

export type { OAuthLoginResult } from './oauth-redirect.js';

export const DEFAULT_APP_URL = 'https://app.ynab.com';
/** The fixed default, so it can be registered once as the OAuth application's redirect URI. */
export const DEFAULT_REDIRECT_PORT = 8765;
export const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

export class LoginError extends Error {}

export interface OAuthLoginOptions {
  clientId: string;
  /** Required for the code grant; the implicit grant neither needs nor keeps it. */
  clientSecret: string | null;
  implicit: boolean;
  scope: Scope;
  appUrl: string;
  baseUrl?: string;
  port: number;
  openBrowser: boolean;
  timeoutMs: number;
  stateDir: string;
  store: Pick<SecretStore, 'get' | 'set' | 'delete'>;
  log: (line: string) => void;
  now?: () => number;
}

export function authorizeUrl(appUrl: string, params: { clientId: string; redirectUri: string; implicit: boolean; scope: Scope; state: string }): string {
  const url = new URL('/oauth/authorize', appUrl);
  url.searchParams.set('client_id', params.clientId);
  url.searchParams.set('redirect_uri', params.redirectUri);
  url.searchParams.set('response_type', params.implicit ? 'token' : 'code');
  if (params.scope === 'read-only') url.searchParams.set('scope', 'read-only');
  url.searchParams.set('state', params.state);
  return url.toString();
}

export async function oauthLogin(opts: OAuthLoginOptions): Promise<OAuthLoginResult> {
  const now = opts.now ?? Date.now;
  let appUrl: string;
  try {
    appUrl = checkBaseUrl(opts.appUrl).origin;
  } catch (e) {
    throw new LoginError(`--app-url: ${(e as ConfigError).message}`);
  }
  if (!opts.implicit && !opts.clientSecret) throw new LoginError('the authorization code grant needs the client secret');
  const state = randomBytes(24).toString('base64url');
  let result: OAuthLoginResult | undefined;
  let timer: NodeJS.Timeout | undefined;

  /** The one callback: the wait ends (its timer with it) and the redirect is checked and stored. */
  const handle = async (params: URLSearchParams): Promise<Outcome> => {
    clearTimeout(timer);
    const handled = await signInFromRedirect(params, { ...opts, appUrl, now, state, redirectUri });
    if (handled.result) result = handled.result;
    return handled.outcome;
  };

  const loopback = await startLoopback({ port: opts.port, mode: opts.implicit ? 'fragment' : 'query', handle }).catch((e: Error) => {
    throw new LoginError(e.message);
  });
  const redirectUri = loopback.redirectUri;
  try {
    const url = authorizeUrl(appUrl, { clientId: opts.clientId, redirectUri, implicit: opts.implicit, scope: opts.scope, state });
    opts.log('Open this address in a browser to let ynab-mcp use your YNAB account:');
    opts.log('');
    opts.log(`  ${url}`);
    opts.log('');
    if (opts.openBrowser) openBrowser(url, (why) => opts.log(`(Could not open a browser: ${why}. Open the address above yourself.)`));
    const [n, unit] = opts.timeoutMs < 120_000 ? [Math.round(opts.timeoutMs / 1000), 'second'] : [Math.round(opts.timeoutMs / 60_000), 'minute'];
    const wait = `${n} ${unit}${n === 1 ? '' : 's'}`;
    opts.log(`Waiting up to ${wait} for YNAB to redirect to ${redirectUri} (the OAuth application must list this redirect URI)...`);
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new LoginError(`no authorization arrived within ${wait}; nothing was stored. Run "ynab-mcp login --oauth" again.`)),
        opts.timeoutMs,
      );
    });
    const outcome = await Promise.race([loopback.done, timedOut]);
    if (!outcome.ok || !result) throw new LoginError(`sign-in failed: ${outcome.message}`);
    return result;
  } finally {
    clearTimeout(timer);
    await loopback.close();
  }
}
