/**
 * Steps 1 and 2 of a hosted sign-in (interactions.ts): the consent page, GET /interaction/<uid>,
 * and the person's answer to it, POST /interaction/<uid>. Consent is asked for every sign-in and
 * every client before the browser is sent on to YNAB (the MCP specification's confused-deputy
 * rule); both steps belong to the browser whose interaction cookie names `uid`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { authorizeUrl } from '../auth/oauth-login.js';
import { isLoopbackHost } from '../shared/addresses.js';
import type { HostedOptions } from './options.js';
import { consentPage, errorPage, redirect } from './pages.js';
import { asksReadOnly } from './resource-binding.js';
import type { SigninBinding } from './signin-binding.js';

export interface ConsentDeps {
  provider: Provider;
  opts: HostedOptions;
  signins: SigninBinding;
}

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

/** The interaction this browser is in, or an error page when it has none (expired, other browser). */
async function details(provider: Provider, req: IncomingMessage, res: ServerResponse) {
  try {
    return await provider.interactionDetails(req, res);
  } catch {
    errorPage(res, 400, 'invalid_request', 'This sign-in page has expired or was opened in another browser than the one that started the sign-in.');
    return undefined;
  }
}

/** GET /interaction/<uid>: which application, where the browser goes back to, and what it may do. */
export async function showConsent(deps: ConsentDeps, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
  const { provider } = deps;
  const interaction = await details(provider, req, res);
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
    readOnlyEndpoint: asksReadOnly(deps.opts, interaction.params.resource),
  });
}

/** POST /interaction/<uid>: on to YNAB with a fresh state bound to this browser, or the client told the person declined. */
export async function decideConsent(deps: ConsentDeps, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
  const { provider, opts } = deps;
  const interaction = await details(provider, req, res);
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
  // The read-only endpoint asks YNAB for read-only access whatever the form says.
  const readOnly = decision === 'read-only' || asksReadOnly(opts, interaction.params.resource);
  const { state, cookie } = await deps.signins.begin({ uid, readOnly });
  redirect(
    res,
    authorizeUrl(opts.ynab.appUrl, {
      clientId: opts.ynab.clientId,
      redirectUri: opts.ynabRedirectUri,
      implicit: false,
      scope: readOnly ? 'read-only' : 'full',
      state,
    }),
    [cookie],
  );
}
