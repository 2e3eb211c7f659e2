/**
 * OAuth on app_url: the authorization code and implicit grants, scope, default budget
 * selection, refresh (single use, revoked on the new token's first use), expiry, revocation,
 * and OAuth errors (never a crash) for every kind of bad request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let now = Date.parse('2026-05-14T10:00:00Z');
let sb: TestSandbox;
let callback: Server;
let redirectUri: string;
const received: URL[] = [];

beforeAll(async () => {
  sb = await testSandbox({ clock: () => new Date(now) });
  // The application's loopback redirect target, as a desktop app would run it.
  callback = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://callback.invalid'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('you may close this window');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
});

afterAll(async () => {
  await sb?.close();
  await new Promise((resolve) => callback?.close(resolve));
});

interface TokenAnswer {
  status: number;
  headers: Headers;
  body: any;
}

function authorizeUrl(params: Record<string, string>): string {
  return `${sb.appUrl}/oauth/authorize?${new URLSearchParams(params)}`;
}

/** GET /oauth/authorize without following: the status and the parsed Location. */
async function authorize(params: Record<string, string>) {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location) : null, text: await res.text(), headers: res.headers };
}

async function tokenRequest(fields: Record<string, string>, init: { query?: boolean } = {}): Promise<TokenAnswer> {
  const form = new URLSearchParams(fields);
  const res = init.query
    ? await fetch(`${sb.appUrl}/oauth/token?${form}`, { method: 'POST' })
    : await fetch(`${sb.appUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) };
}

const client = () => ({ client_id: sb.oauthClientId, client_secret: sb.oauthClientSecret });

async function codeFor(extra: Record<string, string> = {}, redirect = redirectUri): Promise<string> {
  const { status, location } = await authorize({ client_id: sb.oauthClientId, redirect_uri: redirect, response_type: 'code', state: 's1', ...extra });
  expect(status).toBe(302);
  const code = location!.searchParams.get('code');
  expect(code).toBeTruthy();
  return code!;
}

async function exchange(code: string, redirect = redirectUri): Promise<TokenAnswer> {
  return tokenRequest({ ...client(), grant_type: 'authorization_code', code, redirect_uri: redirect });
}

async function grant(extra: Record<string, string> = {}): Promise<{ access_token: string; refresh_token: string; [k: string]: unknown }> {
  const res = await exchange(await codeFor(extra));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const refresh = (refreshToken: string) => tokenRequest({ ...client(), grant_type: 'refresh_token', refresh_token: refreshToken });

function expectOAuthError(res: TokenAnswer, status: number, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toBe(error);
  expect(typeof res.body.error_description).toBe('string');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

function expectToken(body: any, withRefresh: boolean) {
  expect(body.access_token).toMatch(/^\S{20,}$/);
  expect(body.token_type).toBe('bearer');
  expect(body.expires_in).toBe(7200);
  if (withRefresh) expect(body.refresh_token).toMatch(/^\S{20,}$/);
}

describe('authorization code grant', () => {
  it('works end to end: authorize, redirect to the loopback app, token, API call', async () => {
    const state = 'csrf a/b&c=d é';
    // A browser follows the redirect to the application's loopback address.
    const res = await fetch(authorizeUrl({ client_id: sb.oauthClientId, redirect_uri: redirectUri, response_type: 'code', state }));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('you may close this window');
    const arrived = received.at(-1)!;
    expect(arrived.pathname).toBe('/callback');
    expect(arrived.searchParams.get('state')).toBe(state);
    const code = arrived.searchParams.get('code')!;
    expect(code).toMatch(/^\S{16,}$/);
    expect(arrived.searchParams.get('access_token')).toBeNull();

    const token = await exchange(code);
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(token.body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    expectToken(token.body, true);

    const user = await sb.get('/user', token.body.access_token);
    expect(user.status).toBe(200);
    expect(user.body.data.user.id).toBe(sb.state.userId);
    // An OAuth token has its own rate-limit budget.
    expect(user.headers.get('x-rate-limit')).toBe('1/200');
    // And it may write.
    expect((await sb.call('POST', '/budgets/default/payees', { payee: { name: 'OAuth Payee' } }, token.body.access_token)).status).toBe(201);
  });

  it('also accepts the token request fields in the query string', async () => {
    const code = await codeFor();
    const res = await tokenRequest({ ...client(), grant_type: 'authorization_code', code, redirect_uri: redirectUri }, { query: true });
    expect(res.status).toBe(200);
    expectToken(res.body, true);
  });

  it('also accepts the client credentials as HTTP Basic (RFC 6749 2.3.1), and checks them', async () => {
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const post = async (authorization: string, fields: Record<string, string>) => {
      const res = await fetch(`${sb.appUrl}/oauth/token`, { method: 'POST', headers: { authorization }, body: new URLSearchParams(fields) });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    };
    const code = await codeFor();
    expectOAuthError(
      await post(basic(sb.oauthClientId, 'wrong'), { grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      401,
      'invalid_client',
    );
    // Wrong Basic credentials win over right ones in the body.
    expectOAuthError(
      await post(basic(sb.oauthClientId, 'wrong'), { ...client(), grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      401,
      'invalid_client',
    );
    const ok = await post(basic(sb.oauthClientId, sb.oauthClientSecret), { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
    expect(ok.status).toBe(200);
    expectToken(ok.body, true);
    const refreshed = await post(basic(sb.oauthClientId, sb.oauthClientSecret), { grant_type: 'refresh_token', refresh_token: ok.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expectOAuthError(await post('Basic !!!not-base64', { grant_type: 'refresh_token', refresh_token: 'x' }), 401, 'invalid_client');
  });

  it('gives default budget selection: "default" works and default_budget / default_plan are set', async () => {
    const { access_token } = await grant();
    const budgets = await sb.get('/budgets', access_token);
    const first = budgets.body.data.budgets[0];
    expect(budgets.body.data.default_budget).toMatchObject({ id: first.id, name: first.name });
    const plans = await sb.get('/plans', access_token);
    expect(plans.body.data.default_plan.id).toBe(first.id);
    const accounts = await sb.get('/budgets/default/accounts', access_token);
    expect(accounts.status).toBe(200);
    expect(accounts.body.data.accounts).toEqual((await sb.get(`/budgets/${first.id}/accounts`)).body.data.accounts);
    expect((await sb.get('/plans/default/settings', access_token)).status).toBe(200);
    // A personal token has no default budget.
    expect((await sb.get('/budgets')).body.data.default_budget).toBeNull();
    expect((await sb.get('/budgets/default/accounts')).status).toBe(404);
  });

  it('scope=read-only: reads work, every write is 403.3, and refreshing keeps the scope', async () => {
    const token = await grant({ scope: 'read-only' });
    expect((await sb.get('/budgets/default/accounts', token.access_token)).status).toBe(200);
    const write = await sb.call('POST', '/budgets/default/payees', { payee: { name: 'Nope' } }, token.access_token);
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ id: '403.3', name: 'unauthorized_scope' });
    const next = await refresh(token.refresh_token);
    expect(next.status).toBe(200);
    const again = await sb.call('PATCH', '/plans/default/payees/00000000-0000-4000-8000-000000000000', { payee: { name: 'x' } }, next.body.access_token);
    expect(again.status).toBe(403);
    expect(again.body.error.id).toBe('403.3');
  });

  it('refuses a wrong client secret, an unknown client, a reused code and a mismatched redirect_uri', async () => {
    const code = await codeFor();
    expectOAuthError(
      await tokenRequest({ ...client(), client_secret: 'wrong', grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      401,
      'invalid_client',
    );
    expectOAuthError(
      await tokenRequest({ ...client(), client_id: 'someone-else', grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      401,
      'invalid_client',
    );
    expectOAuthError(await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }), 401, 'invalid_client');
    // A refused client did not consume the code.
    expect((await exchange(code)).status).toBe(200);
    expectOAuthError(await exchange(code), 400, 'invalid_grant');

    const other = await codeFor();
    expectOAuthError(await exchange(other, 'http://127.0.0.1:1/elsewhere'), 400, 'invalid_grant');
    expectOAuthError(await tokenRequest({ ...client(), grant_type: 'authorization_code', code: 'made-up', redirect_uri: redirectUri }), 400, 'invalid_grant');
    expectOAuthError(await tokenRequest({ ...client(), grant_type: 'authorization_code', redirect_uri: redirectUri }), 400, 'invalid_grant');
  });

  it('lets a code expire after ten minutes', async () => {
    const code = await codeFor();
    now += 11 * 60_000;
    expectOAuthError(await exchange(code), 400, 'invalid_grant');
  });

  it('refuses unknown grant types', async () => {
    for (const grant_type of ['password', 'client_credentials', '']) {
      expectOAuthError(await tokenRequest({ ...client(), grant_type, username: 'u', password: 'p' }), 400, 'unsupported_grant_type');
    }
  });
});

describe('implicit grant', () => {
  it('puts the token in the fragment, echoes state, and gives no refresh token', async () => {
    const { status, location } = await authorize({ client_id: sb.oauthClientId, redirect_uri: redirectUri, response_type: 'token', state: 'xyz 1' });
    expect(status).toBe(302);
    expect(`${location!.origin}${location!.pathname}`).toBe(redirectUri);
    expect(location!.search).toBe('');
    const fragment = new URLSearchParams(location!.hash.slice(1));
    expect(fragment.get('state')).toBe('xyz 1');
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('expires_in')).toBe('7200');
    expect(fragment.get('refresh_token')).toBeNull();
    const token = fragment.get('access_token')!;
    expect(token).toMatch(/^\S{20,}$/);
    expect((await sb.get('/user', token)).status).toBe(200);
    expect((await sb.get('/budgets/default/months/current', token)).status).toBe(200);
  });

  it('with scope=read-only gives a read-only token', async () => {
    const { location } = await authorize({ client_id: sb.oauthClientId, redirect_uri: redirectUri, response_type: 'token', scope: 'read-only' });
    const token = new URLSearchParams(location!.hash.slice(1)).get('access_token')!;
    expect((await sb.call('POST', '/budgets/default/payees', { payee: { name: 'x' } }, token)).body.error.id).toBe('403.3');
  });
});

describe('authorization request errors', () => {
  it('shows a 400 page and never redirects to a non-loopback or missing redirect_uri', async () => {
    for (const redirect of ['https://evil.example/cb', 'http://example.com/cb', 'http://127.0.0.1.evil.example/cb', 'javascript:alert(1)', 'not a url', '']) {
      const res = await authorize({ client_id: sb.oauthClientId, redirect_uri: redirect, response_type: 'code', state: 's' });
      expect(res.status, redirect).toBe(400);
      expect(res.location).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toMatch(/redirect_uri/);
    }
    const noRedirect = await fetch(`${sb.appUrl}/oauth/authorize?client_id=${sb.oauthClientId}&response_type=code`, { redirect: 'manual' });
    expect(noRedirect.status).toBe(400);
    expect(noRedirect.headers.get('location')).toBeNull();
  });

  it('shows a 400 page for an unknown client_id', async () => {
    const res = await authorize({ client_id: 'unknown', redirect_uri: redirectUri, response_type: 'code' });
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.text).toMatch(/client_id/);
  });

  it('redirects with an error for a bad response_type or scope, echoing state', async () => {
    const bad = await authorize({ client_id: sb.oauthClientId, redirect_uri: redirectUri, response_type: 'id_token', state: 'st' });
    expect(bad.status).toBe(302);
    expect(bad.location!.searchParams.get('error')).toBe('unsupported_response_type');
    expect(bad.location!.searchParams.get('state')).toBe('st');
    expect(bad.location!.searchParams.get('code')).toBeNull();
    const scope = await authorize({ client_id: sb.oauthClientId, redirect_uri: redirectUri, response_type: 'code', scope: 'admin', state: 'st' });
    expect(scope.location!.searchParams.get('error')).toBe('invalid_scope');
    expect(scope.location!.searchParams.get('code')).toBeNull();
  });
});

describe('refresh', () => {
  it("gives a new pair; the old access token stops; the refresh token is revoked on the new token's first use", async () => {
    const first = await grant();
    expect((await sb.get('/user', first.access_token)).status).toBe(200);

    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expectToken(second.body, true);
    expect(second.body.access_token).not.toBe(first.access_token);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const old = await sb.get('/user', first.access_token);
    expect(old.status).toBe(401);
    expect(old.body.error).toMatchObject({ id: '401', name: 'not_authorized' });

    // Before the new access token is used, the refresh token may still be exchanged (a lost
    // token response can be retried); that supersedes the token it produced before.
    const retried = await refresh(first.refresh_token);
    expect(retried.status).toBe(200);
    expect((await sb.get('/user', second.body.access_token)).status).toBe(401);

    // The first use of the new access token revokes the refresh token it came from.
    expect((await sb.get('/user', retried.body.access_token)).status).toBe(200);
    expectOAuthError(await refresh(first.refresh_token), 400, 'invalid_grant');
    expect((await sb.get('/user', retried.body.access_token)).status).toBe(200);

    // The new refresh token works, once its own access token has been used.
    const third = await refresh(retried.body.refresh_token);
    expect(third.status).toBe(200);
    expect((await sb.get('/user', third.body.access_token)).status).toBe(200);
    expectOAuthError(await refresh(retried.body.refresh_token), 400, 'invalid_grant');
  });

  it('refuses unknown refresh tokens, access tokens used as refresh tokens, and a wrong secret', async () => {
    const token = await grant();
    expectOAuthError(await refresh('sbx_refresh_unknown'), 400, 'invalid_grant');
    expectOAuthError(await refresh(token.access_token), 400, 'invalid_grant');
    expectOAuthError(await refresh(''), 400, 'invalid_grant');
    expectOAuthError(
      await tokenRequest({ ...client(), client_secret: 'nope', grant_type: 'refresh_token', refresh_token: token.refresh_token }),
      401,
      'invalid_client',
    );
    // Still usable after the refused attempts.
    expect((await refresh(token.refresh_token)).status).toBe(200);
  });
});

describe('expiry', () => {
  it('expires access tokens after expires_in seconds; the refresh token still works', async () => {
    const token = await grant();
    now += 7199_000;
    expect((await sb.get('/user', token.access_token)).status).toBe(200);
    now += 1_000;
    const expired = await sb.get('/user', token.access_token);
    expect(expired.status).toBe(401);
    expect(expired.body.error).toMatchObject({ id: '401', name: 'not_authorized' });
    expect(expired.body.error.detail).toMatch(/expired/);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // Personal tokens do not expire.
    expect((await sb.get('/user')).status).toBe(200);
    const next = await refresh(token.refresh_token);
    expect(next.status).toBe(200);
    expect((await sb.get('/user', next.body.access_token)).status).toBe(200);
  });

  it('honours a short oauthTokenTtl with the real clock', async () => {
    const short = await testSandbox({ oauthTokenTtl: 1 });
    try {
      const params = new URLSearchParams({ client_id: short.oauthClientId, redirect_uri: redirectUri, response_type: 'token' });
      const res = await fetch(`${short.appUrl}/oauth/authorize?${params}`, { redirect: 'manual' });
      const fragment = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
      expect(fragment.get('expires_in')).toBe('1');
      const token = fragment.get('access_token')!;
      expect((await short.get('/user', token)).status).toBe(200);
      // Bounded polling: the token must stop working within a few seconds.
      const deadline = Date.now() + 5_000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await short.get('/user', token)).status;
      }
      expect(status).toBe(401);
    } finally {
      await short.close();
    }
  });
});

describe('revocation', () => {
  const revoke = (fields: Record<string, string>) => tokenRequestTo('/oauth/revoke', fields);

  async function tokenRequestTo(path: string, fields: Record<string, string>): Promise<TokenAnswer> {
    const res = await fetch(`${sb.appUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    return { status: res.status, headers: res.headers, body: JSON.parse(await res.text()) };
  }

  it('revokes an access token', async () => {
    const token = await grant();
    expect((await sb.get('/user', token.access_token)).status).toBe(200);
    expect((await revoke({ ...client(), token: token.access_token })).status).toBe(200);
    const res = await sb.get('/user', token.access_token);
    expect(res.status).toBe(401);
    expect(res.body.error.detail).toMatch(/revoked/);
  });

  it('revokes a refresh token and the access token it belongs to', async () => {
    const token = await grant();
    expect((await revoke({ ...client(), token: token.refresh_token })).status).toBe(200);
    expectOAuthError(await refresh(token.refresh_token), 400, 'invalid_grant');
    expect((await sb.get('/user', token.access_token)).status).toBe(401);
  });

  it('needs the client credentials and a token; unknown tokens are not an error (RFC 7009)', async () => {
    const token = await grant();
    expectOAuthError(await revoke({ ...client(), client_secret: 'x', token: token.access_token }), 401, 'invalid_client');
    expect((await sb.get('/user', token.access_token)).status).toBe(200);
    expectOAuthError(await revoke(client()), 400, 'invalid_request');
    expect((await revoke({ ...client(), token: 'never-issued' })).status).toBe(200);
  });

  it('cannot revoke the personal tokens, which were not issued to the OAuth client', async () => {
    expectOAuthError(await revoke({ token: sb.accessToken }), 401, 'invalid_client');
    expect((await revoke({ ...client(), token: sb.accessToken })).status).toBe(200);
    expect((await revoke({ ...client(), token: sb.readOnlyToken })).status).toBe(200);
    expect((await sb.get('/user')).status).toBe(200);
    expect((await sb.get('/user', sb.readOnlyToken)).status).toBe(200);
  });
});

describe('robustness', () => {
  it('answers garbage sent to /oauth/token with OAuth errors and stays up', async () => {
    const bodies: [string, string | Uint8Array][] = [
      ['application/x-www-form-urlencoded', '%%%&&&===%zz%E0%A4%A'],
      ['application/x-www-form-urlencoded', ''],
      ['application/json', '{"client_id": '],
      ['application/json', 'null'],
      ['application/json', '[1,2,3]'],
      ['application/json', '"client_id"'],
      ['application/json', JSON.stringify({ client_id: { nested: true }, client_secret: ['a'] })],
      ['text/plain', 'grant_type=authorization_code'],
      ['application/octet-stream', new Uint8Array([0, 255, 254, 1, 2, 3, 0xc3, 0x28])],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--'],
    ];
    for (const [type, body] of bodies) {
      const res = await fetch(`${sb.appUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': type }, body });
      const text = await res.text();
      expect(res.status, `${type} ${String(body)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const parsed = JSON.parse(text);
      expect(['invalid_client', 'invalid_request', 'invalid_grant', 'unsupported_grant_type']).toContain(parsed.error);
    }
    // Valid client, garbage elsewhere.
    const json = await fetch(`${sb.appUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...client(), grant_type: 'authorization_code', code: 12345, redirect_uri: null }),
    });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toBe('invalid_grant');
    const noType = await fetch(`${sb.appUrl}/oauth/token`, { method: 'POST', body: new URLSearchParams(client()) });
    expect(((await noType.json()) as any).error).toBe('unsupported_grant_type');
    // Wrong methods and paths get JSON 404s.
    const get = await fetch(`${sb.appUrl}/oauth/token`);
    expect(get.status).toBe(404);
    expect(((await get.json()) as any).error.id).toBe('404.1');
    // Still serving.
    expect((await sb.get('/user')).status).toBe(200);
    expect((await grant()).access_token).toBeTruthy();
  });
});
