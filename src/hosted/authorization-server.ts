/**
 * The authorization server of hosted mode, as the MCP specification (2025-11-25) asks: RFC 8414
 * metadata, PKCE with S256 required of every client, client ID metadata documents and dynamic
 * client registration, resource indicators (RFC 8707) with every access token bound to this
 * server's MCP endpoint, short-lived opaque access tokens and rotating refresh tokens, and the
 * `iss` parameter in authorization responses (RFC 9207).
 *
 * It is oidc-provider (panva), configured; nothing of OAuth is written here by hand. Its records
 * live in the state store (oauth-records.ts), its cookie keys and signing key come from the data
 * key and the store, so every instance is the same authorization server. Who the user is gets
 * settled by YNAB: the interaction (interactions.ts) sends the browser to YNAB's own sign-in.
 * Which clients are admitted is client-admission.ts; how tokens are bound to this server's MCP
 * endpoint is resource-binding.ts.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider, { type Adapter, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { StateStore } from '../storage/store.js';
import { clientMetadataDocuments, loopbackTestFetch, redirectUriCheck } from './client-admission.js';
import { storeAdapter } from './oauth-records.js';
import type { HostedOptions } from './options.js';
import { errorPage } from './pages.js';
import { ACCESS_TOKEN_TTL_S, MCP_SCOPE, refuseBeforeRotation, resourceIndicators } from './resource-binding.js';

export const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** A sign-in (consent, then YNAB) must be finished within this. */
export const INTERACTION_TTL_S = 600;

export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  pushed_authorization_request: '/oauth/par',
} as const;

/** Where the signing key is kept, sealed (readiness.ts checks the data key opens it). */
export const SIGNING_KEYS = 'hosted/signing-keys.json';

/** The signing key (ID tokens, should a client ask for openid): made once, sealed in the store, the same for every instance. */
async function signingKeys(store: StateStore, opts: HostedOptions): Promise<{ keys: Record<string, unknown>[] }> {
  const name = SIGNING_KEYS;
  return store.update(name, (bytes) => {
    const known = opts.dataKey.openJson<{ keys: Record<string, unknown>[] }>(bytes, name);
    if (known?.keys?.length) return { value: undefined, result: known };
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
    const fresh = { keys: [{ ...jwk, kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' }] };
    return { value: opts.dataKey.sealJson(fresh, name), result: fresh };
  });
}

/** Called before an authorization code is saved, with the grant it is issued under: the end of a sign-in that succeeded. */
export type BeforeCodeIssued = (grantId: string) => Promise<void>;

/** The provider's records in the state store, with `beforeCodeIssued` run before an authorization code is saved. */
function recordsWithCodeHook(store: StateStore, opts: HostedOptions, beforeCodeIssued: BeforeCodeIssued): (model: string) => Adapter {
  const records = storeAdapter(store, opts.dataKey);
  return (model: string): Adapter => {
    const adapter = records(model);
    if (model !== 'AuthorizationCode') return adapter;
    return {
      ...adapter,
      async upsert(id, payload, expiresIn) {
        if (payload.grantId) await beforeCodeIssued(payload.grantId);
        return adapter.upsert(id, payload, expiresIn);
      },
    };
  };
}

export async function createAuthorizationServer(
  store: StateStore,
  opts: HostedOptions,
  log: (line: string) => void,
  beforeCodeIssued: BeforeCodeIssued,
): Promise<Provider> {
  const config: Configuration = {
    adapter: recordsWithCodeHook(store, opts, beforeCodeIssued),
    jwks: (await signingKeys(store, opts)) as Configuration['jwks'],
    cookies: {
      keys: [opts.dataKey.subkey('cookies').toString('hex')],
      long: { sameSite: 'lax' },
      short: { sameSite: 'lax' },
    },
    scopes: [MCP_SCOPE, 'offline_access'],
    // RFC 6749 §3.3: a request that names no scope of this server gets its default scope, not a
    // refusal after the user consented (the MCP client may leave scope out, or ask only offline_access).
    extraParams: {
      scope: (ctx: KoaContextWithOIDC, value: string | undefined) => {
        const asked = (value ?? '').split(' ').filter(Boolean);
        if (!asked.includes(MCP_SCOPE)) ctx.oidc.params!.scope = [...asked, MCP_SCOPE].join(' ');
      },
    },
    extraClientMetadata: redirectUriCheck,
    responseTypes: ['code'],
    pkce: { required: () => true },
    routes: ROUTES,
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: false },
      // Tokens are bearer tokens: the MCP endpoint reads `Authorization: Bearer` only.
      dPoP: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, issueRegistrationAccessToken: false },
      clientIdMetadataDocument: clientMetadataDocuments(opts),
      resourceIndicators: resourceIndicators(opts),
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: REFRESH_TOKEN_TTL_S,
      Interaction: INTERACTION_TTL_S,
      // A browser session is only the thread of one sign-in: every sign-in goes through YNAB again.
      Session: INTERACTION_TTL_S,
    },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: KoaContextWithOIDC, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    // The grant comes from this sign-in only, never from an earlier one: consent is asked every time
    // (the MCP specification requires it before forwarding to YNAB for each client).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // Tokens outlive the browser session that produced them; they end with their own expiry or a revocation.
    expiresWithSession: () => false,
    issueRefreshToken: (_ctx: KoaContextWithOIDC, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: (ctx: KoaContextWithOIDC) => {
      refuseBeforeRotation(ctx, opts);
      return true;
    },
    fetchResponseBodyLimits: { 'client_id metadata document': 5 * 1024, jwks_uri: 64 * 1024, sector_identifier_uri: 64 * 1024 },
    ...loopbackTestFetch(opts),
    renderError: (ctx: KoaContextWithOIDC, out) => {
      errorPage(ctx.res, ctx.status >= 400 ? ctx.status : 400, out.error, out.error_description ?? 'The request could not be completed.');
      ctx.respond = false;
    },
  };
  const provider = new Provider(opts.publicUrl, config);
  // Behind the TLS terminator; the hosted server sets X-Forwarded-Proto/Host from --public-url itself.
  provider.proxy = true;
  provider.on('server_error', (_ctx: unknown, e: Error) => log(`ynab-mcp: authorization server error: ${e.message}`));
  return provider;
}
