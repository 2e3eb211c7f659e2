/**
 * The MCP endpoint as an OAuth resource server (MCP specification 2025-11-25, Authorization):
 *  - Protected resource metadata (RFC 9728) at /.well-known/oauth-protected-resource and at the
 *    path-suffixed /.well-known/oauth-protected-resource/mcp: the resource is <public URL>/mcp,
 *    its authorization server this same origin.
 *  - Every request to /mcp needs `Authorization: Bearer <access token>`. Without one: 401 with
 *    `WWW-Authenticate: Bearer resource_metadata="…", scope="ynab"`, which is how clients find
 *    where to sign in. A token that is unknown, expired, revoked, issued for another resource
 *    (audience) or whose YNAB grant is gone: 401 with error="invalid_token", so the client signs in
 *    again. Tokens in the query string are never read.
 *  - A valid token names the user (the account of the grant): the request is served with that
 *    user's state and nobody else's.
 *  - The read-only endpoint, /mcp/read-only, is a resource of its own (metadata at
 *    /.well-known/oauth-protected-resource/mcp/read-only): its tokens are refused on /mcp and
 *    /mcp's on it, by audience.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type Provider from 'oidc-provider';
import { bearerToken } from '../transport/http-guards.js';
import { StateStoreError } from '../storage/store.js';
import { ACCESS_TOKEN_TTL_S, MCP_SCOPE } from './resource-binding.js';
import type { ReadAhead } from './read-ahead.js';
import type { HostedOptions } from './options.js';
import type { YnabGrant, YnabGrants } from './ynab-grants.js';

const PRM = '/.well-known/oauth-protected-resource';
/** The read-only endpoint's path. */
export const READ_ONLY_PATH = '/mcp/read-only';

/** Protected resource metadata by path: the full endpoint's at the root and /mcp, the read-only one's at /mcp/read-only. */
export function protectedResourceMetadata(opts: HostedOptions): Map<string, Record<string, unknown>> {
  const of = (resource: string, name: string) => ({
    resource,
    authorization_servers: [opts.publicUrl],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: name,
  });
  const full = of(opts.resource, 'YNAB budgets (ynab-mcp)');
  return new Map([
    [PRM, full],
    [`${PRM}/mcp`, full],
    [`${PRM}${READ_ONLY_PATH}`, of(opts.readOnlyResource, 'YNAB budgets, read-only (ynab-mcp)')],
  ]);
}

/** Answers GET of the protected resource metadata paths (any origin may read them); false for any other path. */
export function metadataRoute(opts: HostedOptions): (req: IncomingMessage, res: ServerResponse, url: URL) => boolean {
  const metadata = protectedResourceMetadata(opts);
  return (req, res, url) => {
    const prm = metadata.get(url.pathname);
    if (!prm) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET' });
      res.end();
      return true;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' });
    res.end(JSON.stringify(prm));
    return true;
  };
}

/** What authenticate() hands on in AuthInfo.extra. */
export interface HostedAuth {
  identity: string;
  grant: YnabGrant;
  /** Came in on the read-only endpoint: served read-only whatever the grant says. */
  readOnly?: boolean;
}

function challenge(opts: HostedOptions, resource: string, error?: { code: string; description: string }): string {
  const path = resource === opts.readOnlyResource ? READ_ONLY_PATH : '/mcp';
  const parts = [`resource_metadata="${opts.publicUrl}${PRM}${path}"`, `scope="${MCP_SCOPE}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}

function unauthorized(res: ServerResponse, opts: HostedOptions, resource: string, message: string, error?: { code: string; description: string }): undefined {
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': challenge(opts, resource, error), 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
  return undefined;
}

/**
 * The user of each access token this instance has seen (by the token's digest: no token is kept).
 * A token's user never changes, so the grant's read (and what the user's last call read first,
 * read-ahead.ts) goes with the token's: one wait on Redis, not two in sequence. The token is still
 * read on every call, so a token revoked or expired is refused at once.
 */
function tokenUsers(): { of(token: string): string | undefined; seen(token: string, identity: string): void } {
  const users = new LRUCache<string, string>({ max: 10_000, ttl: ACCESS_TOKEN_TTL_S * 1000 });
  const digest = (token: string) => createHash('sha256').update(token).digest('base64');
  return { of: (token) => users.get(digest(token)), seen: (token, identity) => void users.set(digest(token), identity) };
}

export function bearerAuthenticator(provider: Provider, grants: YnabGrants, opts: HostedOptions, readAhead?: ReadAhead) {
  const users = tokenUsers();
  /** The token's record and its user's grant (with the reads ahead), together when the user is known. */
  const lookUp = async (presented: string): Promise<[InstanceType<Provider['AccessToken']> | undefined, YnabGrant | undefined]> => {
    const known = users.of(presented);
    if (known === undefined) {
      const token = await provider.AccessToken.find(presented);
      if (!token?.accountId) return [token, undefined];
      users.seen(presented, token.accountId);
      const [grant] = await Promise.all([grants.read(token.accountId), readAhead?.start(token.accountId, true)]);
      return [token, grant];
    }
    const [token, grant] = await Promise.all([provider.AccessToken.find(presented), grants.read(known), readAhead?.start(known)]);
    if (!token?.accountId || token.accountId === known) return [token, grant];
    return [token, await grants.read(token.accountId)]; // never: a token's user does not change
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined> => {
    const readOnly = (req.url ?? '/').split('?')[0] === READ_ONLY_PATH;
    const resource = readOnly ? opts.readOnlyResource : opts.resource;
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) {
      const where = `${opts.publicUrl}${PRM}${readOnly ? READ_ONLY_PATH : '/mcp'}`;
      return unauthorized(res, opts, resource, `Unauthorized: sign in first; this endpoint's protected resource metadata is at ${where}`);
    }
    let token: InstanceType<Provider['AccessToken']> | undefined;
    let grant: YnabGrant | undefined;
    try {
      [token, grant] = await lookUp(presented);
    } catch (e) {
      // The store cannot be reached: nobody can be told who they are, and nobody is turned away for good.
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            // Said before any tool ran: a write refused here did nothing, and the client may retry it.
            message: `Service unavailable: the server's state store cannot be reached just now (${e instanceof StateStoreError ? 'Redis' : 'internal error'}); nothing was done, try again shortly`,
          },
          id: null,
        }),
      );
      return undefined;
    }
    const invalid = (description: string) => unauthorized(res, opts, resource, `Unauthorized: ${description}`, { code: 'invalid_token', description });
    if (!token || token.isExpired) return invalid('the access token is not valid (unknown, expired or revoked)');
    // Audience (RFC 8707): a token issued for another resource is refused, whoever issued it.
    const audiences = Array.isArray(token.aud) ? token.aud : [token.aud];
    if (!audiences.includes(resource)) return invalid(`the access token was not issued for ${resource}`);
    if (!token.scopes.has(MCP_SCOPE)) return invalid(`the access token does not carry the ${MCP_SCOPE} scope`);
    const identity = token.accountId;
    if (!identity || !grant) return invalid('the YNAB sign-in behind this token is gone (revoked or expired); sign in again');
    const extra: HostedAuth = { identity, grant, ...(readOnly ? { readOnly } : {}) };
    return {
      token: presented,
      clientId: token.clientId ?? '',
      scopes: [...token.scopes],
      expiresAt: token.exp,
      resource: new URL(resource),
      extra: extra as unknown as Record<string, unknown>,
    };
  };
}
