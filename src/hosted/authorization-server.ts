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
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider, { errors, type Adapter, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { StateStore } from '../storage/store.js';
import { isLoopbackHost, isSpecialUseAddress, resolveHost } from './addresses.js';
import { storeAdapter } from './oauth-records.js';
import type { HostedOptions } from './options.js';
import { errorPage } from './pages.js';

/** The one scope of the MCP resource: the user's YNAB budgets, as YNAB granted them. */
export const MCP_SCOPE = 'ynab';
export const ACCESS_TOKEN_TTL_S = 3600;
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

/** The resource indicators that name this server; tokens always carry the canonical one. */
export function acceptsResource(opts: HostedOptions, indicator: string): boolean {
  const trimmed = indicator.replace(/\/+$/, '');
  return trimmed.toLowerCase() === opts.resource.toLowerCase() || trimmed.toLowerCase() === opts.publicUrl.toLowerCase();
}

/** The signing key (ID tokens, should a client ask for openid): made once, sealed in the store, the same for every instance. */
async function signingKeys(store: StateStore, opts: HostedOptions): Promise<{ keys: Record<string, unknown>[] }> {
  const name = 'hosted/signing-keys.json';
  return store.update(name, (bytes) => {
    const known = opts.dataKey.openJson<{ keys: Record<string, unknown>[] }>(bytes, name);
    if (known?.keys?.length) return { value: undefined, result: known };
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
    const fresh = { keys: [{ ...jwk, kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' }] };
    return { value: opts.dataKey.sealJson(fresh, name), result: fresh };
  });
}

/** oidc-provider's own limit on a client metadata document fetch (lib/helpers/fetch_request.js); resolving its host gets as long again. */
export const METADATA_FETCH_TIMEOUT_MS = 2500;

/**
 * Redirect URIs a client may register (dynamically or in its metadata document): https, or http
 * to a loopback host (MCP authorization specification, 2025-11-25). An http URI elsewhere would
 * send the authorization code across the network in the clear.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined; // the library's schema reports what is not a string
  const url = URL.parse(uri);
  if (!url) return undefined; // and what is not a URL
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `redirect_uris must be https URLs, or http URLs on a loopback address (127.0.0.1, [::1] or localhost); ${JSON.stringify(uri)} is neither`;
}

/**
 * Checked in the refresh_token grant right before the library rotates (spends) the refresh token,
 * after its own checks of the client and the scope: a `resource` the token was not issued for is
 * refused here. The library refuses it only after spending the token, and the client's corrected
 * retry would then count as reuse and revoke the whole grant.
 */
function refuseBeforeRotation(ctx: KoaContextWithOIDC, opts: HostedOptions): void {
  const resource = ctx.oidc.params?.resource as string | string[] | undefined;
  if (resource === undefined) return; // the resource the token was issued for
  if (Array.isArray(resource)) throw new errors.InvalidTarget('a refresh asks for one resource only');
  const token = ctx.oidc.entities.RefreshToken;
  if (!acceptsResource(opts, resource) || !token?.resourceIndicators.has(resource)) {
    throw new errors.InvalidTarget(`this refresh token was issued for ${opts.resource} only; the refresh token is still valid`);
  }
}

/** Called before an authorization code is saved, with the grant it is issued under: the end of a sign-in that succeeded. */
export type BeforeCodeIssued = (grantId: string) => Promise<void>;

export async function createAuthorizationServer(
  store: StateStore,
  opts: HostedOptions,
  log: (line: string) => void,
  beforeCodeIssued: BeforeCodeIssued,
): Promise<Provider> {
  const records = storeAdapter(store, opts.dataKey);
  // A client metadata document is fetched at most once per request: after a failed fetch the
  // library looks the client up again to word its error, which would wait for the timeout twice.
  const fetchedIn = new WeakMap<object, Set<string>>();
  const config: Configuration = {
    adapter: (model: string): Adapter => {
      const adapter = records(model);
      if (model !== 'AuthorizationCode') return adapter;
      return {
        ...adapter,
        async upsert(id, payload, expiresIn) {
          if (payload.grantId) await beforeCodeIssued(payload.grantId);
          return adapter.upsert(id, payload, expiresIn);
        },
      };
    },
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
    extraClientMetadata: {
      // Not an extra property: listed so that the validator sees every client's redirect URIs.
      properties: ['redirect_uris'],
      validator: (_ctx, key, value) => {
        if (key !== 'redirect_uris' || !Array.isArray(value)) return;
        for (const uri of value) {
          const problem = redirectUriProblem(uri);
          if (problem) throw new errors.InvalidClientMetadata(problem);
        }
      },
    },
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
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // https only, no credentials in the URL (checked by oidc-provider), a host that resolves to
        // public addresses only (checked here, before any connection), fetched with a 2.5 s timeout
        // and a 5 KiB limit (oidc-provider's, whose connection also refuses special-use addresses,
        // should the name resolve differently the second time).
        allowFetch: async (ctx: KoaContextWithOIDC | undefined, clientId: string) => {
          const url = URL.parse(clientId);
          if (url?.protocol !== 'https:') return false;
          if (ctx) {
            const tried = fetchedIn.get(ctx) ?? new Set<string>();
            if (tried.has(clientId)) return false;
            fetchedIn.set(ctx, tried.add(clientId));
          }
          // Tests only: the test's document server on this machine, named by its address.
          if (opts.loopbackTest && url.hostname === '127.0.0.1') return true;
          let addresses: string[];
          try {
            addresses = await resolveHost(url.hostname, METADATA_FETCH_TIMEOUT_MS);
          } catch (e) {
            throw new errors.InvalidClient(
              `the host of the client_id metadata document URL, ${url.hostname}, cannot be resolved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
            );
          }
          const inside = addresses.find(isSpecialUseAddress);
          if (inside !== undefined) {
            throw new errors.InvalidClient(
              `the client_id metadata document URL names ${url.hostname}, which resolves to a private or loopback address (${inside}); client metadata documents are fetched from public addresses only`,
            );
          }
          return true;
        },
        cacheDuration: { min: 60, max: 86_400 },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => opts.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
          if (!acceptsResource(opts, indicator)) throw new errors.InvalidTarget(`this server only issues tokens for ${opts.resource}`);
          return { scope: MCP_SCOPE, audience: opts.resource, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
        },
      },
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
    // Tests only (an http loopback public URL): client metadata documents may be served from
    // 127.0.0.1 (by that address: a name that resolves to it is refused as anywhere else).
    ...(opts.loopbackTest
      ? {
          fetch: (input: string | URL | Request, init?: RequestInit) => {
            const url = new URL(input instanceof Request ? input.url : String(input));
            if (url.hostname === '127.0.0.1' && init) delete (init as { dispatcher?: unknown }).dispatcher;
            return fetch(input, init);
          },
        }
      : {}),
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
