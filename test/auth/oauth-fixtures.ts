/**
 * OAuth helpers for the credential tests, all against the sandbox's real endpoints:
 * playing the browser (follow the authorization redirect), obtaining a grant directly (for tests
 * of what happens after login), storing it as `login` would, revoking, and listing every secret
 * the sandbox ever issued so outputs can be searched for them.
 */
import { expect } from 'vitest';
import { saveCredentials, type Scope } from '../../src/auth/credentials.js';
import { openSecretStore, type OpenedSecretStore } from '../../src/auth/secret-store.js';
import type { RunningSandbox } from '../../src/sandbox/app.js';

/** The browser's first step: GET the authorization URL, which answers with a redirect. */
export async function authorize(url: string): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  return new URL(res.headers.get('location')!);
}

export interface SandboxGrant {
  access: string;
  refresh: string | null;
  expiresIn: number;
  scope: Scope;
}

/** A grant straight from the sandbox (code or implicit), without the CLI. */
export async function sandboxGrant(sb: RunningSandbox, opts: { scope?: Scope; implicit?: boolean } = {}): Promise<SandboxGrant> {
  // Never contacted: the redirect is read from the Location header.
  const redirectUri = 'http://127.0.0.1:9/callback';
  const url = new URL('/oauth/authorize', sb.appUrl);
  url.searchParams.set('client_id', sb.oauthClientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', opts.implicit ? 'token' : 'code');
  url.searchParams.set('state', 'fixture');
  if (opts.scope === 'read-only') url.searchParams.set('scope', 'read-only');
  const location = await authorize(url.toString());
  if (opts.implicit) {
    const f = new URLSearchParams(location.hash.slice(1));
    return {
      access: f.get('access_token')!,
      refresh: null,
      expiresIn: Number(f.get('expires_in')),
      scope: f.get('scope') === 'read-only' ? 'read-only' : 'full',
    };
  }
  const res = await fetch(new URL('/oauth/token', sb.appUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: sb.oauthClientId,
      client_secret: sb.oauthClientSecret,
    }),
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return { access: body.access_token, refresh: body.refresh_token, expiresIn: body.expires_in, scope: body.scope === 'read-only' ? 'read-only' : 'full' };
}

/** Stores a grant in the file store of `configDir` as `login --oauth` would; `expiresAt` overrides the real expiry. */
export async function storeGrant(sb: RunningSandbox, configDir: string, grant: SandboxGrant, expiresAt?: Date): Promise<OpenedSecretStore> {
  const store = await openSecretStore({ configDir, keychain: 'off' });
  await saveCredentials(store, {
    kind: 'oauth',
    accessToken: grant.access,
    refreshToken: grant.refresh,
    expiresAt: expiresAt ?? new Date(Date.now() + grant.expiresIn * 1000),
    scope: grant.scope,
    clientId: sb.oauthClientId,
    clientSecret: grant.refresh ? sb.oauthClientSecret : null,
    appUrl: sb.appUrl,
    baseUrl: sb.baseUrl,
  });
  return store;
}

export const PAST = () => new Date(Date.now() - 60_000);

/** POST /oauth/revoke (RFC 7009) with the sandbox's client credentials. */
export async function revoke(sb: RunningSandbox, token: string): Promise<void> {
  const res = await fetch(new URL('/oauth/revoke', sb.appUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: sb.oauthClientId, client_secret: sb.oauthClientSecret }),
  });
  expect(res.status).toBe(200);
}

/** Tries a refresh token at the sandbox directly: the status and OAuth error. */
export async function tryRefresh(sb: RunningSandbox, refreshToken: string): Promise<{ status: number; error?: string }> {
  const res = await fetch(new URL('/oauth/token', sb.appUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: sb.oauthClientId, client_secret: sb.oauthClientSecret }),
  });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, error: body.error };
}

export const oauthGrants = (sb: RunningSandbox) => sb.tokens.snapshot().grants.filter((g) => g.kind === 'oauth');

export const refreshStatus = (sb: RunningSandbox, token: string) => sb.tokens.snapshot().refresh_tokens.find((r) => r.token === token)?.status;

/** Every secret the sandbox knows: personal tokens, every OAuth access and refresh token, the client secret. */
export function sandboxSecrets(sb: RunningSandbox): string[] {
  const { grants, refresh_tokens } = sb.tokens.snapshot();
  return [sb.oauthClientSecret, ...grants.flatMap((g) => [g.access_token, g.refresh_token ?? '']), ...refresh_tokens.map((r) => r.token)].filter(
    (s) => s.length > 0,
  );
}

/** Fails naming which kind of secret appeared (never printing the secret itself). */
export function expectNoSecrets(text: string, secrets: readonly string[], where: string): void {
  const leaked = secrets.filter((s) => text.includes(s)).map((s) => `${s.slice(0, 8)}… (${s.length} chars)`);
  expect(leaked, `secrets found in ${where}`).toEqual([]);
}
