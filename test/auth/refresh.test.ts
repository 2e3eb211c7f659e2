/**
 * The refreshing token provider against the sandbox's OAuth endpoints:
 *  - a refresh stores the new pair before the new access token is used, and a pair that cannot be
 *    stored is never used; refresh tokens are single use (refused once their successor was used);
 *  - 50 concurrent calls at expiry (or after a 401) cause exactly one refresh, also when two
 *    processes share the store and the state directory;
 *  - a revoked refresh token or an expired implicit-grant token ends with a clear message to run
 *    `ynab-mcp login`, from the provider and as an MCP tool result, with no secret in it;
 *  - an unreachable token endpoint keeps the stored grant.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/auth/connection.js';
import { oauthProvider, OAuthRefreshError, OAuthUnavailableError, type OAuthTokenProvider } from '../../src/auth/oauth-provider.js';
import { openSecretStore } from '../../src/auth/secret-store.js';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { buildServer } from '../../src/mcp/server.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { createStack } from '../../src/stack/stack.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { cliEnv } from './cli-run.js';
import { tempDirs } from './helpers.js';
import { expectNoSecrets, oauthGrants, PAST, refreshStatus, revoke, sandboxGrant, sandboxSecrets, storeGrant, tryRefresh } from './oauth-fixtures.js';

let sb: TestSandbox;
const dirs = tempDirs();
const children = new Set<ChildProcess>();
const SIGN_IN = /run "ynab-mcp login --oauth" to sign in again/;

beforeAll(async () => {
  sb = await testSandbox({ rateLimit: 100_000 });
});
afterEach(async () => {
  await Promise.all(
    [...children].map((c) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : (c.once('close', () => r()), c.kill('SIGKILL'))))),
  );
  children.clear();
  dirs.cleanup();
});
afterAll(async () => {
  await sb?.close();
});

const env = dirs.configAndState;

const connect = (d: { configDir: string; stateDir: string }) => resolveConnection({ ...d, env: { YNAB_MCP_KEYCHAIN: 'off' }, warn: () => {} });

/** One MCP tool call through a server whose connection is resolved from the stored sign-in. */
async function toolCall(d: { configDir: string; stateDir: string }, name: string): Promise<{ isError?: boolean; text: string }> {
  const state = new ServerState(mcpConfig({}, {}), () => connect(d), { stateDir: d.stateDir, persist: false });
  const server = buildServer(state);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(a);
  try {
    const result = (await client.callTool({ name, arguments: {} })) as { isError?: boolean; content: { type: string; text: string }[] };
    return { isError: result.isError, text: result.content.map((c) => c.text).join('\n') };
  } finally {
    await client.close();
    await server.close();
    await state.close();
  }
}

describe('refresh', () => {
  it('stores the new pair before the new token is used; the old refresh token is refused once the new token was used', async () => {
    const d = env();
    const g0 = await sandboxGrant(sb);
    const store = await storeGrant(sb, d.configDir, g0, PAST());
    const provider = await oauthProvider({ store, stateDir: d.stateDir });

    const token = await provider.token();
    expect(token).not.toBe(g0.access);
    expect(provider.refreshes).toBe(1);
    const issued = oauthGrants(sb).find((g) => g.access_token === token)!;
    // Stored already, while the sandbox shows the new token unused (the old refresh token merely exchanged).
    expect(await store.get('access_token')).toBe(token);
    expect(await store.get('refresh_token')).toBe(issued.refresh_token);
    expect(Date.parse((await store.get('token_expires_at'))!) - Date.now()).toBeGreaterThan(7_000_000);
    expect(refreshStatus(sb, g0.refresh!)).toBe('exchanged');

    expect((await sb.get('/user', token)).status).toBe(200);
    expect(refreshStatus(sb, g0.refresh!)).toBe('used');
    expect(await tryRefresh(sb, g0.refresh!)).toEqual({ status: 400, error: 'invalid_grant' });

    // A stale copy of the old grant (say, a backup) cannot refresh any more: sign in again.
    const stale = env();
    const staleStore = await storeGrant(sb, stale.configDir, g0, PAST());
    const staleProvider = await oauthProvider({ store: staleStore, stateDir: stale.stateDir });
    const err = await staleProvider.token().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(OAuthRefreshError);
    expect(err!.message).toMatch(SIGN_IN);
    expect(err!.message).toMatch(/already been used or was revoked/);
    expectNoSecrets(`${err!.message}\n${err!.stack}`, sandboxSecrets(sb), 'the error');
  });

  it('a new pair that cannot be stored is never used, so the old refresh token stays good', async () => {
    const d = env();
    const g0 = await sandboxGrant(sb);
    const store = await storeGrant(sb, d.configDir, g0, PAST());
    let failNext = true;
    const flaky = {
      get: (n: string) => store.get(n),
      delete: (n: string) => store.delete(n),
      async set(n: string, v: string) {
        if (n === 'refresh_token' && failNext) {
          failNext = false;
          throw new Error('disk full');
        }
        return store.set(n, v);
      },
    };
    const provider = await oauthProvider({ store: flaky, stateDir: d.stateDir });
    const grantsBefore = oauthGrants(sb).length;
    await expect(provider.token()).rejects.toThrow(/disk full/);
    expect(oauthGrants(sb)).toHaveLength(grantsBefore + 1); // the exchange happened ...
    expect(refreshStatus(sb, g0.refresh!)).toBe('exchanged'); // ... but its token was never used
    expect(await store.get('refresh_token')).toBe(g0.refresh);
    expect(await store.get('access_token')).toBe(g0.access);

    // The next attempt refreshes with the same, still valid, refresh token.
    const token = await provider.token();
    expect((await sb.get('/user', token)).status).toBe(200);
    expect(await store.get('access_token')).toBe(token);
  });

  it('an implicit-grant token is used until it really expires (no early refresh, which is impossible)', async () => {
    const d = env();
    const g = await sandboxGrant(sb, { implicit: true });
    const store = await storeGrant(sb, d.configDir, g, new Date(Date.now() + 60_000));
    const provider = await oauthProvider({ store, stateDir: d.stateDir });
    expect(await provider.token()).toBe(g.access);
  });
});

describe('exactly one refresh for concurrent calls', () => {
  it('50 concurrent calls at expiry in one process', async () => {
    const d = env();
    await storeGrant(sb, d.configDir, await sandboxGrant(sb), PAST());
    const connection = await connect(d);
    const stack = createStack({ credentials: connection.credentials, baseUrl: connection.baseUrl, stateDir: d.stateDir, persist: false });
    const before = oauthGrants(sb).length;
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => stack.client.call('getUser')));
      expect(results.every((r) => r.data.user.id === sb.state.userId)).toBe(true);
    } finally {
      await stack.close();
    }
    expect(oauthGrants(sb)).toHaveLength(before + 1);
    expect((connection.credentials as OAuthTokenProvider).refreshes).toBe(1);
    const store = await openSecretStore({ configDir: d.configDir, keychain: 'off' });
    expect(await store.get('access_token')).toBe(oauthGrants(sb).at(-1)!.access_token);
  });

  it('50 concurrent calls that meet a 401 (the token was revoked at the service)', async () => {
    const d = env();
    const g = await sandboxGrant(sb);
    await storeGrant(sb, d.configDir, g);
    await revoke(sb, g.access);
    const connection = await connect(d);
    const stack = createStack({ credentials: connection.credentials, baseUrl: connection.baseUrl, stateDir: d.stateDir, persist: false });
    const before = oauthGrants(sb).length;
    try {
      await Promise.all(Array.from({ length: 50 }, () => stack.client.call('getUser')));
    } finally {
      await stack.close();
    }
    expect(oauthGrants(sb)).toHaveLength(before + 1);
    expect((connection.credentials as OAuthTokenProvider).refreshes).toBe(1);
  });

  it('two processes with 25 concurrent calls each, sharing the store and state directory', async () => {
    const d = env();
    await storeGrant(sb, d.configDir, await sandboxGrant(sb), PAST());
    const before = oauthGrants(sb).length;
    const start = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/auth/refresh-child.ts'], {
        cwd: REPO_ROOT,
        env: cliEnv(d),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.add(child);
      let out = '';
      let err = '';
      child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', () => out.includes('ready\n') && resolve());
        child.on('close', (code) => reject(new Error(`child exited (${code}) before ready: ${err}`)));
      });
      const done = new Promise<{ ok: number; errors: string[]; refreshes: number }>((resolve, reject) => {
        child.on('close', (code) => {
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (code === 0 && line) resolve(JSON.parse(line));
          else reject(new Error(`child exited ${code}: ${err}`));
        });
      });
      return { child, ready, done, output: () => out + err };
    };
    const a = start();
    const b = start();
    // Both have read the expired grant before either refreshes: the race is real.
    await Promise.all([a.ready, b.ready]);
    a.child.stdin!.write('go\n');
    b.child.stdin!.write('go\n');
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.errors).toEqual([]);
    expect(rb.errors).toEqual([]);
    expect(ra.ok + rb.ok).toBe(50);
    expect(ra.refreshes + rb.refreshes).toBe(1);
    expect(oauthGrants(sb)).toHaveLength(before + 1);
    expectNoSecrets(a.output() + b.output(), sandboxSecrets(sb), 'child output');
  });
});

describe('signing in again', () => {
  it('a revoked refresh token: the provider and an MCP tool result say to run "ynab-mcp login"', async () => {
    const d = env();
    const g = await sandboxGrant(sb);
    await storeGrant(sb, d.configDir, g, PAST());
    await revoke(sb, g.refresh!);

    const provider = await oauthProvider({ store: await openSecretStore({ configDir: d.configDir, keychain: 'off' }), stateDir: d.stateDir });
    const err = await provider.token().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(OAuthRefreshError);
    expect(err!.message).toMatch(SIGN_IN);

    const result = await toolCall(d, 'get_user');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(SIGN_IN);
    expectNoSecrets(`${err!.message}\n${result.text}`, sandboxSecrets(sb), 'the error and the tool result');
  });

  it('an expired implicit-grant token: the same message, whether the stored expiry or the service says so', async () => {
    const expired = env();
    await storeGrant(sb, expired.configDir, await sandboxGrant(sb, { implicit: true }), PAST());
    const provider = await oauthProvider({ store: await openSecretStore({ configDir: expired.configDir, keychain: 'off' }), stateDir: expired.stateDir });
    await expect(provider.token()).rejects.toThrow(SIGN_IN);
    const result = await toolCall(expired, 'get_user');
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(SIGN_IN);

    // Stored as still valid, but the service no longer accepts it (401): no refresh possible.
    const refused = env();
    const g = await sandboxGrant(sb, { implicit: true });
    await storeGrant(sb, refused.configDir, g);
    await revoke(sb, g.access);
    const r2 = await toolCall(refused, 'get_user');
    expect(r2.isError).toBe(true);
    expect(r2.text).toMatch(SIGN_IN);
    expectNoSecrets(result.text + r2.text, sandboxSecrets(sb), 'tool results');
  });

  it('an unreachable token endpoint keeps the stored grant and says to try again', async () => {
    const d = env();
    const g = await sandboxGrant(sb);
    const store = await storeGrant(sb, d.configDir, g, PAST());
    await store.set('oauth_app_url', 'http://127.0.0.1:9'); // nothing listens there
    const provider = await oauthProvider({ store, stateDir: d.stateDir });
    const err = await provider.token().then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(OAuthUnavailableError);
    expect(err!.message).toMatch(/Could not refresh the YNAB sign-in just now: could not reach http:\/\/127\.0\.0\.1:9 .*try again shortly/);
    expect(err!.message).not.toMatch(/login/);
    expect(await store.get('refresh_token')).toBe(g.refresh);
    expect(refreshStatus(sb, g.refresh!)).toBe('active');
  });
});
