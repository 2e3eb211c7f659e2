/**
 * A hosted sign-in, between the authorization server's authorize endpoint and its redirect back
 * to the MCP client:
 *
 *  1. GET  /interaction/<uid>   the consent page: which application (its name and client id),
 *                               where the browser goes back to (its host and the whole URI; a warning when that is
 *                               this computer), and what it may do. Asked for every sign-in and
 *                               every client: the MCP specification requires consent per client
 *                               before a proxy sends the user on to a third party with its own,
 *                               static client id (the confused-deputy rule).
 *  2. POST /interaction/<uid>   "Continue to YNAB" / "Read-only access": the browser goes to
 *                               YNAB's /oauth/authorize (authorization code grant) with a fresh,
 *                               single-use `state` that names this sign-in. "Cancel": the client
 *                               gets error=access_denied.
 *  3. GET  /oauth/callback      YNAB sends the browser back. The state must be one we issued and
 *                               not yet used, to this same browser (the sign-in cookie set in
 *                               step 2 carries an HMAC of it), else the request is refused (a
 *                               stale, forged or stolen redirect) before the state is spent. The code is exchanged for the user's YNAB grant, GET
 *                               /user says who they are, the grant is staged (sealed) beside the
 *                               new MCP grant, and the authorization server resumes: it issues the
 *                               MCP client an authorization code for our own tokens, and only then
 *                               does the staged grant become the user's. A refusal at YNAB
 *                               reaches the client as error=access_denied.
 * The interaction cookie (SameSite=Lax, path /interaction/<uid>) binds steps 1-2 to the browser
 * that started; the resume cookie binds step 3's continuation to it. Every step can be served by
 * a different instance: the pending sign-in lives in the state store.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { authorizeUrl } from '../auth/oauth-login.js';
import { describeError } from '../auth/secret-common.js';
import { exchangeToken, TokenEndpointError } from '../auth/token-endpoint.js';
import { verifyToken, VerifyError } from '../auth/verify.js';
import { tokenMatches } from '../transport/http-guards.js';
import type { StateStore } from '../storage/store.js';
import { isLoopbackHost } from './addresses.js';
import { INTERACTION_TTL_S } from './authorization-server.js';
import { MCP_SCOPE } from './resource-binding.js';
import type { HostedOptions } from './options.js';
import { consentPage, errorPage } from './pages.js';
import { identityOf, type YnabGrants } from './ynab-grants.js';

interface PendingLogin {
  uid: string;
  readOnly: boolean;
}

type InteractionResult = { error: string; error_description: string } | { login: { accountId: string; remember: boolean }; consent: { grantId: string } };

const MAX_FORM_BYTES = 4096;
/** A larger form is read this far and thrown away so that its 413 page can be delivered; past it the connection is cut. */
const MAX_DRAINED_BYTES = 1024 * 1024;

/**
 * The consent form, or 'too large'. A form over MAX_FORM_BYTES is still read to its end (and
 * thrown away): a server that answers while the browser is still sending, or cuts the
 * connection, leaves the browser with a reset connection instead of the answer.
 */
function readForm(req: IncomingMessage): Promise<URLSearchParams | 'too large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= MAX_FORM_BYTES) chunks.push(chunk);
      else if (received > MAX_DRAINED_BYTES) {
        req.destroy();
        reject(new Error('form far too large'));
      }
    });
    req.on('end', () => resolve(received > MAX_FORM_BYTES ? 'too large' : new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function redirect(res: ServerResponse, location: string, cookies: string[] = []): void {
  res.writeHead(303, { location, 'cache-control': 'no-store', ...(cookies.length ? { 'set-cookie': cookies } : {}) });
  res.end();
}

/** The value of cookie `name` in the request, if it has one. */
function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface InteractionDeps {
  provider: Provider;
  store: StateStore;
  grants: YnabGrants;
  opts: HostedOptions;
  log: (line: string) => void;
}

export function interactionRoutes(deps: InteractionDeps) {
  const { provider, store, opts } = deps;
  const pendingKey = (state: string) => `hosted/logins/${opts.dataKey.keyName(`state\n${state}`)}`;
  // The browser that went to YNAB holds a cookie proving it: named per sign-in (two tabs may sign
  // in at once), valued with an HMAC of the state that only this server can compute. A redirect
  // opened in any other browser (a stolen or planted callback URL: login CSRF) is refused before
  // its state is spent, so the sign-in that owns it still completes.
  const signinCookie = (state: string) => {
    const mac = opts.dataKey.keyName(`browser\n${state}`);
    return { name: `ynab_mcp_signin_${mac.slice(0, 12)}`, value: mac };
  };
  const secure = new URL(opts.publicUrl).protocol === 'https:' ? '; Secure' : '';
  const cookieHeader = (state: string, maxAge: number) => {
    const c = signinCookie(state);
    return `${c.name}=${maxAge > 0 ? c.value : ''}; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
  };

  /** The interaction this browser is in, or an error page when it has none (expired, other browser). */
  async function details(req: IncomingMessage, res: ServerResponse) {
    try {
      return await provider.interactionDetails(req, res);
    } catch {
      errorPage(res, 400, 'invalid_request', 'This sign-in page has expired or was opened in another browser than the one that started the sign-in.');
      return undefined;
    }
  }

  async function consent(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const interaction = await details(req, res);
    if (!interaction) return;
    if (interaction.uid !== uid) return errorPage(res, 400, 'invalid_request', 'This sign-in page does not belong to the sign-in this browser started.');
    const clientId = String(interaction.params.client_id ?? '');
    const client = await provider.Client.find(clientId).catch(() => undefined);
    const redirectUri = String(interaction.params.redirect_uri ?? client?.redirectUris?.[0] ?? '');
    let redirectHost = redirectUri;
    let localRedirect = false;
    try {
      const u = new URL(redirectUri);
      redirectHost = u.host || u.protocol;
      localRedirect = isLoopbackHost(u.hostname);
    } catch {
      // shown as given
    }
    consentPage(res, {
      clientName: client?.clientName ?? clientId,
      clientId,
      redirectHost,
      redirectUri,
      localRedirect,
      action: `/interaction/${encodeURIComponent(uid)}`,
    });
  }

  async function decide(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const interaction = await details(req, res);
    if (!interaction) return;
    if (interaction.uid !== uid) return errorPage(res, 400, 'invalid_request', 'This sign-in page does not belong to the sign-in this browser started.');
    let form: URLSearchParams | 'too large';
    try {
      form = await readForm(req);
    } catch {
      return; // cut off mid-way (readForm destroyed the connection): there is no one to answer
    }
    if (form === 'too large') {
      res.setHeader('connection', 'close');
      return errorPage(res, 413, 'invalid_request', `The form was too large (a consent form is a few bytes; at most ${MAX_FORM_BYTES} are read).`);
    }
    const decision = form.get('decision');
    if (decision === 'deny') {
      const to = await provider.interactionResult(
        req,
        res,
        { error: 'access_denied', error_description: 'the user declined to connect the application to YNAB' },
        { mergeWithLastSubmission: false },
      );
      return redirect(res, to);
    }
    if (decision !== 'allow' && decision !== 'read-only')
      return errorPage(res, 400, 'invalid_request', 'Choose "Continue to YNAB", "Read-only access" or "Cancel".');
    const state = randomBytes(32).toString('base64url');
    const key = pendingKey(state);
    const pending: PendingLogin = { uid, readOnly: decision === 'read-only' };
    await store.set(key, opts.dataKey.sealJson(pending, key), { ttlMs: INTERACTION_TTL_S * 1000 });
    redirect(
      res,
      authorizeUrl(opts.ynab.appUrl, {
        clientId: opts.ynab.clientId,
        redirectUri: opts.ynabRedirectUri,
        implicit: false,
        scope: pending.readOnly ? 'read-only' : 'full',
        state,
      }),
      [cookieHeader(state, INTERACTION_TTL_S)],
    );
  }

  /** YNAB's answer. Everything after the state check ends at the MCP client's redirect URI, as an OAuth answer. */
  async function callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const state = url.searchParams.get('state');
    if (!state)
      return errorPage(
        res,
        400,
        'invalid_request',
        'YNAB sent the browser back without a state parameter, so this sign-in cannot be matched to one started here.',
      );
    const bound = signinCookie(state);
    if (!tokenMatches(bound.value, cookieOf(req, bound.name))) {
      return errorPage(
        res,
        400,
        'invalid_request',
        'This redirect from YNAB was opened in another browser than the one that started the sign-in (or its sign-in cookie has expired); nothing was signed in. Start the sign-in again from the application.',
      );
    }
    const key = pendingKey(state);
    // Taken once: a second use of the same state (a replayed redirect) finds nothing.
    const pending = await store.update(key, (bytes) => ({
      value: bytes === undefined ? undefined : null,
      result: opts.dataKey.openJson<PendingLogin>(bytes, key),
    }));
    if (!pending) {
      return errorPage(
        res,
        400,
        'invalid_request',
        'The state of this redirect is not one this server issued, or it was already used or has expired (a stale or forged redirect); nothing was signed in.',
      );
    }
    const interaction = await provider.Interaction.find(pending.uid);
    if (!interaction) return errorPage(res, 400, 'invalid_request', `The sign-in took longer than ${INTERACTION_TTL_S / 60} minutes and has expired.`);
    const finish = async (result: InteractionResult) => {
      interaction.result = result;
      await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
      redirect(res, interaction.returnTo, [cookieHeader(state, 0)]);
    };

    const error = url.searchParams.get('error');
    if (error) {
      const detail = url.searchParams.get('error_description');
      return finish({
        error: error === 'access_denied' ? 'access_denied' : 'server_error',
        error_description: `YNAB did not authorize access (${describeError(`${error}${detail ? `: ${detail}` : ''}`)})`,
      });
    }
    const code = url.searchParams.get('code');
    if (!code) return finish({ error: 'server_error', error_description: 'YNAB sent the browser back without an authorization code' });
    let answer;
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
      return finish({
        error: e instanceof TokenEndpointError && e.refused ? 'access_denied' : 'temporarily_unavailable',
        error_description: `YNAB did not complete the sign-in: ${why}`,
      });
    }
    let ynabUserId: string;
    try {
      ynabUserId = await verifyToken({ token: answer.access_token, baseUrl: opts.ynab.baseUrl, store });
    } catch (e) {
      const why = e instanceof VerifyError ? e.message : describeError(e, [answer.access_token, answer.refresh_token]);
      return finish({ error: 'temporarily_unavailable', error_description: `the new YNAB sign-in could not be checked: ${why}` });
    }
    const identity = identityOf(opts.dataKey, ynabUserId);
    const scope = answer.scope ? (answer.scope.split(/\s+/).includes('read-only') ? 'read-only' : 'full') : pending.readOnly ? 'read-only' : 'full';

    // The MCP grant: this client, this user, the scopes asked for on this resource only.
    const grant = new provider.Grant({ accountId: identity, clientId: String(interaction.params.client_id) });
    const asked = String(interaction.params.scope ?? MCP_SCOPE)
      .split(/\s+/)
      .filter((s) => s === MCP_SCOPE || s === 'offline_access' || s === 'openid');
    grant.addOIDCScope([...new Set([MCP_SCOPE, ...asked])].join(' '));
    grant.addResourceScope(opts.resource, MCP_SCOPE);
    const grantId = await grant.save();
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
    return finish({ login: { accountId: identity, remember: false }, consent: { grantId } });
  }

  /** Answers the interaction and callback paths; false for anything else. */
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    const m = /^\/interaction\/([A-Za-z0-9_-]{1,64})$/.exec(url.pathname);
    if (m) {
      if (req.method === 'GET') await consent(req, res, m[1]!);
      else if (req.method === 'POST') await decide(req, res, m[1]!);
      else {
        res.writeHead(405, { allow: 'GET, POST' });
        res.end();
      }
      return true;
    }
    if (url.pathname === '/oauth/callback') {
      if (req.method !== 'GET') {
        res.writeHead(405, { allow: 'GET' });
        res.end();
      } else await callback(req, res, url);
      return true;
    }
    return false;
  };
}
