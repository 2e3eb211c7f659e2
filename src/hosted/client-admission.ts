/**
 * Which OAuth clients the hosted authorization server (authorization-server.ts) admits, and from
 * where it will fetch what a client says about itself. Both are defences of the server, not of
 * the protocol, so they are kept together and apart from the provider's configuration:
 *
 *  - redirect URIs (registered dynamically or named in a metadata document) are https, or http to
 *    a loopback host: an http URI elsewhere would send the authorization code across the network
 *    in the clear;
 *  - a client ID metadata document is fetched only from an https URL whose host resolves to public
 *    addresses only (checked before any connection is made), at most once per request.
 */
import { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { isLoopbackHost, isSpecialUseAddress, resolveHost } from '../shared/addresses.js';
import type { HostedOptions } from './options.js';

/** oidc-provider's own limit on a client metadata document fetch (lib/helpers/fetch_request.js); resolving its host gets as long again. */
export const METADATA_FETCH_TIMEOUT_MS = 2500;

type MetadataDocuments = NonNullable<NonNullable<Configuration['features']>['clientIdMetadataDocument']>;

/**
 * Redirect URIs a client may register (dynamically or in its metadata document): https, or http
 * to a loopback host (MCP authorization specification, 2025-11-25).
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return undefined; // the library's schema reports what is not a string
  const url = URL.parse(uri);
  if (!url) return undefined; // and what is not a URL
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `redirect_uris must be https URLs, or http URLs on a loopback address (127.0.0.1, [::1] or localhost); ${JSON.stringify(uri)} is neither`;
}

/** The provider's `extraClientMetadata`: every client's redirect URIs pass redirectUriProblem. */
export const redirectUriCheck: Configuration['extraClientMetadata'] = {
  // Not an extra property: listed so that the validator sees every client's redirect URIs.
  properties: ['redirect_uris'],
  validator: (_ctx, key, value) => {
    if (key !== 'redirect_uris' || !Array.isArray(value)) return;
    for (const uri of value) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new errors.InvalidClientMetadata(problem);
    }
  },
};

/** The provider's `clientIdMetadataDocument` feature, with the fetch policy above. */
export function clientMetadataDocuments(opts: HostedOptions): MetadataDocuments {
  // A client metadata document is fetched at most once per request: after a failed fetch the
  // library looks the client up again to word its error, which would wait for the timeout twice.
  const fetchedIn = new WeakMap<object, Set<string>>();
  return {
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
  };
}

/**
 * Tests only (an http loopback public URL): client metadata documents may be served from
 * 127.0.0.1 (by that address: a name that resolves to it is refused as anywhere else).
 * Otherwise nothing: the provider's own fetch, whose connection refuses special-use addresses.
 */
export function loopbackTestFetch(opts: HostedOptions): Pick<Configuration, 'fetch'> {
  if (!opts.loopbackTest) return {};
  return {
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.hostname === '127.0.0.1' && init) delete (init as { dispatcher?: unknown }).dispatcher;
      return fetch(input, init);
    },
  };
}
