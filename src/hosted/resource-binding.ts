/**
 * Every token the hosted authorization server issues is bound to one of this server's two MCP
 * endpoints (resource indicators, RFC 8707): the full one (/mcp) or the read-only one
 * (/mcp/read-only). A request naming another resource is refused, a token always carries the
 * canonical name of its endpoint, and each endpoint refuses the other's tokens (resource-server.ts). Kept out of the provider's configuration because the refresh
 * case needs a check of its own, made before the library spends the refresh token.
 */
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { HostedOptions } from './options.js';

/** The one scope of the MCP resource: the user's YNAB budgets, as YNAB granted them. */
export const MCP_SCOPE = 'ynab';
export const ACCESS_TOKEN_TTL_S = 3600;

type ResourceIndicators = NonNullable<NonNullable<Configuration['features']>['resourceIndicators']>;

/** The endpoint a resource indicator names (the origin alone names the full one), canonical; undefined: not this server's. */
export function resourceNamed(opts: HostedOptions, indicator: string): string | undefined {
  const trimmed = indicator.replace(/\/+$/, '').toLowerCase();
  if (trimmed === opts.resource.toLowerCase() || trimmed === opts.publicUrl.toLowerCase()) return opts.resource;
  if (trimmed === opts.readOnlyResource.toLowerCase()) return opts.readOnlyResource;
  return undefined;
}

/** Whether a sign-in asked for the read-only endpoint (its authorization request's `resource`). */
export function asksReadOnly(opts: HostedOptions, resource: unknown): boolean {
  return typeof resource === 'string' && resourceNamed(opts, resource) === opts.readOnlyResource;
}

/** The provider's `resourceIndicators` feature: this server's resource only, with short-lived opaque access tokens. */
export function resourceIndicators(opts: HostedOptions): ResourceIndicators {
  return {
    enabled: true,
    defaultResource: () => opts.resource,
    useGrantedResource: () => true,
    getResourceServerInfo: (_ctx: KoaContextWithOIDC, indicator: string) => {
      const audience = resourceNamed(opts, indicator);
      if (!audience) throw new errors.InvalidTarget(`this server only issues tokens for ${opts.resource} and ${opts.readOnlyResource}`);
      return { scope: MCP_SCOPE, audience, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
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
  const issuedFor = [...(token?.resourceIndicators ?? [])].join(', ') || opts.resource;
  if (!resourceNamed(opts, resource) || !token?.resourceIndicators.has(resource)) {
    throw new errors.InvalidTarget(`this refresh token was issued for ${issuedFor} only; the refresh token is still valid`);
  }
}
