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
 *
 * This file routes the three steps: steps 1-2 are consent.ts, step 3 is ynab-callback.ts, and the
 * state with the cookie that binds it to the browser is signin-binding.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { StateStore } from '../storage/store.js';
import { decideConsent, showConsent } from './consent.js';
import type { HostedOptions } from './options.js';
import { signinBinding } from './signin-binding.js';
import { ynabCallback } from './ynab-callback.js';
import type { YnabGrants } from './ynab-grants.js';

export interface InteractionDeps {
  provider: Provider;
  store: StateStore;
  grants: YnabGrants;
  opts: HostedOptions;
  log: (line: string) => void;
  /** How each return from YNAB ended (ynab-callback.ts), for metrics. */
  onSignIn?: (outcome: string) => void;
}

export function interactionRoutes(deps: InteractionDeps) {
  const handlers = { ...deps, signins: signinBinding(deps.store, deps.opts) };

  /** Answers the interaction and callback paths; false for anything else. */
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    const m = /^\/interaction\/([A-Za-z0-9_-]{1,64})$/.exec(url.pathname);
    if (m) {
      if (req.method === 'GET') await showConsent(handlers, req, res, m[1]!);
      else if (req.method === 'POST') await decideConsent(handlers, req, res, m[1]!);
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
      } else await ynabCallback(handlers, req, res, url);
      return true;
    }
    return false;
  };
}
