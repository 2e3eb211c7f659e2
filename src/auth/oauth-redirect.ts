/**
 * The one redirect a browser sign-in ends with (`ynab-mcp login --oauth`, see oauth-login.ts): what
 * the loopback hands over is turned into a checked, stored sign-in, or into the reason it was not.
 *
 * The checks run in this order and the first that fails ends it with nothing stored: the `state`
 * must be the one this sign-in sent (else a stale or forged redirect), the service must not report
 * an error, the redirect must carry a token (implicit grant) or a code the token endpoint exchanges
 * (code grant), and the token must work (GET /user). Only then is the stored sign-in replaced.
 * Kept apart from the listening and waiting so that this sequence reads as one thing.
 */
import { timingSafeEqual } from 'node:crypto';
import { saveCredentials, type Scope } from './credentials.js';
import type { Outcome } from './loopback.js';
import { describeError, type SecretStore } from './secret-common.js';
import { exchangeToken, TokenEndpointError, type TokenAnswer } from './token-endpoint.js';
import { verifyToken, VerifyError } from './verify.js';

export interface OAuthLoginResult {
  userId: string;
  scope: Scope;
  expiresAt: Date;
  refreshable: boolean;
}

/** What one sign-in knows when its redirect arrives. */
export interface RedirectContext {
  clientId: string;
  clientSecret: string | null;
  implicit: boolean;
  /** The scope asked for. */
  scope: Scope;
  /** The checked origin of the OAuth service. */
  appUrl: string;
  baseUrl?: string;
  stateDir: string;
  store: Pick<SecretStore, 'get' | 'set' | 'delete'>;
  log: (line: string) => void;
  now: () => number;
  /** The `state` this sign-in sent; the redirect must bring it back. */
  state: string;
  redirectUri: string;
}

/** The outcome for the browser and terminal, and the sign-in when it worked. */
export interface RedirectHandled {
  outcome: Outcome;
  result?: OAuthLoginResult;
}

const NOTHING = 'Nothing was stored; run "ynab-mcp login --oauth" again.';
const refused = (message: string): RedirectHandled => ({ outcome: { ok: false, message } });

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

/** The secrets a description of an error must never show. */
const secretsOf = (ctx: RedirectContext) => [ctx.clientSecret ?? undefined];

/** The token the redirect brings (implicit grant) or the code exchanges for (code grant), or why there is none. */
async function tokenFrom(params: URLSearchParams, ctx: RedirectContext): Promise<TokenAnswer | RedirectHandled> {
  if (ctx.implicit) {
    const access = params.get('access_token');
    if (!access) return refused(`The redirect carried no access token. ${NOTHING}`);
    const expiresIn = Number(params.get('expires_in'));
    return {
      access_token: access,
      expires_in: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined,
      scope: params.get('scope') ?? undefined,
    };
  }
  const code = params.get('code');
  if (!code) return refused(`The redirect carried no authorization code. ${NOTHING}`);
  try {
    return await exchangeToken(ctx.appUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: ctx.redirectUri,
      client_id: ctx.clientId,
      client_secret: ctx.clientSecret!,
    });
  } catch (e) {
    const why = e instanceof TokenEndpointError ? e.message : describeError(e, [code, ...secretsOf(ctx)]);
    return refused(`Exchanging the authorization code failed: ${why}. ${NOTHING}`);
  }
}

/** Turns one callback into a stored, checked sign-in, or says why not. */
export async function signInFromRedirect(params: URLSearchParams, ctx: RedirectContext): Promise<RedirectHandled> {
  if (!sameState(params.get('state'), ctx.state)) {
    return refused(`The redirect's state does not match this sign-in (a stale or forged redirect), so it was refused. ${NOTHING}`);
  }
  const error = params.get('error');
  if (error) {
    const detail = params.get('error_description');
    return refused(`YNAB did not authorize ynab-mcp (${describeError(`${error}${detail ? `: ${detail}` : ''}`)}). ${NOTHING}`);
  }
  const answer = await tokenFrom(params, ctx);
  if ('outcome' in answer) return answer;
  let userId: string;
  try {
    userId = await verifyToken({
      token: answer.access_token,
      baseUrl: ctx.baseUrl,
      stateDir: ctx.stateDir,
      onRetry: (failure, ms) => ctx.log(`Checking the new token: ${failure}; trying again in ${ms / 1000} s.`),
    });
  } catch (e) {
    const why = e instanceof VerifyError ? e.message : describeError(e, [answer.access_token, answer.refresh_token, ...secretsOf(ctx)]);
    return refused(`The new token did not work: ${why}. ${NOTHING}`);
  }
  const scope = grantedScope(answer.scope, ctx.scope);
  // Expiry from the answer (the service says 7200 s); a missing value is taken as the documented two hours.
  const expiresAt = new Date(ctx.now() + (answer.expires_in ?? 7200) * 1000);
  try {
    await saveCredentials(ctx.store, {
      kind: 'oauth',
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? null,
      expiresAt,
      scope,
      clientId: ctx.clientId,
      clientSecret: ctx.implicit ? null : ctx.clientSecret,
      appUrl: ctx.appUrl,
      baseUrl: ctx.baseUrl,
    });
  } catch (e) {
    return refused(`Storing the sign-in failed: ${describeError(e, [answer.access_token, answer.refresh_token, ...secretsOf(ctx)])}`);
  }
  return {
    outcome: { ok: true, message: `ynab-mcp is signed in to YNAB (user ${userId}${scope === 'read-only' ? ', read-only access' : ''}).` },
    result: { userId, scope, expiresAt, refreshable: answer.refresh_token !== undefined },
  };
}
