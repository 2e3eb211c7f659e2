/**
 * Which access token to use: `YNAB_ACCESS_TOKEN` from the environment (how MCPB desktop hosts pass a
 * token the user entered), then the OS keychain, then the fallback file.
 */
import type { SecretStore, SecretSource } from './secret-common.js';

export const ACCESS_TOKEN_ENV = 'YNAB_ACCESS_TOKEN';
export const ACCESS_TOKEN_NAME = 'access_token';

export type AccessTokenSource = 'env' | SecretSource;

export interface ResolvedAccessToken {
  token: string;
  source: AccessTokenSource;
}

/**
 * A usable token from the environment, or null. Blank values and an unsubstituted template such as
 * `${user_config.ynab_token}` (a host that left an optional field empty) count as unset.
 */
export function accessTokenFromEnv(env: Record<string, string | undefined>): string | null {
  const raw = env[ACCESS_TOKEN_ENV];
  if (raw === undefined) return null;
  const token = raw.trim();
  if (token === '' || /^\$\{[^}]*\}$/.test(token)) return null;
  return token;
}

/**
 * Resolves the access token. `store` may be a function that opens the store: it is called only when
 * the environment has no token, so a host-provided token never touches the keychain.
 */
export async function resolveAccessToken(
  store: Pick<SecretStore, 'lookup'> | (() => Promise<Pick<SecretStore, 'lookup'>>),
  env: Record<string, string | undefined> = process.env,
): Promise<ResolvedAccessToken | null> {
  const fromEnv = accessTokenFromEnv(env);
  if (fromEnv !== null) return { token: fromEnv, source: 'env' };
  const opened = typeof store === 'function' ? await store() : store;
  const found = await opened.lookup(ACCESS_TOKEN_NAME);
  return found === null ? null : { token: found.value, source: found.source };
}
