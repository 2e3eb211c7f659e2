/**
 * Every token the hosted authorization server issues is bound to this server's MCP endpoint
 * (resource indicators, RFC 8707): a request naming another resource is refused, and a token
 * always carries the canonical one. Kept out of the provider's configuration because the refresh
 * case needs a check of its own, made before the library spends the refresh token.
 */
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { HostedOptions } from './options.js';

/** The one scope of the MCP resource: the user's YNAB budgets, as YNAB granted them. */
export const MCP_SCOPE = 'ynab';
export const ACCESS_TOKEN_TTL_S = 3600;

type ResourceIndicators = NonNullable<NonNullable<Configuration['features']>['resourceIndicators']>;

/** The resource indicators that name this server; tokens always carry the canonical one. */
export function acceptsResource(opts: HostedOptions, indicator: string): boolean {
  const trimmed = indicator.replace(/\/+$/, '');
  return trimmed.toLowerCase() === opts.resource.toLowerCase() || trimmed.toLowerCase() === opts.publicUrl.toLowerCase();
}

/** The provider's `resourceIndicators` feature: this server's resource only, with short-lived opaque access tokens. */
export function resourceIndicators(opts: HostedOptions): ResourceIndicators {
  return {
    enabled: true,
    defaultResource: () => opts.resource,
    useGrantedResource: () => true,
    getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
      if (!acceptsResource(opts, indicator)) throw new errors.InvalidTarget(`this server only issues tokens for ${opts.resource}`);
      return { scope: MCP_SCOPE, audience: opts.resource, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
    },
  };
}

/**
 * Checked in the refresh_token grant right before the library rotates (spends) the refresh token,
 * after its own checks of the client and the scope: a `resource` the token was not issued for is
 * refused here. The library refuses it only after spending the token, and the client's corrected
 * retry would then count as reuse and revoke the whole grant.
 */
export function refuseBeforeRotation(ctx: KoaContextWithOIDC, opts: HostedOptions): void {
  const resource = ctx.oidc.params?.resource as string | string[] | undefined;
  if (resource === undefined) return; // the resource the token was issued for
  if (Array.isArray(resource)) throw new errors.InvalidTarget('a refresh asks for one resource only');
  const token = ctx.oidc.entities.RefreshToken;
  if (!acceptsResource(opts, resource) || !token?.resourceIndicators.has(resource)) {
    throw new errors.InvalidTarget(`this refresh token was issued for ${opts.resource} only; the refresh token is still valid`);
  }
}
