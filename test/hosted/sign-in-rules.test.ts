// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
// @module-tag openssl (makes a TLS certificate for the metadata-document servers)
/**
 * The rules of a hosted sign-in that protect the user from a client's mistakes and from a hostile
 * client, against a real deployment (redis-server, two instances behind a round-robin proxy, the
 * sandbox as YNAB): which redirect URIs a client may register, a refused refresh leaving its token
 * usable, the default scope, nothing of a failed sign-in kept, the oversized consent form, and the
 * fetch of a client metadata document (public addresses only, one 2.5 s attempt).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataKey, parseDataKey } from '../../src/hosted/sealing.js';
import { grantKey, identityOf } from '../../src/hosted/ynab-grants.js';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { loopbackCertificate } from '../helpers/tls.js';
import { browse, startDeployment, type Deployment } from '../helpers/hosted.js';

const REDIRECT = 'http://127.0.0.1:7777/callback';

let d: Deployment;
/** A TLS server on 127.0.0.1 (certificate made for this run): client metadata documents, and a path that never answers. */
let tls: { dir: string; server: HttpsServer; origin: string; docs: Map<string, unknown>; requests: { url: string; received: number; closed?: number }[] };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-signin-'));
  const certificate = loopbackCertificate(dir);
  const docs = new Map<string, unknown>();
  const requests: { url: string; received: number; closed?: number }[] = [];
  const server = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const r: (typeof requests)[number] = { url: req.url ?? '', received: Date.now() };
    requests.push(r);
    req.socket.on('close', () => (r.closed = Date.now()));
    if (req.url === '/never-answers.json') return; // accepted, read, never answered
    const doc = docs.get(req.url ?? '');
    res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    res.end(JSON.stringify(doc ?? {}));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  tls = { dir, server, origin: `https://127.0.0.1:${(server.address() as { port: number }).port}`, docs, requests };
  d = await startDeployment({ instances: 2, sandbox: { users: 2 }, env: { NODE_EXTRA_CA_CERTS: certificate.certPath } });
});

afterAll(async () => {
  await d?.close();
  tls?.server.closeAllConnections();
  tls?.server.close();
  if (tls) rmSync(tls.dir, { recursive: true, force: true });
});

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function register(redirectUris: string[]): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${d.proxy.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'rules test client',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function registered(): Promise<string> {
  const r = await register([REDIRECT]);
  expect(r.status).toBe(201);
  return r.body.client_id as string;
}

function authorizeUrl(clientId: string, params: Record<string, string | undefined> = {}): URL {
  const u = new URL(`${d.proxy.url}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'ynab',
    state: 'st-rules',
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

/** Signs in through the browser and redeems the code: the client's first token response. */
async function tokensFor(clientId: string, params: Record<string, string | undefined> = {}): Promise<Record<string, unknown>> {
  const { verifier, challenge } = pkce();
  const back = await browse(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256', ...params }), REDIRECT);
  const code = back.url.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.url} ${back.body.slice(0, 200)}`);
  const t = await token({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier, resource: d.mcpUrl });
  expect(t.status).toBe(200);
  return t.body;
}

const mcpStatus = async (accessToken: string) =>
  (
    await fetch(d.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    })
  ).status;

describe('redirect URIs a client may register', () => {
  it('dynamic registration accepts https and loopback http only; anything else is invalid_redirect_uri', async () => {
    for (const uri of ['https://assistant.example/oauth/callback', 'http://127.0.0.1:8123/cb', 'http://localhost:8123/cb', 'http://[::1]:8123/cb']) {
      expect((await register([uri])).status, uri).toBe(201);
    }
    for (const uri of ['http://assistant.example/oauth/callback', 'http://192.168.1.20/cb', 'http://10.0.0.5:8080/cb', 'myapp://callback']) {
      const r = await register([uri]);
      expect(r, uri).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
      expect(r.body.error_description).toMatch(/https URLs, or http URLs on a loopback address/);
    }
    // One bad URI among good ones refuses the registration.
    expect(await register(['https://assistant.example/cb', 'http://assistant.example/cb'])).toMatchObject({
      status: 400,
      body: { error: 'invalid_redirect_uri' },
    });
  });

  it('a client metadata document with a plain-http redirect URI on a public host is refused', async () => {
    const url = `${tls.origin}/clients/plain-http.json`;
    tls.docs.set('/clients/plain-http.json', {
      client_id: url,
      client_name: 'Plain HTTP',
      redirect_uris: ['http://assistant.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    const res = await fetch(
      authorizeUrl(url, { redirect_uri: 'http://assistant.example/cb', code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
      { redirect: 'manual' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    expect(page).toMatch(/invalid_redirect_uri/);
    expect(page).toMatch(/loopback address/);
  });
});

describe('a refused refresh leaves the refresh token usable', () => {
  it('refused for its resource: the corrected retry succeeds and is not taken for reuse', async () => {
    const clientId = await registered();
    const first = await tokensFor(clientId);
    const r1 = first.refresh_token as string;
    for (const resource of ['https://other.example/mcp', `${d.mcpUrl}/`, d.proxy.url]) {
      const refused = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource });
      expect(refused, resource).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    }
    const retry = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource: d.mcpUrl });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ scope: 'ynab', token_type: 'Bearer' });
    expect(await mcpStatus(retry.body.access_token as string)).toBe(200);
    // Real reuse of the now rotated token still revokes the grant: the newer pair stops working.
    const r2 = retry.body.refresh_token as string;
    expect(await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource: d.mcpUrl })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r2, resource: d.mcpUrl })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(await mcpStatus(retry.body.access_token as string)).toBe(401);
  });

  it('refused for its scope or its client: the token still refreshes afterwards', async () => {
    const clientId = await registered();
    const other = await registered();
    const r1 = (await tokensFor(clientId)).refresh_token as string;
    expect(await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource: d.mcpUrl, scope: 'ynab openid' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_scope' },
    });
    expect(await token({ grant_type: 'refresh_token', client_id: other, refresh_token: r1, resource: d.mcpUrl })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    const retry = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1, resource: d.mcpUrl });
    expect(retry.status).toBe(200);
    expect(await mcpStatus(retry.body.access_token as string)).toBe(200);
  });
});

describe('scope', () => {
  it('an authorization request without scope gets the default scope (ynab), not access_denied after consent', async () => {
    const clientId = await registered();
    const t = await tokensFor(clientId, { scope: undefined });
    expect(t.scope).toBe('ynab');
    expect(await mcpStatus(t.access_token as string)).toBe(200);
    // Asking only for offline_access gets ynab too, with a refresh token.
    const o = await tokensFor(clientId, { scope: 'offline_access' });
    expect(o.scope).toBe('ynab');
    expect(o.refresh_token).toBeTruthy();
    expect(await mcpStatus(o.access_token as string)).toBe(200);
  });
});

describe('a sign-in that ends in an error', () => {
  it('stores no YNAB grant for the user; the same sign-in finished stores it', async () => {
    const user = d.sandbox.state.users[1] as SandboxUser; // signs in nowhere else in this file
    const name = `ynab-mcp:${grantKey(identityOf(new DataKey(parseDataKey(d.env.dataKey, 'test')), user.id))}`;
    const raw = createClient({ url: d.redis.url });
    await raw.connect();
    try {
      const clientId = await registered();
      const { verifier, challenge } = pkce();
      const jar = new Map<string, Map<string, string>>();
      // Consent, YNAB's sign-in and its callback, up to the authorization server's resume step.
      const resumeAt = await browse(authorizeUrl(clientId, { code_challenge: challenge, code_challenge_method: 'S256' }), `${d.proxy.url}/oauth/authorize/`, {
        login: user.email,
        jar,
      });
      expect(resumeAt.status).toBe(0);
      // The resume opened without this browser's cookies (another browser, cookies cleared): the sign-in fails.
      const failed = await fetch(resumeAt.url, { redirect: 'manual' });
      expect(failed.status).toBe(400);
      expect(await failed.text()).toMatch(/Sign-in failed/);
      expect(await raw.exists(name)).toBe(0);
      // The same sign-in finished in its own browser: the code is issued and the grant is the user's.
      const back = await browse(resumeAt.url, REDIRECT, { jar });
      const code = back.url.searchParams.get('code');
      expect(code).toBeTruthy();
      expect(await raw.exists(name)).toBe(1);
      const t = await token({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: code!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        resource: d.mcpUrl,
      });
      expect(await mcpStatus(t.body.access_token as string)).toBe(200);
    } finally {
      await raw.close();
    }
  });
});

describe('the consent form', () => {
  it('an oversized form gets the 413 page over the connection, not a reset', async () => {
    const clientId = await registered();
    const jar = new Map<string, Map<string, string>>();
    const consent = await browse(authorizeUrl(clientId, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), REDIRECT, {
      decision: 'look',
      jar,
    });
    expect(consent.status).toBe(200);
    const action = /<form method="post" action="([^"]+)"/.exec(consent.body)![1]!;
    const cookie = [...(jar.get(d.proxy.url) ?? new Map())].map(([k, v]) => `${k}=${v}`).join('; ');
    // Straight to an instance (the test proxy reads whole bodies first): as a browser posts it.
    for (const size of [8 * 1024, 256 * 1024]) {
      const res = await fetch(`${d.instances[0]!.url}${action}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `decision=allow&padding=${'x'.repeat(size)}`,
      });
      expect(res.status, `${size}`).toBe(413);
      expect(await res.text()).toMatch(/The form was too large/);
    }
  });
});

describe('client metadata documents are fetched from public addresses only, once, within 2.5 s', () => {
  /** A TCP server on loopback that only counts the connections it gets (IPv4, and IPv6 when this machine has it). */
  async function countingServer(): Promise<{ port: number; count: () => number; close: () => void }> {
    let count = 0;
    const servers: NetServer[] = [];
    const listen = (host: string, port: number) =>
      new Promise<NetServer | undefined>((resolve) => {
        const s = createNetServer((socket) => {
          count++;
          socket.destroy();
        });
        s.once('error', () => resolve(undefined));
        s.listen(port, host, () => resolve(s));
      });
    const v4 = (await listen('127.0.0.1', 0))!;
    servers.push(v4);
    const port = (v4.address() as { port: number }).port;
    const v6 = await listen('::1', port);
    if (v6) servers.push(v6);
    return { port, count: () => count, close: () => servers.forEach((s) => s.close()) };
  }

  it('a URL whose host resolves to a loopback address is refused before any connection', async () => {
    const target = await countingServer();
    try {
      const pages = new Map<string, { status: number; page: string }>();
      for (const url of [
        `https://localhost:${target.port}/client.json`,
        `https://[::1]:${target.port}/client.json`,
        `https://127.0.0.2:${target.port}/client.json`,
      ]) {
        const res = await fetch(authorizeUrl(url, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
        pages.set(url, { status: res.status, page: await res.text() });
      }
      expect(target.count()).toBe(0);
      for (const [url, { status, page }] of pages) {
        expect(status, url).toBe(400);
        expect(page, url).toMatch(/invalid_client/);
        expect(page, url).toMatch(/resolves to a private or loopback address/);
      }
    } finally {
      target.close();
    }
  });

  it('a URL on a private network address is refused', async () => {
    for (const url of ['https://10.20.30.40/client.json', 'https://192.168.0.10/client.json', 'https://169.254.169.254/latest/meta-data']) {
      const res = await fetch(authorizeUrl(url, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
      expect(res.status, url).toBe(400);
      expect(await res.text(), url).toMatch(/resolves to a private or loopback address/);
    }
  });

  it('a server that accepts and never answers: asked once, given up at 2.5 s, and the sign-in answered then', async () => {
    const before = tls.requests.length;
    const started = Date.now();
    const res = await fetch(authorizeUrl(`${tls.origin}/never-answers.json`, { code_challenge: pkce().challenge, code_challenge_method: 'S256' }), {
      redirect: 'manual',
    });
    const answeredAfter = Date.now() - started;
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/invalid_client/);
    // One request (not a second one once the first timed out), whose connection the instance
    // closed at its timeout; the browser had its answer then.
    await new Promise((r) => setTimeout(r, 200));
    const made = tls.requests.slice(before);
    expect(made.map((r) => r.url)).toEqual(['/never-answers.json']);
    expect(made[0]!.closed).toBeDefined();
    expect(made[0]!.closed! - made[0]!.received).toBeGreaterThanOrEqual(2300);
    expect(answeredAfter).toBeGreaterThanOrEqual(2400);
    expect(answeredAfter).toBeLessThan(4500);
  });
});
