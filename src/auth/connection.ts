/**
 * Finds the credentials the server runs with, at the first tool call (never at start):
 * YNAB_ACCESS_TOKEN (how MCPB desktop hosts pass it) > the OS keychain > the 0600 file.
 * A personal token is used as it is; an OAuth grant gets a refreshing token provider.
 */
import { NoTokenError, type Connection } from './session.js';
import { oauthIdentity } from './credentials.js';
import { oauthProvider } from './oauth-provider.js';
import { accessTokenFromEnv } from './token-source.js';
import { openSecretStore } from './secret-store.js';
import { commandName } from '../shared/cli-flags.js';

export interface ConnectionOptions {
  configDir: string;
  stateDir: string;
  profile?: string;
  baseUrl?: string;
  env?: Record<string, string | undefined>;
  warn?: (line: string) => void;
}

/**
 * For the MCPB bundle (its manifest sets YNAB_MCP_BUNDLE=1): its user has the host's settings of
 * the extension, not a shell, so it names those settings (their titles in manifest.json).
 */
export const BUNDLE_NO_TOKEN_MESSAGE =
  'No YNAB access token: in your host\'s settings for this extension (YNAB), paste a token in "YNAB personal access token" (from YNAB: Account Settings → Developer Settings → New Token), or turn on "Try the demo budgets".';

/** What to do without a token, where the server runs: the bundle's settings, or the command line. */
export const noTokenMessage = (env: Record<string, string | undefined>): string =>
  env.YNAB_MCP_BUNDLE?.trim() === '1'
    ? BUNDLE_NO_TOKEN_MESSAGE
    : `No YNAB access token: run "${commandName(env)} login" (a personal access token, or --oauth), set YNAB_ACCESS_TOKEN, or start with --sandbox to try the demo budgets.`;

export async function resolveConnection(opts: ConnectionOptions): Promise<Connection> {
  const env = opts.env ?? process.env;
  const fromEnv = accessTokenFromEnv(env);
  if (fromEnv !== null) {
    return { credentials: { token: async () => fromEnv }, info: { source: 'env', kind: 'personal' }, baseUrl: opts.baseUrl };
  }
  // env also carries YNAB_MCP_KEYCHAIN=off, which forces the file store.
  const store = await openSecretStore({ configDir: opts.configDir, profile: opts.profile, warn: opts.warn, env });
  const found = await store.lookup('access_token');
  if (!found) throw new NoTokenError(noTokenMessage(env));
  const source = found.source;
  const kind = (await store.get('token_kind')) === 'oauth' ? 'oauth' : 'personal';
  const baseUrl = opts.baseUrl ?? (await store.get('base_url')) ?? undefined;
  if (kind === 'personal') {
    const token = found.value;
    return { credentials: { token: async () => token }, info: { source, kind }, baseUrl };
  }
  const provider = await oauthProvider({ store, stateDir: opts.stateDir, warn: opts.warn });
  return {
    credentials: provider,
    info: { source, kind, scope: provider.scope, expiresAt: provider.expiresAt() },
    // OAuth access tokens change every two hours; saved replicas belong to the grant, not one token.
    identity: async () => oauthIdentity(provider.grantIdentity),
    baseUrl,
  };
}
