/**
 * Step 3 of a hosted sign-in (interactions.ts): GET /oauth/callback, where YNAB sends the browser
 * back. First the redirect must belong here, checked in this order and each refused with an error
 * page before anything is spent or signed in: a state is present, this browser holds the sign-in's
 * cookie, the state names a pending sign-in (taken once), its interaction has not expired.
 *
 * From there on every outcome ends at the MCP client's redirect URI as an OAuth answer: YNAB's
 * refusal, or the code exchanged for the user's YNAB grant, GET /user to learn who they are, the
 * MCP grant made and the YNAB grant staged beside it. The authorization server then resumes and
 * issues the client its code; only then does the staged grant become the user's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { describeError } from '../auth/secret-common.js';
import { exchangeToken, TokenEndpointError, type TokenAnswer } from '../auth/token-endpoint.js';
import { verifyToken, VerifyError } from '../auth/verify.js';
import type { StateStore } from '../storage/store.js';
import { INTERACTION_TTL_S } from './authorization-server.js';
import type { HostedOptions } from './options.js';
import { errorPage, notAllowedPage, redirect } from './pages.js';
import { asksReadOnly, MCP_SCOPE } from './resource-binding.js';
import { ledgerKey } from '../storage/keys.js';
import { tokenKey } from '../quota/ledger.js';
import type { PendingLogin, SigninBinding } from './signin-binding.js';
import { identityOf, type YnabGrants } from './ynab-grants.js';

export interface CallbackDeps {
  provider: Provider;
  store: StateStore;
  grants: YnabGrants;
  opts: HostedOptions;
  log: (line: string) => void;
  signins: SigninBinding;
  /** Told how each return from YNAB ended: 'ok', 'refused' (not a sign-in of ours) or the OAuth error. For metrics. */
  onSignIn?: (outcome: string) => void;
}

type InteractionResult =
  { error: string; error_description: string } | { login: { accountId: string; remember: boolean }; consent: { grantId: string } } | { notAllowed: string };
type Interaction = InstanceType<Provider['Interaction']>;

/** YNAB's answer, told to onSignIn. */
export async function ynabCallback(deps: CallbackDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const outcome = await callback(deps, req, res, url);
  deps.onSignIn?.(outcome);
}

/** Everything after the state check ends at the MCP client's redirect URI, as an OAuth answer. Says how it ended. */
async function callback(deps: CallbackDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<string> {
  const state = url.searchParams.get('state');
  if (!state)
    return refuse(res, 400, 'invalid_request', 'YNAB sent the browser back without a state parameter, so this sign-in cannot be matched to one started here.');
  if (!deps.signins.heldBy(req, state)) {
    return refuse(
      res,
      400,
      'invalid_request',
      'This redirect from YNAB was opened in another browser than the one that started the sign-in (or its sign-in cookie has expired); nothing was signed in. Start the sign-in again from the application.',
    );
  }
  // Taken once: a second use of the same state (a replayed redirect) finds nothing.
  const pending = await deps.signins.take(state);
  if (!pending) {
    return refuse(
      res,
      400,
      'invalid_request',
      'The state of this redirect is not one this server issued, or it was already used or has expired (a stale or forged redirect); nothing was signed in.',
    );
  }
  const interaction = await deps.provider.Interaction.find(pending.uid);
  if (!interaction) return refuse(res, 400, 'invalid_request', `The sign-in took longer than ${INTERACTION_TTL_S / 60} minutes and has expired.`);
  const result = await signInResult(deps, url.searchParams, pending, interaction);
  if ('notAllowed' in result) {
    notAllowedPage(res, result.notAllowed);
    return 'not_allowed';
  }
  interaction.result = result;
  await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
  redirect(res, interaction.returnTo, [deps.signins.clearCookie(state)]);
  return 'login' in result ? 'ok' : result.error;
}

/** An error page for a return that is no sign-in of ours. */
function refuse(...page: Parameters<typeof errorPage>): 'refused' {
  errorPage(...page);
  return 'refused';
}

/** What the interaction resumes with: YNAB's refusal or failure, or the signed-in user and their new MCP grant. */
async function signInResult(deps: CallbackDeps, params: URLSearchParams, pending: PendingLogin, interaction: Interaction): Promise<InteractionResult> {
  const error = params.get('error');
  if (error) {
    const detail = params.get('error_description');
    return {
      error: error === 'access_denied' ? 'access_denied' : 'server_error',
      error_description: `YNAB did not authorize access (${describeError(`${error}${detail ? `: ${detail}` : ''}`)})`,
    };
  }
  const code = params.get('code');
  if (!code) return { error: 'server_error', error_description: 'YNAB sent the browser back without an authorization code' };
  const signedIn = await ynabSignIn(deps, code);
  if ('error' in signedIn) return signedIn;
  const { answer, ynabUserId } = signedIn;
  const { opts } = deps;
  const allowed = opts.access.allowedUsers;
  if (allowed && !allowed.has(ynabUserId.toLowerCase())) {
    // Nothing of theirs is kept: no grant, no MCP grant, and the request ledger GET /user wrote for their token goes too.
    await deps.store.delete(ledgerKey(tokenKey(answer.access_token)));
    deps.log('ynab-mcp: a sign-in by a YNAB user not on --allowed-users was refused');
    return { notAllowed: ynabUserId };
  }
  const readOnlyEndpoint = asksReadOnly(opts, interaction.params.resource);
  const identity = identityOf(opts.dataKey, ynabUserId, readOnlyEndpoint ? 'read-only' : 'full');
  const ynabScope = answer.scope ? (answer.scope.split(/\s+/).includes('read-only') ? 'read-only' : 'full') : pending.readOnly ? 'read-only' : 'full';
  const scope = readOnlyEndpoint ? 'read-only' : ynabScope;
  const grantId = await mcpGrant(deps.provider, readOnlyEndpoint ? opts.readOnlyResource : opts.resource, identity, interaction);
  // The YNAB grant waits beside it and replaces the user's only when the authorization server
  // issues the client its code (authorization-server.ts): a sign-in that fails from here on (an
  // expired or lost resume, a store error) leaves the user's grant as it was.
  await deps.grants.stage(
    grantId,
    identity,
    {
      access_token: answer.access_token,
      ...(answer.refresh_token ? { refresh_token: answer.refresh_token } : {}),
      token_expires_at: new Date(Date.now() + (answer.expires_in ?? 7200) * 1000).toISOString(),
      token_scope: scope,
      signed_in_at: new Date().toISOString(),
    },
    INTERACTION_TTL_S * 1000,
  );
  return { login: { accountId: identity, remember: false }, consent: { grantId } };
}

/** The code exchanged for the user's YNAB tokens and checked with GET /user, or the OAuth error that says why not. */
async function ynabSignIn(
  deps: CallbackDeps,
  code: string,
): Promise<{ answer: TokenAnswer; ynabUserId: string } | { error: string; error_description: string }> {
  const { opts } = deps;
  let answer: TokenAnswer;
  try {
    answer = await exchangeToken(opts.ynab.appUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: opts.ynabRedirectUri,
      client_id: opts.ynab.clientId,
      client_secret: opts.ynab.clientSecret,
    });
  } catch (e) {
    const why = e instanceof TokenEndpointError ? e.message : describeError(e, [code, opts.ynab.clientSecret]);
    deps.log(`ynab-mcp: exchanging a YNAB authorization code failed: ${why}`);
    return {
      error: e instanceof TokenEndpointError && e.refused ? 'access_denied' : 'temporarily_unavailable',
      error_description: `YNAB did not complete the sign-in: ${why}`,
    };
  }
  try {
    return { answer, ynabUserId: await verifyToken({ token: answer.access_token, baseUrl: opts.ynab.baseUrl, store: deps.store }) };
  } catch (e) {
    const why = e instanceof VerifyError ? e.message : describeError(e, [answer.access_token, answer.refresh_token]);
    return { error: 'temporarily_unavailable', error_description: `the new YNAB sign-in could not be checked: ${why}` };
  }
}

/** The MCP grant: this client, this user, the scopes asked for on this resource only. */
async function mcpGrant(provider: Provider, resource: string, identity: string, interaction: Interaction): Promise<string> {
  const grant = new provider.Grant({ accountId: identity, clientId: String(interaction.params.client_id) });
  const asked = String(interaction.params.scope ?? MCP_SCOPE)
    .split(/\s+/)
    .filter((s) => s === MCP_SCOPE || s === 'offline_access' || s === 'openid');
  grant.addOIDCScope([...new Set([MCP_SCOPE, ...asked])].join(' '));
  grant.addResourceScope(resource, MCP_SCOPE);
  return grant.save();
}
