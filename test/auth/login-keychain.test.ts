// @module-tag keychain (needs a Secret Service keychain: skipped without it, see test/helpers/services.ts)
/**
 * `login`, `status` and `logout` through the REAL OS keychain (Secret Service on Linux), via the
 * CLI. Tagged "keychain" like keychain.test.ts: mandatory in CI (inside dbus-run-session with an
 * unlocked gnome-keyring); elsewhere it runs when a keychain works here and else skips, with one
 * line for the run saying why (test/helpers/services.ts). It uses the real service name "ynab-mcp" (the CLI has no other) with a
 * profile unique to this run, and removes every entry of that profile afterwards.
 */
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KEYRING_ENTRY_OPTIONS, loadKeyring } from '../../src/auth/keychain.js';
import { probeKeychain } from '../../src/auth/secret-store.js';
import { CREDENTIAL_NAMES } from '../../src/auth/credentials.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { killAllCli } from '../helpers/cli.js';
import { runCli } from './cli-run.js';
import { tempDirs } from './helpers.js';

const SERVICE = 'ynab-mcp';
const profile = `test-${process.pid}-${randomBytes(4).toString('hex')}`;
const probe = await probeKeychain({ service: SERVICE });

let sb: TestSandbox;
const dirs = tempDirs();

async function rawGet(name: string): Promise<string | null> {
  const { AsyncEntry } = await loadKeyring();
  return new AsyncEntry(SERVICE, `${profile}:${name}`, KEYRING_ENTRY_OPTIONS).getPassword();
}

beforeAll(async () => {
  sb = await testSandbox();
});
afterEach(async () => {
  await killAllCli();
});
afterAll(async () => {
  if (probe.available) {
    const { AsyncEntry } = await loadKeyring();
    for (const name of [...CREDENTIAL_NAMES, '__names__']) {
      await new AsyncEntry(SERVICE, `${profile}:${name}`, KEYRING_ENTRY_OPTIONS).deletePassword().catch(() => undefined);
    }
  }
  await sb?.close();
  dirs.cleanup();
});

describe('login through the real OS keychain', () => {
  it('stores the token in the keychain (not the file), status finds it there, logout removes it', async () => {
    const root = dirs.make();
    const d = { configDir: join(root, 'config'), stateDir: join(root, 'state'), env: { YNAB_MCP_KEYCHAIN: undefined } };
    const login = await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl, '--profile', profile], { ...d, stdin: `${sb.accessToken}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/Stored in the OS keychain \(/);
    expect(login.stderr + login.stdout).not.toContain(sb.accessToken);
    expect(await rawGet('access_token')).toBe(sb.accessToken);
    expect(await rawGet('token_kind')).toBe('personal');
    expect(existsSync(join(d.configDir, 'secrets.json'))).toBe(false);

    const status = await runCli(['status', '--json', '--profile', profile], d);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toContain(sb.accessToken);
    const report = JSON.parse(status.stdout);
    expect(report.token).toMatchObject({ source: 'keychain', kind: 'personal' });
    expect(report.keychain).toMatchObject({ available: true, reason: null });

    const logout = await runCli(['logout', '--profile', profile], d);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toMatch(/Removed from the OS keychain .*: access_token, base_url, token_kind\./);
    expect(await rawGet('access_token')).toBeNull();
    expect(await rawGet('token_kind')).toBeNull();
  });
});
