/**
 * `ynab-mcp login --oauth` end to end through the real CLI against the sandbox's OAuth endpoints;
 * the test plays the browser: it reads the authorization address from stderr, follows the
 * authorization redirect, and calls the loopback callback (for the implicit grant it fetches the
 * relay page and posts the fragment as the page's script would). Afterwards the stored grant must
 * work the way `serve` uses it; a wrong `state` must store nothing; no secret may be printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/auth/connection.js';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { offeredTools } from '../../src/mcp/server.js';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { ReadOnlyError } from '../../src/api/client/errors.js';
import { createStack } from '../../src/stack/stack.js';
import type { CliProcess } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { runCli, startCli } from './cli-run.js';
import { cliSuite } from './cli-suite.js';
import { authorize, oauthGrants } from './oauth-fixtures.js';

let sb: TestSandbox;
const env = cliSuite((started) => {
  sb = started;
});

function login(dirsFor: { configDir: string; stateDir: string }, extra: string[], stdin?: string): CliProcess {
  return startCli(
    ['login', '--oauth', '--no-browser', '--client-id', sb.oauthClientId, '--app-url', sb.appUrl, '--base-url', sb.baseUrl, '--port', '0', ...extra],
    { ...dirsFor, stdin },
  );
}

const AUTHORIZE_RE = /(http:\/\/\S+\/oauth\/authorize\?\S+)/;

function storedFile(configDir: string): Record<string, string> {
  const file = join(configDir, 'secrets.json');
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')).profiles.default ?? {};
}

/** What `serve` does at its first tool call: resolve the stored sign-in and call the API with it. */
async function serveStyleCall(d: { configDir: string; stateDir: string }) {
  const connection = await resolveConnection({ ...d, env: { YNAB_MCP_KEYCHAIN: 'off' }, warn: () => {} });
  const stack = createStack({
    credentials: connection.credentials,
    identity: connection.identity,
    baseUrl: connection.baseUrl,
    stateDir: d.stateDir,
    persist: false,
  });
  try {
    const user = await stack.client.call('getUser');
    return { connection, userId: user.data.user.id as string };
  } finally {
    await stack.close();
  }
}

describe('authorization code grant', () => {
  it('signs in through the browser redirect, stores the whole grant, and serve can use it', async () => {
    const d = env();
    const grantsBefore = oauthGrants(sb).length;
    const run = login(d, ['--client-secret-stdin'], `${sb.oauthClientSecret}\n`);
    const [, url] = await run.waitFor('stderr', AUTHORIZE_RE);
    const auth = new URL(url!);
    expect(auth.searchParams.get('response_type')).toBe('code');
    expect(auth.searchParams.get('scope')).toBeNull();
    const state = auth.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(32);

    const callback = await authorize(url!);
    expect(callback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(callback.pathname).toBe('/callback');
    expect(callback.searchParams.get('state')).toBe(state);
    const page = await fetch(callback);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toMatch(/Signed in/);

    expect((await run.exited).code).toBe(0);
    expect(run.stderr).toMatch(/Signed in to YNAB as user [0-9a-f-]{36}: OAuth grant, refreshed automatically, full access/);
    expect(run.stderr).toContain(`Stored in the file ${join(d.configDir, 'secrets.json')}`);
    expect(run.stdout).toBe('');

    // Exactly one grant was issued, and it is what was stored.
    const grants = oauthGrants(sb);
    expect(grants).toHaveLength(grantsBefore + 1);
    const issued = grants.at(-1)!;
    const stored = storedFile(d.configDir);
    expect(stored).toMatchObject({
      token_kind: 'oauth',
      access_token: issued.access_token,
      refresh_token: issued.refresh_token,
      token_scope: 'full',
      oauth_client_id: sb.oauthClientId,
      oauth_client_secret: sb.oauthClientSecret,
      oauth_app_url: sb.appUrl,
      base_url: sb.baseUrl,
    });
    expect(stored.grant_id).toMatch(/^[0-9a-f]{24}$/);
    const expiresIn = Date.parse(stored.token_expires_at!) - Date.now();
    expect(expiresIn).toBeGreaterThan(7_100_000);
    expect(expiresIn).toBeLessThanOrEqual(7_200_000);
    expect(html).not.toContain(issued.access_token);

    const { connection, userId } = await serveStyleCall(d);
    expect(connection.info).toMatchObject({ source: 'file', kind: 'oauth', scope: 'full' });
    expect(userId).toBe(sb.state.userId);
    expect(html).toContain(userId);
  });

  it('refuses a redirect whose state does not match: nothing stored, no code exchanged, non-zero exit', async () => {
    const d = env();
    const grantsBefore = oauthGrants(sb).length;
    const run = login(d, ['--client-secret-stdin'], `${sb.oauthClientSecret}\n`);
    const [, url] = await run.waitFor('stderr', AUTHORIZE_RE);
    const callback = await authorize(url!);
    callback.searchParams.set('state', 'forged-state-value');
    const page = await fetch(callback);
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/state does not match/);

    const exit = await run.exited;
    expect(exit.code).toBe(1);
    expect(run.stderr).toMatch(/ynab-mcp: sign-in failed: The redirect's state does not match this sign-in .* Nothing was stored/);
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
    expect(oauthGrants(sb)).toHaveLength(grantsBefore);
  });

  it('a read-only grant is recorded, and the server then works as --read-only', async () => {
    const d = env();
    const run = login(d, ['--client-secret-stdin', '--scope', 'read-only'], `${sb.oauthClientSecret}\n`);
    const [, url] = await run.waitFor('stderr', AUTHORIZE_RE);
    expect(new URL(url!).searchParams.get('scope')).toBe('read-only');
    await fetch(await authorize(url!));
    expect((await run.exited).code).toBe(0);
    expect(run.stderr).toMatch(/read-only access/);
    expect(storedFile(d.configDir).token_scope).toBe('read-only');
    expect(oauthGrants(sb).at(-1)!.scope).toBe('read-only');

    const state = new ServerState(mcpConfig({}, {}), () => resolveConnection({ ...d, env: { YNAB_MCP_KEYCHAIN: 'off' }, warn: () => {} }), {
      stateDir: d.stateDir,
      persist: false,
    });
    try {
      expect(state.readOnly).toBe(false); // not known before the first call
      const service = await state.service();
      expect(state.readOnly).toBe(true);
      expect(state.readOnlyReason()).toMatch(/granted read-only/);
      const writes = TOOL_DEFINITIONS.filter((t) => t.access === 'write');
      expect(writes.length).toBeGreaterThan(0);
      expect(offeredTools(state).filter((t) => t.access === 'write')).toEqual([]);
      await expect(
        service.call('createAccount', { params: { budget_id: 'last-used' }, body: { account: { name: 'x', type: 'checking', balance: 0 } } }),
      ).rejects.toBeInstanceOf(ReadOnlyError);
    } finally {
      await state.close();
    }
  });
});

describe('implicit grant', () => {
  it('the relay page hands the fragment back; the token is stored without refresh token or client secret', async () => {
    const d = env();
    const run = login(d, ['--implicit']);
    const [, url] = await run.waitFor('stderr', AUTHORIZE_RE);
    expect(new URL(url!).searchParams.get('response_type')).toBe('token');
    const callback = await authorize(url!);
    const fragment = new URLSearchParams(callback.hash.slice(1));
    expect(fragment.get('access_token')).toBeTruthy();

    // The browser fetches the page (the fragment is never sent) ...
    const pageUrl = new URL(callback);
    pageUrl.hash = '';
    const page = await fetch(pageUrl);
    const html = await page.text();
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain("connect-src 'self'");
    expect(html).toContain("fetch(location.pathname, { method: 'POST'");
    expect(html).toContain('history.replaceState');
    // ... and its script posts the fragment's fields to the same origin.
    const post = await fetch(pageUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: callback.hash.slice(1) });
    expect(post.status).toBe(200);
    expect(await post.text()).toMatch(/signed in to YNAB/);

    expect((await run.exited).code).toBe(0);
    expect(run.stderr).toMatch(/OAuth implicit grant \(no refresh token/);
    const stored = storedFile(d.configDir);
    expect(stored).toMatchObject({ token_kind: 'oauth', access_token: fragment.get('access_token'), token_scope: 'full', oauth_client_id: sb.oauthClientId });
    expect(stored.refresh_token).toBeUndefined();
    expect(stored.oauth_client_secret).toBeUndefined();
    const { connection } = await serveStyleCall(d);
    expect(connection.info).toMatchObject({ source: 'file', kind: 'oauth' });
  });

  it('refuses a posted fragment with another state', async () => {
    const d = env();
    const run = login(d, ['--implicit']);
    const [, url] = await run.waitFor('stderr', AUTHORIZE_RE);
    const callback = await authorize(url!);
    const fields = new URLSearchParams(callback.hash.slice(1));
    fields.set('state', 'not-the-one');
    const post = await fetch(new URL('/callback', callback.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
    });
    expect(post.status).toBe(400);
    expect(await post.text()).toMatch(/state does not match/);
    expect((await run.exited).code).toBe(1);
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
  });
});

describe('waiting and errors', () => {
  it('gives up after --timeout with a clear message and stores nothing', async () => {
    const d = env();
    const started = Date.now();
    const res = await runCli(
      ['login', '--oauth', '--implicit', '--no-browser', '--client-id', sb.oauthClientId, '--app-url', sb.appUrl, '--port', '0', '--timeout', '1'],
      d,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no authorization arrived within 1 second; nothing was stored\. Run "ynab-mcp login --oauth" again/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
  });

  it('says so when the redirect port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const res = await runCli(['login', '--oauth', '--implicit', '--no-browser', '--client-id', 'x', '--app-url', sb.appUrl, '--port', String(port)], env());
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(new RegExp(`could not listen on 127\\.0\\.0\\.1:${port} .*EADDRINUSE.*--port`));
    } finally {
      blocker.close();
    }
  });

  it('refuses a wrong client secret at the code exchange, stores nothing, and does not print the secret', async () => {
    const d = env();
    const wrong = `wrong-secret-${'z'.repeat(20)}`;
    const run = login(d, ['--client-secret-stdin'], `${wrong}\n`);
    const [, url] = await run.waitFor('stderr', AUTHORIZE_RE);
    const page = await fetch(await authorize(url!));
    expect(page.status).toBe(400);
    expect((await run.exited).code).toBe(1);
    expect(run.stderr).toMatch(/Exchanging the authorization code failed: the token endpoint refused \(invalid_client/);
    expect(run.stderr + run.stdout).not.toContain(wrong);
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
  });

  it('checks the flags before doing anything', async () => {
    const d = env();
    const noId = await runCli(['login', '--oauth'], d);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toMatch(/--oauth needs --client-id/);
    const stray = await runCli(['login', '--implicit'], d);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--implicit is an OAuth option/);
    const scope = await runCli(['login', '--oauth', '--client-id', 'x', '--scope', 'write'], d);
    expect(scope.code).toBe(2);
    const plainHttp = await runCli(['login', '--token-stdin', '--base-url', 'http://example.com/v1'], { ...d, stdin: 'x\n' });
    expect(plainHttp.code).toBe(2);
    expect(plainHttp.stderr).toMatch(/--base-url: refusing the base URL http:\/\/example\.com/);
    const noSecret = await runCli(['login', '--oauth', '--client-id', 'x', '--app-url', sb.appUrl, '--port', '0'], d);
    expect(noSecret.code).toBe(1);
    expect(noSecret.stderr).toMatch(/stdin is not a terminal: pipe the OAuth client secret in and pass --client-secret-stdin/);
  });
});
