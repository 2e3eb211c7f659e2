/**
 * `login` with a personal access token, `status` and `logout`, through the real CLI against the
 * sandbox: the token is checked with GET /user before it is stored; status reports source, kind,
 * quota and the replicas `serve` saved (under the same identity); logout removes the stored
 * sign-in and those replicas; an OAuth grant shows scope and expiry. No run prints a secret, and
 * `status --json` holds none.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/auth/connection.js';
import { openSecretStore } from '../../src/auth/secret-store.js';
import type { StatusReport } from '../../src/auth/status-report.js';
import { tokenKey } from '../../src/quota/ledger.js';
import { fileKey } from '../../src/sync/persist.js';
import { createStack } from '../../src/stack/stack.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { runCli } from './cli-run.js';
import { cliSuite } from './cli-suite.js';
import { expectNoSecrets, PAST, sandboxGrant, sandboxSecrets, storeGrant } from './oauth-fixtures.js';

let sb: TestSandbox;
const env = cliSuite((started) => {
  sb = started;
});

const stored = (configDir: string): Record<string, string> => {
  const file = join(configDir, 'secrets.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).profiles.default ?? {}) : {};
};

async function status(d: { configDir: string; stateDir: string }, extra: Record<string, string> = {}): Promise<StatusReport> {
  const res = await runCli(['status', '--json'], { ...d, env: extra });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout.trim().split('\n')).toHaveLength(1);
  expectNoSecrets(res.stdout, [...sandboxSecrets(sb), sb.accessToken, sb.readOnlyToken], 'status --json');
  return JSON.parse(res.stdout) as StatusReport;
}

describe('personal access token', () => {
  it('login checks and stores it; status shows it with its quota and replicas; logout removes both', async () => {
    const d = env();
    const login = await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: `${sb.accessToken}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).toContain(`Signed in to YNAB as user ${sb.state.userId} with a personal access token.`);
    expect(login.stderr).toContain(`Stored in the file ${join(d.configDir, 'secrets.json')}`);
    expect(login.stderr).toMatch(/YNAB_MCP_KEYCHAIN=off/);
    expect(login.stderr + login.stdout).not.toContain(sb.accessToken);
    expect(stored(d.configDir)).toEqual({ access_token: sb.accessToken, token_kind: 'personal', base_url: sb.baseUrl });

    // What `serve` does: the stored token, its replicas saved under the connection's identity.
    const connection = await resolveConnection({ ...d, env: { YNAB_MCP_KEYCHAIN: 'off' }, warn: () => {} });
    expect(connection.info).toEqual({ source: 'file', kind: 'personal' });
    const stack = createStack({
      credentials: connection.credentials,
      identity: connection.identity,
      baseUrl: connection.baseUrl,
      stateDir: d.stateDir,
      keySource: fileKey(join(d.stateDir, 'test.key')),
    });
    await stack.service.call('getAccounts', { params: { budget_id: 'last-used' } });
    // An applied change in the undo journal and an outstanding confirm token: the sign-in's too.
    // A personal token's data is kept under a hash of the token (what the stack uses by default).
    const identity = tokenKey(sb.accessToken);
    const budget = sb.state.budgets[0]!.id;
    await stack.changes.append(budget, { tool: 'update_payee', summary: 'renamed', entities: [] });
    await stack.confirmTokens.issue({ tool: 'delete_transaction', budgetId: budget, args: {}, entities: [] });
    await stack.close();
    const kept = ['changes', 'confirm'].map((kind) => join(d.stateDir, kind, identity));
    for (const dir of kept) expect(existsSync(dir), dir).toBe(true);

    const before = await status(d);
    expect(before.token).toMatchObject({ source: 'file', kind: 'personal', scope: null, expires_at: null, base_url: sb.baseUrl });
    expect(before.store).toMatchObject({ kind: 'file', names: ['access_token', 'base_url', 'token_kind'], overridden_by_env: false });
    expect(before.keychain).toMatchObject({ available: false, reason: 'the keychain is turned off by YNAB_MCP_KEYCHAIN=off' });
    // GET /user at login, then the budget's export: both counted in the token's ledger (whose
    // limit the sandbox announced in X-Rate-Limit).
    expect(before.quota).toMatchObject({ limit: 100_000, used: 2, remaining: 99_998 });
    expect(before.replicas!.budgets).toBe(1);
    expect(before.replicas!.files[0]!.bytes).toBeGreaterThan(100);
    expect(Date.now() - Date.parse(before.replicas!.files[0]!.modified)).toBeLessThan(60_000);
    expect(existsSync(before.replicas!.directory)).toBe(true);

    const text = await runCli(['status'], d);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Token: +personal access token from the secrets file/);
    expect(text.stdout).toMatch(/Quota: +2 of 100000 requests used/);
    expect(text.stdout).toMatch(/Replicas: +1 budget\(s\)/);

    const logout = await runCli(['logout'], d);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain('for profile "default": access_token, base_url, token_kind.');
    expect(logout.stderr).toMatch(/Removed the saved replicas of 1 budget\(s\)/);
    expect(existsSync(before.replicas!.directory)).toBe(false);
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
    for (const dir of kept) expect(existsSync(dir), dir).toBe(false);

    const after = await status(d);
    expect(after.token.source).toBe('none');
    expect(after.quota).toBeNull();
    expect(after.replicas).toBeNull();
    const again = await runCli(['logout'], d);
    expect(again.stderr).toContain('Nothing was stored for profile "default".');
  });

  it('a token YNAB refuses is not stored', async () => {
    const d = env();
    const res = await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: 'not-a-valid-token-123456\n' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/the token was not stored: YNAB did not accept the token \(401 not_authorized\)/);
    expect(res.stderr).not.toContain('not-a-valid-token-123456');
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
  });

  it('without a terminal it asks for --token-stdin instead of reading an echoed token', async () => {
    const d = env();
    const res = await runCli(['login', '--base-url', sb.baseUrl], { ...d, stdin: `${sb.accessToken}\n` });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/stdin is not a terminal: pipe the YNAB personal access token in and pass --token-stdin/);
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
  });

  it('a new login replaces every field of the previous OAuth sign-in', async () => {
    const d = env();
    await storeGrant(sb, d.configDir, await sandboxGrant(sb));
    expect(Object.keys(stored(d.configDir))).toContain('refresh_token');
    const res = await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: `${sb.readOnlyToken}\n` });
    expect(res.code, res.stderr).toBe(0);
    expect(stored(d.configDir)).toEqual({ access_token: sb.readOnlyToken, token_kind: 'personal', base_url: sb.baseUrl });
  });

  it('status says when YNAB_ACCESS_TOKEN takes precedence over the stored sign-in', async () => {
    const d = env();
    await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: `${sb.accessToken}\n` });
    const report = await status(d, { YNAB_ACCESS_TOKEN: sb.readOnlyToken });
    expect(report.token).toMatchObject({ source: 'env', kind: 'personal' });
    expect(report.store.overridden_by_env).toBe(true);
    expect(report.quota!.used).toBe(0); // the env token's own ledger, not the stored token's
  });
});

describe('logout and the replica key', () => {
  it('keeps the shared replica encryption key while other sign-ins have saved replicas, and only then', async () => {
    const d = env();
    const store = await openSecretStore({ configDir: d.configDir, keychain: 'off' });
    await store.set('replica_key', 'k'.repeat(64));
    const other = join(d.stateDir, 'replicas', 'another-identity');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'budget.replica'), 'x');
    await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: `${sb.accessToken}\n` });

    const first = await runCli(['logout'], d);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(': access_token, base_url, token_kind.');
    expect(first.stderr).toMatch(/Kept the replica encryption key/);
    expect(stored(d.configDir)).toEqual({ replica_key: 'k'.repeat(64) });
    expect(existsSync(join(other, 'budget.replica'))).toBe(true);

    rmSync(other, { recursive: true });
    const second = await runCli(['logout'], d);
    expect(second.stderr).toContain(': replica_key.');
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);
  });
});

describe('status of an OAuth grant', () => {
  it('shows scope, expiry and whether it refreshes, never a token', async () => {
    const d = env();
    await storeGrant(sb, d.configDir, await sandboxGrant(sb, { scope: 'read-only' }), PAST());
    const report = await status(d);
    expect(report.token).toMatchObject({
      source: 'file',
      kind: 'oauth',
      scope: 'read-only',
      expired: true,
      refreshable: true,
      oauth_client_id: sb.oauthClientId,
      oauth_app_url: sb.appUrl,
    });
    const text = await runCli(['status'], d);
    expect(text.stdout).toMatch(/Token: +OAuth grant \(refreshing\)/);
    expect(text.stdout).toMatch(/Scope: +read-only \(the server works as --read-only\)/);
    expect(text.stdout).toMatch(/refreshed at the next use/);
    // Status is read-only: it refreshed nothing.
    expect(report.quota!.used).toBe(0);

    const implicit = env();
    await storeGrant(sb, implicit.configDir, await sandboxGrant(sb, { implicit: true }), PAST());
    const t2 = await runCli(['status'], implicit);
    expect(t2.stdout).toMatch(/OAuth implicit grant \(no refresh token\)/);
    expect(t2.stdout).toMatch(/run "ynab-mcp login --oauth" again/);
  });
});
