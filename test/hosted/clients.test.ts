// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode as the clients people use meet it, against a real deployment (redis-server, two
 * instances behind a round-robin proxy, the sandbox as YNAB with two users) and the real MCP
 * client: the Origin allow-list on the MCP endpoints, a non-browser user agent served everywhere,
 * dynamic client registration limited per address across instances, sign-in limited to named
 * YNAB users, the read-only endpoint and its own tokens, and YNAB's notice on the consent page.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_AFFILIATED_NOTICE } from '../../src/hosted/pages.js';
import { DataKey, parseDataKey } from '../../src/hosted/sealing.js';
import { grantKey, identityOf } from '../../src/hosted/ynab-grants.js';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { browse, MemoryOAuthProvider, signIn, startDeployment, startInstance, type Deployment, type SignedIn } from '../helpers/hosted.js';

const LIMIT = 5;
const WINDOW_S = 120;
let d: Deployment;
let allowed: SandboxUser;
let stranger: SandboxUser;
let full: SignedIn;
let redis: ReturnType<typeof createClient>;

beforeAll(async () => {
  d = await startDeployment({ instances: 0, sandbox: { users: 2 } });
  [allowed, stranger] = d.sandbox.state.users as [SandboxUser, SandboxUser];
  const args = [
    ...['--allowed-origins', 'https://app.example.com'],
    ...['--registration-limit', String(LIMIT), '--registration-window', String(WINDOW_S)],
    ...['--allowed-users', allowed.id],
  ];
  const started = await Promise.all([0, 1].map(() => startInstance({ ...d.env, args })));
  d.instances.push(...started);
  d.proxy.targets.push(...started.map((i) => i.url));
  full = await signIn(d.mcpUrl, new MemoryOAuthProvider('full client'), { login: allowed.email });
  redis = createClient({ url: d.redis.url });
  await redis.connect();
}, 180_000);

afterAll(async () => {
  await full?.close();
  await redis?.quit();
  await d?.close();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw initialize on `path` with the given headers (and the full client's token unless one is given). */
function post(path: string, headers: Record<string, string>, token = full.provider.tokens()!.access_token): Promise<Response> {
  return fetch(`${d.proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
    body: INITIALIZE,
  });
}

function register(headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${d.proxy.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ client_name: 'raw', redirect_uris: ['http://127.0.0.1:7777/callback'], token_endpoint_auth_method: 'none' }),
  });
}

describe('the Origin allow-list on the MCP endpoints', () => {
  it('answers Claude, ChatGPT, an origin the operator added, and requests without Origin; refuses any other Origin with 403', async () => {
    for (const origin of ['https://claude.ai', 'https://claude.com', 'https://chatgpt.com', 'https://app.example.com']) {
      const res = await post('/mcp', { origin });
      expect(res.status, origin).toBe(200);
      await res.body?.cancel();
    }
    expect((await post('/mcp', {})).status).toBe(200);
    for (const origin of ['http://evil.example.com', 'https://claude.ai.evil.example', 'http://claude.ai', 'https://app.example.com:8443']) {
      const res = await post('/mcp', { origin });
      expect(res.status, origin).toBe(403);
      expect(await res.text(), origin).toMatch(/Origin .* is not allowed here .*--allowed-origins/);
    }
    // Before the token is even read: a page on another origin learns nothing, token or not.
    expect((await post('/mcp', { origin: 'http://evil.example.com' }, 'not-a-token')).status).toBe(403);
  });

  it('leaves the OAuth endpoints to clients of any origin (public clients, CORS)', async () => {
    const res = await fetch(`${d.proxy.url}/.well-known/oauth-authorization-server`, { headers: { origin: 'http://localhost:6274' } });
    expect(res.status).toBe(200);
    const token = await fetch(`${d.proxy.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:6274' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'nope', client_id: 'nope' }),
    });
    expect(token.status).not.toBe(403);
    expect(token.status).toBeGreaterThanOrEqual(400);
  });
});

describe('non-browser clients', () => {
  it('serves a Python-urllib user agent on discovery, registration, the token endpoint and /mcp', async () => {
    const ua = { 'user-agent': 'Python-urllib/3.12', 'x-forwarded-for': '198.51.100.20' };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
      expect((await fetch(`${d.proxy.url}${path}`, { headers: ua })).status, path).toBe(200);
    }
    expect((await register(ua)).status).toBe(201);
    const token = await fetch(`${d.proxy.url}/oauth/token`, {
      method: 'POST',
      headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: full.provider.tokens()!.refresh_token!,
        client_id: full.provider.clientInformation()!.client_id,
      }),
    });
    expect(token.status).toBe(200);
    full.provider.saveTokens((await token.json()) as never);
    const res = await post('/mcp', ua);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe('dynamic client registration', () => {
  it(`takes ${LIMIT} registrations per address, across instances, then answers 429 with Retry-After; another address is not held back`, async () => {
    const from = { 'x-forwarded-for': '10.9.8.7, 203.0.113.7' };
    for (let i = 0; i < LIMIT; i++) expect((await register(from)).status, `registration ${i + 1}`).toBe(201);
    const over = await register(from);
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_S);
    expect(await over.json()).toMatchObject({ error: 'too_many_requests' });
    // The client's own entries before the terminator's are not the address.
    expect((await register({ 'x-forwarded-for': '10.9.8.7, 203.0.113.8' })).status).toBe(201);
    // Both instances counted into one limit (the proxy alternates).
    expect(new Set(d.proxy.forwarded.keys()).size).toBe(2);
    const keys = await redis.keys('*hosted/registrations/*');
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(keys.join(' ')).not.toMatch(/203\.0\.113/);
  });
});

describe('sign-in limited to named YNAB users', () => {
  it('refuses a YNAB user not on the list at the callback, on a page that says why, and keeps nothing of theirs', async () => {
    const before = new Set(await redis.keys('*'));
    const back = await browse(new URL((await authorizeFor(d.mcpUrl)).toString()), 'http://127.0.0.1:7777/callback', { login: stranger.email });
    expect(back.status).toBe(403);
    expect(back.url.pathname).toBe('/oauth/callback');
    expect(back.body).toContain('Sign-in refused');
    expect(back.body).toContain('only the YNAB accounts its operator has named');
    expect(back.body).toContain(stranger.id);
    const key = new DataKey(parseDataKey(d.env.dataKey, 'key'));
    for (const endpoint of ['full', 'read-only'] as const) expect(await redis.exists(grantKey(identityOf(key, stranger.id, endpoint)))).toBe(0);
    const added = (await redis.keys('*')).filter((k) => !before.has(k)).map((k) => k.replace(/^ynab-mcp:/, ''));
    // What a sign-in leaves before YNAB answers (the client and its registration count, its
    // interaction) is not the user's; nothing after it is kept (grants, tokens, request ledgers).
    expect(added.filter((k) => !/^(oauth\/(Client|Interaction|uid)|hosted\/registrations)\//.test(k))).toEqual([]);
    expect(added.some((k) => k.startsWith('oauth/Interaction/'))).toBe(true);
  });
});

describe('the read-only endpoint', () => {
  let ro: SignedIn;
  beforeAll(async () => {
    ro = await signIn(`${d.proxy.url}/mcp/read-only`, new MemoryOAuthProvider('read-only client'), { login: allowed.email });
  }, 60_000);
  afterAll(() => ro?.close());

  it('has metadata of its own, asks YNAB for the read-only scope only, and lists only read tools', async () => {
    const prm = await (await fetch(`${d.proxy.url}/.well-known/oauth-protected-resource/mcp/read-only`)).json();
    expect(prm).toMatchObject({ resource: `${d.proxy.url}/mcp/read-only`, authorization_servers: [d.proxy.url] });
    const asked = d.upstream.requests.filter((r) => r.url.startsWith('/oauth/authorize')).map((r) => new URL(r.url, 'http://x').searchParams.get('scope'));
    expect(asked.at(-1)).toBe('read-only');
    const readTools = (await ro.client.listTools()).tools;
    const allTools = (await full.client.listTools()).tools;
    expect(readTools.length).toBeGreaterThan(0);
    expect(readTools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([]);
    expect(allTools.some((t) => t.annotations?.readOnlyHint === false)).toBe(true);
    const answer = await ro.call('list_budgets');
    expect(answer.isError).toBeFalsy();
  });

  it("refuses the full endpoint's tokens, and its own are refused on the full endpoint", async () => {
    const roToken = ro.provider.tokens()!.access_token;
    const fullToken = full.provider.tokens()!.access_token;
    const onFull = await post('/mcp', {}, roToken);
    expect(onFull.status).toBe(401);
    expect(onFull.headers.get('www-authenticate')).toMatch(/invalid_token/);
    const onReadOnly = await post('/mcp/read-only', {}, fullToken);
    expect(onReadOnly.status).toBe(401);
    expect(onReadOnly.headers.get('www-authenticate')).toMatch(/oauth-protected-resource\/mcp\/read-only".*invalid_token/);
    const own = await post('/mcp/read-only', { origin: 'https://chatgpt.com' }, roToken);
    expect(own.status).toBe(200);
    await own.body?.cancel();
    expect((await post('/mcp/read-only', { origin: 'http://evil.example.com' }, roToken)).status).toBe(403);
  });

  it('refreshes its tokens for itself only: a refresh naming the full endpoint is invalid_target, and the token still works', async () => {
    const refresh = (resource: string) =>
      fetch(`${d.proxy.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: ro.provider.tokens()!.refresh_token!,
          client_id: ro.provider.clientInformation()!.client_id,
          resource,
        }),
      });
    const wrong = await refresh(d.mcpUrl);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_target' });
    const right = await refresh(`${d.proxy.url}/mcp/read-only`);
    expect(right.status).toBe(200);
    const tokens = (await right.json()) as { access_token: string };
    const res = await post('/mcp/read-only', {}, tokens.access_token);
    expect(res.status).toBe(200);
    await res.body?.cancel();
    expect((await post('/mcp', {}, tokens.access_token)).status).toBe(401);
  });
});

describe('the consent page', () => {
  it("shows YNAB's notice that the service is not affiliated with YNAB, in the words of YNAB's API terms", async () => {
    const page = await browse(await authorizeFor(d.mcpUrl), 'http://127.0.0.1:7777/callback', { decision: 'look' });
    expect(page.status).toBe(200);
    const text = page.body.replace(/<[^>]+>/g, '');
    expect(text).toContain(
      'We are not affiliated, associated, or in any way officially connected with YNAB or any of its subsidiaries or affiliates. The official YNAB website can be found at https://www.ynab.com.',
    );
    expect(text).toContain(
      'The names YNAB and You Need A Budget, as well as related names, tradenames, marks, trademarks, emblems, and images are registered trademarks of YNAB.',
    );
    expect(NOT_AFFILIATED_NOTICE.every((line) => text.includes(line))).toBe(true);
  });
});

/** An authorization request of a freshly registered client, with PKCE, for `resource`. */
async function authorizeFor(resource: string): Promise<URL> {
  const res = await register({ 'x-forwarded-for': `192.0.2.${Math.floor(Math.random() * 200) + 1}` });
  const { client_id } = (await res.json()) as { client_id: string };
  const u = new URL(`${d.proxy.url}/oauth/authorize`);
  const params = {
    client_id,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:7777/callback',
    scope: 'ynab',
    state: 'st',
    resource,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}
