// @module-tag keychain (needs a Secret Service keychain: skipped without it, see test/helpers/services.ts)
/**
 * Round trips through the REAL OS keychain (Secret Service on Linux).
 *
 * Tagged "keychain" (test/helpers/services.ts): they run when a keychain works here and otherwise
 * skip, with one line for the run saying why. CI runs the suite inside `dbus-run-session` with an
 * unlocked gnome-keyring and makes them mandatory (YNAB_MCP_REQUIRE_SERVICES, or the older
 * YNAB_MCP_KEYCHAIN_TEST=1): then they always run, and fail if the keychain does not work.
 *
 * Every entry lives under a service name unique to this run and is removed afterwards.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { KEYRING_ENTRY_OPTIONS, keychainBackendFor, loadKeyring } from '../../src/auth/keychain.js';
import { openSecretStore, probeKeychain } from '../../src/auth/secret-store.js';
import { resolveAccessToken } from '../../src/auth/token-source.js';
import { collectingWarn, tempDirs } from './helpers.js';

const service = `ynab-mcp-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const probe = await probeKeychain({ service });

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** Reads an entry straight from the keychain, bypassing the store under test. */
async function rawGet(account: string): Promise<string | null> {
  const { AsyncEntry } = await loadKeyring();
  return new AsyncEntry(service, account, KEYRING_ENTRY_OPTIONS).getPassword();
}

async function remaining(): Promise<string[]> {
  const { findCredentialsAsync } = await loadKeyring();
  return (await findCredentialsAsync(service)).map((c) => c.account).sort();
}

afterAll(async () => {
  if (!probe.available) return;
  // Whatever a failed test left behind.
  const { AsyncEntry } = await loadKeyring();
  for (const account of await remaining().catch(() => [] as string[])) {
    await new AsyncEntry(service, account, KEYRING_ENTRY_OPTIONS).deletePassword().catch(() => undefined);
  }
});

describe(`real OS keychain (${keychainBackendFor()})`, () => {
  it('works here, decided by a sentinel round trip that leaves nothing behind', async () => {
    expect(probe.reason).toBeNull();
    expect(probe.available).toBe(true);
    expect(probe.backend).toBe(keychainBackendFor());
    expect(await remaining()).toEqual([]);
  });

  it('openSecretStore picks the keychain and round-trips set/get/delete through it', async () => {
    const dir = dirs.make();
    const w = collectingWarn();
    const store = await openSecretStore({ configDir: dir, service, warn: w.warn });
    expect(store.kind).toBe('keychain');
    expect(store.probe.available).toBe(true);
    expect(store.location).toContain(service);

    const token = `tok-${randomBytes(16).toString('hex')}`;
    await store.set('access_token', token);
    expect(await rawGet('default:access_token')).toBe(token); // really in the keychain
    expect(await store.get('access_token')).toBe(token);
    expect(await store.lookup('access_token')).toEqual({ value: token, source: 'keychain' });
    expect(await resolveAccessToken(store, {})).toEqual({ token, source: 'keychain' });

    await store.set('access_token', `${token}-2`);
    expect(await store.get('access_token')).toBe(`${token}-2`);
    expect(await store.delete('access_token')).toBe(true);
    expect(await store.delete('access_token')).toBe(false);
    expect(await store.get('access_token')).toBeNull();
    expect(await rawGet('default:access_token')).toBeNull();

    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
    expect(existsSync(dir) ? (await import('node:fs')).readdirSync(dir) : []).toEqual([]);
    expect(w.messages).toEqual([]);
    expect(await remaining()).toEqual([]);
  });

  it('keeps profiles apart; clear() removes everything of one profile, custom names included', async () => {
    const dir = dirs.make();
    const def = await openSecretStore({ configDir: dir, service });
    const work = await openSecretStore({ configDir: dir, service, profile: 'work' });
    expect(def.kind).toBe('keychain');
    expect(work.kind).toBe('keychain');

    await def.set('access_token', 'default-access');
    await def.set('refresh_token', 'default-refresh');
    await def.set('token_expires_at', '1900000000');
    await def.set('custom_note', 'not a known name');
    await work.set('access_token', 'work-access');

    expect(await def.get('access_token')).toBe('default-access');
    expect(await work.get('access_token')).toBe('work-access');
    expect(await work.get('refresh_token')).toBeNull();
    expect(await def.listNames()).toEqual(['access_token', 'custom_note', 'refresh_token', 'token_expires_at']);
    expect(await work.listNames()).toEqual(['access_token']);

    expect(await def.clear()).toEqual(['access_token', 'custom_note', 'refresh_token', 'token_expires_at']);
    expect(await def.listNames()).toEqual([]);
    expect(await def.get('custom_note')).toBeNull();
    expect(await work.get('access_token')).toBe('work-access');
    expect(await remaining()).toEqual(['work:access_token']);

    expect(await work.clear()).toEqual(['access_token']);
    expect(await remaining()).toEqual([]);
  });

  it('reads secrets left in the fallback file, and moves each to the keychain when it is saved', async () => {
    const dir = dirs.make();
    const file = await openSecretStore({ configDir: dir, service, keychain: 'off' });
    await file.set('access_token', 'from-the-file');
    await file.set('replica_key', 'key-in-file');

    const w = collectingWarn();
    const store = await openSecretStore({ configDir: dir, service, warn: w.warn });
    expect(store.kind).toBe('keychain');
    expect(await resolveAccessToken(store, {})).toEqual({ token: 'from-the-file', source: 'file' });
    expect(w.messages).toHaveLength(1);
    expect(w.messages[0]).toContain(join(dir, 'secrets.json'));
    expect(w.messages[0]).not.toContain('from-the-file');

    await store.set('access_token', 'now-in-keychain');
    expect(await resolveAccessToken(store, {})).toEqual({ token: 'now-in-keychain', source: 'keychain' });
    expect(await file.get('access_token')).toBeNull();
    expect(await store.listNames()).toEqual(['access_token', 'replica_key']);

    expect(await store.clear()).toEqual(['access_token', 'replica_key']);
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
    expect(await remaining()).toEqual([]);
  });
});
