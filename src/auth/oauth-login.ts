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
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../api/client/errors.js';
import { checkBaseUrl } from '../api/client/transport.js';
import { openBrowser } from './browser.js';
import { saveCredentials, type Scope } from './credentials.js';
import { startLoopback, type Outcome } from './loopback.js';
import { describeError, type SecretStore } from './secret-common.js';
import { exchangeToken, TokenEndpointError, type TokenAnswer } from './token-endpoint.js';
import { verifyToken, VerifyError } from './verify.js';

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

export interface OAuthLoginResult {
  userId: string;
  scope: Scope;
  expiresAt: Date;
  refreshable: boolean;
}

/** What the service granted: read-only if it says so, or if read-only was asked and it says nothing. */
function grantedScope(answered: string | null | undefined, asked: Scope): Scope {
  if (answered) return answered.split(/\s+/).includes('read-only') ? 'read-only' : 'full';
  return asked;
}

function sameState(a: string | null, b: string): boolean {
  if (a === null) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
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
  const secrets = () => [opts.clientSecret ?? undefined];

  /** Turns one callback into a stored, checked sign-in, or says why not. */
  const handle = async (params: URLSearchParams): Promise<Outcome> => {
    clearTimeout(timer);
    const nothing = 'Nothing was stored; run "ynab-mcp login --oauth" again.';
    if (!sameState(params.get('state'), state)) {
      return { ok: false, message: `The redirect's state does not match this sign-in (a stale or forged redirect), so it was refused. ${nothing}` };
    }
    const error = params.get('error');
    if (error) {
      const detail = params.get('error_description');
      return { ok: false, message: `YNAB did not authorize ynab-mcp (${describeError(`${error}${detail ? `: ${detail}` : ''}`)}). ${nothing}` };
    }
    let answer: TokenAnswer;
    if (opts.implicit) {
      const access = params.get('access_token');
      if (!access) return { ok: false, message: `The redirect carried no access token. ${nothing}` };
      const expiresIn = Number(params.get('expires_in'));
      answer = {
        access_token: access,
        expires_in: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined,
        scope: params.get('scope') ?? undefined,
      };
    } else {
      const code = params.get('code');
      if (!code) return { ok: false, message: `The redirect carried no authorization code. ${nothing}` };
      try {
        answer = await exchangeToken(appUrl, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: opts.clientId,
          client_secret: opts.clientSecret!,
        });
      } catch (e) {
        const why = e instanceof TokenEndpointError ? e.message : describeError(e, [code, ...secrets()]);
        return { ok: false, message: `Exchanging the authorization code failed: ${why}. ${nothing}` };
      }
    }
    let userId: string;
    try {
      userId = await verifyToken({
        token: answer.access_token,
        baseUrl: opts.baseUrl,
        stateDir: opts.stateDir,
        onRetry: (failure, ms) => opts.log(`Checking the new token: ${failure}; trying again in ${ms / 1000} s.`),
      });
    } catch (e) {
      const why = e instanceof VerifyError ? e.message : describeError(e, [answer.access_token, answer.refresh_token, ...secrets()]);
      return { ok: false, message: `The new token did not work: ${why}. ${nothing}` };
    }
    const scope = grantedScope(answer.scope, opts.scope);
    // Expiry from the answer (the service says 7200 s); a missing value is taken as the documented two hours.
    const expiresAt = new Date(now() + (answer.expires_in ?? 7200) * 1000);
    try {
      await saveCredentials(opts.store, {
        kind: 'oauth',
        accessToken: answer.access_token,
        refreshToken: answer.refresh_token ?? null,
        expiresAt,
        scope,
        clientId: opts.clientId,
        clientSecret: opts.implicit ? null : opts.clientSecret,
        appUrl,
        baseUrl: opts.baseUrl,
      });
    } catch (e) {
      return { ok: false, message: `Storing the sign-in failed: ${describeError(e, [answer.access_token, answer.refresh_token, ...secrets()])}` };
    }
    result = { userId, scope, expiresAt, refreshable: answer.refresh_token !== undefined };
    return { ok: true, message: `ynab-mcp is signed in to YNAB (user ${userId}${scope === 'read-only' ? ', read-only access' : ''}).` };
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
