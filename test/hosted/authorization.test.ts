// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
// @module-tag openssl (makes a TLS certificate for the client metadata server)
/**
 * MCP authorization in hosted mode (specification 2025-11-25), against a real deployment: a
 * redis-server, two hosted instances behind a round-robin proxy (so consecutive steps of one
 * sign-in land on different instances), the sandbox as YNAB, and the real MCP client's OAuth
 * support. The test plays the browser.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackCertificate } from '../helpers/tls.js';
import { browse, MemoryOAuthProvider, signIn, startDeployment, startInstance, type Deployment } from '../helpers/hosted.js';
import { freePort } from '../helpers/redis.js';
import { ok } from '../helpers/mcp.js';

let d: Deployment;
let tls: { dir: string; server: HttpsServer; origin: string };

/** A TLS server on loopback with a certificate made for this run, serving client metadata documents. */
async function metadataServer(): Promise<typeof tls> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-cimd-'));
  const certificate = loopbackCertificate(dir);
  const docs = new Map<string, unknown>();
  const server = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const doc = docs.get(req.url ?? '');
    res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(JSON.stringify(doc ?? {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  Object.assign(server, { docs });
  return { dir, server, origin };
}

const docsOf = (s: HttpsServer) => (s as unknown as { docs: Map<string, unknown> }).docs;

beforeAll(async () => {
  tls = await metadataServer();
  d = await startDeployment({ instances: 2, env: { NODE_EXTRA_CA_CERTS: join(tls.dir, 'cert.pem') } });
});

afterAll(async () => {
  await d?.close();
  tls?.server.close();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** A client registered by RFC 7591 dynamic registration, the way the MCP client does it. */
async function register(redirect = 'http://127.0.0.1:7777/callback'): Promise<string> {
  const res = await fetch(`${d.proxy.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'raw test client',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, params: Record<string, string | undefined>): URL {
  const u = new URL(`${d.proxy.url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: 'http://127.0.0.1:7777/callback',
    scope: 'ynab',
    state: 'st-1',
    resource: d.mcpUrl,
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
  return u;
}

async function token(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${d.proxy.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A code for `clientId` by the whole browser flow (consent, YNAB, back). */
async function codeFor(clientId: string, challenge: string): Promise<string> {
  const back = await browse(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), 'http://127.0.0.1:7777/callback');
  const code = back.url.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.url} ${back.body.slice(0, 200)}`);
  return code;
}

describe('discovery', () => {
  it('serves protected resource metadata (RFC 9728) at the root and the path-suffixed well-known URI', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${d.proxy.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: d.mcpUrl,
        authorization_servers: [d.proxy.url],
        scopes_supported: ['ynab'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('serves authorization server metadata (RFC 8414): PKCE S256 only, CIMD, registration, iss in responses', async () => {
    const res = await fetch(`${d.proxy.url}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: d.proxy.url,
      authorization_endpoint: `${d.proxy.url}/oauth/authorize`,
      token_endpoint: `${d.proxy.url}/oauth/token`,
      registration_endpoint: `${d.proxy.url}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });

  it('/healthz and /readyz answer (for the load balancer)', async () => {
    const res = await fetch(`${d.proxy.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    // Ready once its warm-up has ended (503 "warming up" until then), as a balancer polls it.
    let ready = await fetch(`${d.proxy.url}/readyz`);
    for (const until = Date.now() + 30_000; ready.status === 503 && Date.now() < until; ready = await fetch(`${d.proxy.url}/readyz`)) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready.status).toBe(200);
  });

  it('an MCP request without a token gets 401 and a challenge naming the metadata and the scope', async () => {
    const res = await fetch(d.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${d.proxy.url}/.well-known/oauth-protected-resource/mcp", scope="ynab"`);
    const bad = await fetch(d.mcpUrl, { method: 'POST', headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});

describe('signing in', () => {
  it("dynamic registration, consent, YNAB and back: the client gets our tokens, never YNAB's; every step may be another instance", async () => {
    const before = new Map(d.proxy.forwarded);
    const provider = new MemoryOAuthProvider('Test Assistant');
    const visited: string[] = [];
    const s = await signIn(d.mcpUrl, provider, { visited });
    try {
      const budgets = ok(await s.call('list_budgets'));
      expect(budgets.budgets.length).toBeGreaterThan(0);
      // The browser went to YNAB's authorize page with our YNAB client id and our callback.
      const ynab = visited.map((v) => new URL(v)).find((u) => u.origin === d.upstream.url && u.pathname === '/oauth/authorize');
      expect(ynab?.searchParams.get('client_id')).toBe(d.env.clientId);
      expect(ynab?.searchParams.get('redirect_uri')).toBe(`${d.proxy.url}/oauth/callback`);
      // Both instances served parts of it.
      for (const inst of d.instances) expect((d.proxy.forwarded.get(inst!.url) ?? 0) - (before.get(inst!.url) ?? 0)).toBeGreaterThan(0);
      // What the client holds is ours: not one of the tokens the sandbox issued.
      const tokens = s.provider.tokens()!;
      const issued = d.sandbox.tokens.snapshot().grants.flatMap((g) => [g.access_token, g.refresh_token].filter((t): t is string => !!t));
      expect(issued.length).toBeGreaterThan(0);
      for (const t of issued) {
        expect(JSON.stringify(tokens)).not.toContain(t);
        expect(JSON.stringify(budgets)).not.toContain(t);
      }
      expect(tokens.refresh_token).toBeTruthy();
      // Nothing YNAB received carried our token; everything it received carried one of its own.
      const bearers = d.upstream.requests.map((r) => r.authorization).filter((a): a is string => !!a);
      expect(bearers.length).toBeGreaterThan(0);
      for (const b of bearers) {
        expect(b).not.toContain(tokens.access_token);
        expect(issued.some((t) => b === `Bearer ${t}`)).toBe(true);
      }
      // And no log line of any instance holds a token of either kind.
      for (const inst of d.instances) {
        for (const t of [...issued, tokens.access_token, tokens.refresh_token!]) expect(inst!.proc.stderr).not.toContain(t);
      }
    } finally {
      await s.close();
    }
  });

  it('a client metadata document (CIMD): an https URL as client id, fetched and checked by the server', async () => {
    const url = `${tls.origin}/clients/assistant.json`;
    const provider = new MemoryOAuthProvider('CIMD Assistant', 'http://127.0.0.1:7778/callback', url);
    // This one speaks the 2026 protocol era: authorization is the same for both.
    docsOf(tls.server).set('/clients/assistant.json', {
      client_id: url,
      client_name: 'CIMD Assistant',
      redirect_uris: [provider.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    let consent = '';
    const s = await signIn(d.mcpUrl, provider, { era: 'modern' });
    try {
      expect(s.client.getProtocolEra?.()).toBe('modern');
      expect(provider.clientInformation()?.client_id).toBe(url);
      ok(await s.call('list_budgets'));
      // The consent page named it as its document does.
      const res = await browse(
        authorizeUrl(url, { redirect_uri: provider.redirect, code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
        '--never--',
        { decision: 'look' },
      );
      consent = res.body;
      expect(consent).toContain('CIMD Assistant');
      expect(consent).toContain('127.0.0.1:7778');
      // The whole redirect URI, path included, escaped.
      expect(consent).toContain('<code>http://127.0.0.1:7778/callback</code>');
    } finally {
      await s.close();
    }
  });

  it('a client metadata document whose client_id differs from its URL is refused', async () => {
    const url = `${tls.origin}/clients/liar.json`;
    docsOf(tls.server).set('/clients/liar.json', {
      client_id: `${tls.origin}/clients/other.json`,
      client_name: 'Liar',
      redirect_uris: ['http://127.0.0.1:7777/callback'],
    });
    const res = await fetch(authorizeUrl(url, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/invalid_client/);
  });
});

describe('refusals are OAuth errors', () => {
  it('cancel on the consent page: the client gets error=access_denied with its state and our issuer', async () => {
    const clientId = await register();
    const back = await browse(authorizeUrl(clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), 'http://127.0.0.1:7777/callback', {
      decision: 'deny',
    });
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    expect(back.url.searchParams.get('state')).toBe('st-1');
    expect(back.url.searchParams.get('iss')).toBe(d.proxy.url);
    expect(back.url.searchParams.get('code')).toBeNull();
  });

  it('YNAB refusing (error=access_denied on our callback) reaches the client as access_denied', async () => {
    const clientId = await register();
    const back = await browse(authorizeUrl(clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), 'http://127.0.0.1:7777/callback', {
      tamperYnabRedirect: (u) => {
        const refused = new URL(u.pathname, u);
        refused.searchParams.set('error', 'access_denied');
        refused.searchParams.set('error_description', 'The resource owner denied the request');
        refused.searchParams.set('state', u.searchParams.get('state')!);
        return refused;
      },
    });
    expect(back.url.searchParams.get('error')).toBe('access_denied');
    expect(back.url.searchParams.get('error_description')).toMatch(/YNAB did not authorize/);
    expect(back.url.searchParams.get('state')).toBe('st-1');
  });

  it('a forged, replayed or other-browser state on the YNAB callback is refused and signs nobody in', async () => {
    const clientId = await register();
    let seen: URL | undefined;
    const jar = new Map<string, Map<string, string>>();
    const forged = await browse(authorizeUrl(clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), 'http://127.0.0.1:7777/callback', {
      jar,
      tamperYnabRedirect: (u) => {
        seen = new URL(u);
        const f = new URL(u);
        f.searchParams.set('state', randomBytes(32).toString('base64url'));
        return f;
      },
    });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatch(/invalid_request/);
    expect(forged.body).toMatch(/another browser/);
    // The browser that went to YNAB holds the sign-in cookie, bound to the path of the callback.
    const cookies = [...(jar.get(seen!.origin) ?? new Map())].filter(([k]) => k.startsWith('ynab_mcp_signin_'));
    expect(cookies).toHaveLength(1);
    const cookie = cookies.map(([k, v]) => `${k}=${v}`).join('; ');
    // The genuine redirect opened in another browser (a stolen or planted link): refused, state not spent.
    const elsewhere = await fetch(seen!, { redirect: 'manual' });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toMatch(/another browser/);
    const wrongCookie = await fetch(seen!, { redirect: 'manual', headers: { cookie: `${cookies[0]![0]}=${'A'.repeat(cookies[0]![1].length)}` } });
    expect(wrongCookie.status).toBe(400);
    // In its own browser it works once, and clears the cookie; a replay is refused.
    const first = await fetch(seen!, { redirect: 'manual', headers: { cookie } });
    expect(first.status).toBe(303);
    expect(first.headers.getSetCookie().join('\n')).toMatch(new RegExp(`${cookies[0]![0]}=;.*Max-Age=0`));
    const replay = await fetch(seen!, { redirect: 'manual', headers: { cookie } });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already used|not one this server issued/);
  });

  it('registered clients are forgotten after 30 days unused, and each use renews them', async () => {
    const raw = createClient({ url: d.redis.url });
    await raw.connect();
    try {
      const ttls = async () => {
        const out: number[] = [];
        for await (const batch of raw.scanIterator({ MATCH: 'ynab-mcp:oauth/Client/*', COUNT: 1000 })) for (const k of batch) out.push(await raw.pTTL(k));
        return out;
      };
      const clientId = await register();
      const month = 30 * 24 * 3600 * 1000;
      const after = await ttls();
      expect(after.length).toBeGreaterThan(0);
      for (const t of after) expect(t > 0 && t <= month, `ttl ${t}`).toBe(true);
      // Used (an authorization request looks it up): its ttl is back to 30 days.
      await new Promise((r) => setTimeout(r, 50));
      const before = Math.min(...(await ttls()));
      await fetch(authorizeUrl(clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
      expect(Math.max(...(await ttls()))).toBeGreaterThan(before);
    } finally {
      await raw.close();
    }
  });

  it('PKCE is required, with S256 only', async () => {
    const clientId = await register();
    const none = await fetch(authorizeUrl(clientId, {}), { redirect: 'manual' });
    expect(none.status).toBe(303);
    const noneBack = new URL(none.headers.get('location')!);
    expect(noneBack.searchParams.get('error')).toBe('invalid_request');
    expect(noneBack.searchParams.get('error_description')).toMatch(/PKCE/);
    const plain = await fetch(authorizeUrl(clientId, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }), { redirect: 'manual' });
    const plainBack = new URL(plain.headers.get('location')!);
    expect(plainBack.searchParams.get('error')).toBe('invalid_request');
  });

  it('a wrong code_verifier, or another redirect_uri at the token endpoint, is invalid_grant; the right ones get tokens', async () => {
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const code = await codeFor(clientId, challenge);
    const wrong = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      code_verifier: pkce().verifier,
      resource: d.mcpUrl,
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const code2 = await codeFor(clientId, challenge);
    const otherRedirect = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code2,
      redirect_uri: 'http://127.0.0.1:9999/elsewhere',
      code_verifier: verifier,
      resource: d.mcpUrl,
    });
    expect(otherRedirect).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const code3 = await codeFor(clientId, challenge);
    const right = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code3,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      code_verifier: verifier,
      resource: d.mcpUrl,
    });
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ token_type: 'Bearer', scope: 'ynab', expires_in: 3600 });
    // A code is redeemed once.
    const again = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: code3,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      code_verifier: verifier,
      resource: d.mcpUrl,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('an unregistered redirect_uri is never redirected to: an error page instead', async () => {
    const clientId = await register();
    const res = await fetch(
      authorizeUrl(clientId, { redirect_uri: 'https://attacker.example/cb', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toMatch(/redirect_uri/);
  });
});

describe('tokens', () => {
  it('are bound to this server: another resource is invalid_target, and a token another deployment issued on the same Redis is refused here', async () => {
    const clientId = await register();
    const other = await fetch(
      authorizeUrl(clientId, { resource: 'https://other.example/mcp', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      { redirect: 'manual' },
    );
    expect(new URL(other.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');

    // A second deployment with another public URL, sharing this Redis and data key (a staging
    // copy, say): what it issues carries its own audience, which this deployment refuses.
    const port = await freePort();
    const staging = await startInstance({ ...d.env, publicUrl: `http://localhost:${port}`, port });
    try {
      const s = await signIn(`http://localhost:${port}/mcp`, new MemoryOAuthProvider('Staging Assistant'));
      const stagingToken = s.provider.tokens()!.access_token;
      ok(await s.call('list_budgets'));
      await s.close();
      const replayed = await fetch(d.mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${stagingToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(replayed.status).toBe(401);
      expect(replayed.headers.get('www-authenticate')).toMatch(
        /error="invalid_token", error_description="the access token was not issued for http:\/\/127\.0\.0\.1:\d+\/mcp"/,
      );
    } finally {
      await staging.proc.stop('SIGKILL');
    }
  });

  it('refresh tokens rotate; the old one is refused afterwards and its reuse ends the grant', async () => {
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const code = await codeFor(clientId, challenge);
    const first = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: 'http://127.0.0.1:7777/callback',
      code_verifier: verifier,
      resource: d.mcpUrl,
    });
    const r1 = first.body.refresh_token as string;
    const second = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource: d.mcpUrl });
    expect(second.status).toBe(200);
    const r2 = second.body.refresh_token as string;
    expect(r2).toBeTruthy();
    expect(r2).not.toBe(r1);
    const mcp = (t: string) =>
      fetch(d.mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
    expect((await mcp(second.body.access_token as string)).status).toBe(200);
    const reuse = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource: d.mcpUrl });
    expect(reuse).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Reuse of a rotated refresh token revokes the grant: the newer pair stops working too.
    const after = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r2, resource: d.mcpUrl });
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await mcp(second.body.access_token as string)).status).toBe(401);
  });
});
