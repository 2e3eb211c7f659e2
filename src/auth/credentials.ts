/**
 * What a sign-in stores, in one place: the secret names `login` writes (and replaces), and the
 * identity under which the sign-in's replicas are saved. connection.ts, login, logout and status
 * all derive from these, so a replica saved by `serve` is the one `logout` removes.
 */
import { randomBytes } from 'node:crypto';
import { tokenKey } from '../quota/ledger.js';
import { CREDENTIAL_NAMES, type SecretStore } from './secret-common.js';

export { CREDENTIAL_NAMES };

export type CredentialName = (typeof CREDENTIAL_NAMES)[number];

export type Scope = 'full' | 'read-only';

export interface PersonalCredentials {
  kind: 'personal';
  accessToken: string;
  /** The API the token was checked against, when not the default (the sandbox). */
  baseUrl?: string;
}

export interface OAuthCredentials {
  kind: 'oauth';
  accessToken: string;
  /** Null for the implicit grant, which has none. */
  refreshToken: string | null;
  expiresAt: Date;
  scope: Scope;
  clientId: string;
  /** Null for the implicit grant (the secret is not needed and so not kept). */
  clientSecret: string | null;
  appUrl: string;
  baseUrl?: string;
}

export type Credentials = PersonalCredentials | OAuthCredentials;

type Store = Pick<SecretStore, 'get' | 'set' | 'delete'>;

/** A fresh grant id: names the grant's replicas and refresh lock; random, so a new sign-in never reuses another's data. */
export function newGrantId(): string {
  return randomBytes(12).toString('hex');
}

/**
 * Replaces the stored sign-in. The access token is written last: a server that starts meanwhile
 * finds either no token or a complete sign-in, never a new token beside an old grant's fields.
 */
export async function saveCredentials(store: Store, creds: Credentials): Promise<void> {
  const values: Partial<Record<CredentialName, string>> = { token_kind: creds.kind };
  if (creds.baseUrl) values.base_url = creds.baseUrl;
  if (creds.kind === 'oauth') {
    if (creds.refreshToken) values.refresh_token = creds.refreshToken;
    values.token_expires_at = creds.expiresAt.toISOString();
    values.token_scope = creds.scope;
    values.oauth_client_id = creds.clientId;
    if (creds.clientSecret) values.oauth_client_secret = creds.clientSecret;
    values.oauth_app_url = creds.appUrl;
    values.grant_id = newGrantId();
  }
  await store.delete('access_token');
  for (const name of CREDENTIAL_NAMES) {
    if (name === 'access_token') continue;
    const value = values[name];
    if (value === undefined) await store.delete(name);
    else await store.set(name, value);
  }
  await store.set('access_token', creds.accessToken);
}

/** The replica identity of an OAuth grant: stable across refreshes (connection.ts uses it for `serve`). */
export function oauthIdentity(grantIdentity: string): string {
  return tokenKey(`oauth:${grantIdentity}`);
}

/** The id an OAuth provider names its grant by (as oauth-provider.ts reads it). */
export async function storedGrantIdentity(store: Pick<SecretStore, 'get'>): Promise<string> {
  return (await store.get('grant_id')) ?? (await store.get('oauth_client_id')) ?? 'oauth';
}

/**
 * The replica identity of what the store holds now, or null when nothing is stored: a personal
 * token's replicas are keyed by the token's hash (the stack's default), an OAuth grant's by its id.
 */
export async function storedIdentity(store: Pick<SecretStore, 'get'>): Promise<string | null> {
  const access = await store.get('access_token');
  if (access === null) return null;
  if ((await store.get('token_kind')) === 'oauth') return oauthIdentity(await storedGrantIdentity(store));
  return tokenKey(access);
}
