/**
 * YNAB_MCP_KEYCHAIN=off forces the file store wherever the store is opened, even where the code
 * asks for "auto" (the replica key in src/stack/stack.ts, connection.ts): it is the user's choice.
 * The reason distinguishes it from a keychain that merely failed its probe, so these tests fail
 * if the variable were ignored, whether or not a keychain works here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/auth/connection.js';
import { keychainOffByEnv, openSecretStore } from '../../src/auth/secret-store.js';
import { collectingWarn, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('YNAB_MCP_KEYCHAIN=off', () => {
  it('overrides keychain "auto": the file store, no probe, no warning', async () => {
    const w = collectingWarn();
    const store = await openSecretStore({
      configDir: dirs.make(),
      keychain: 'auto',
      env: { YNAB_MCP_KEYCHAIN: 'OFF' },
      warn: w.warn,
      service: 'ynab-mcp-never-touched',
    });
    expect(store.kind).toBe('file');
    expect(store.probe).toMatchObject({ available: false, elapsedMs: 0, reason: 'the keychain is turned off by YNAB_MCP_KEYCHAIN=off' });
    expect(w.messages).toEqual([]);
  });

  it('is the only value that turns it off', () => {
    expect(keychainOffByEnv({ YNAB_MCP_KEYCHAIN: ' off ' })).toBe(true);
    expect(keychainOffByEnv({})).toBe(false);
    expect(keychainOffByEnv({ YNAB_MCP_KEYCHAIN: 'auto' })).toBe(false);
  });

  it('resolveConnection honours it from the environment it is given', async () => {
    const configDir = dirs.make();
    const file = await openSecretStore({ configDir, keychain: 'off' });
    await file.set('access_token', 'file-token-123456');
    await file.set('token_kind', 'personal');
    const w = collectingWarn();
    const c = await resolveConnection({ configDir, stateDir: dirs.make(), env: { YNAB_MCP_KEYCHAIN: 'off' }, warn: w.warn });
    expect(c.info).toEqual({ source: 'file', kind: 'personal' });
    expect(await c.credentials.token()).toBe('file-token-123456');
    expect(w.messages).toEqual([]);
    // YNAB_ACCESS_TOKEN still comes first.
    const env = await resolveConnection({ configDir, stateDir: dirs.make(), env: { YNAB_MCP_KEYCHAIN: 'off', YNAB_ACCESS_TOKEN: 'env-token-1234567' } });
    expect(env.info).toEqual({ source: 'env', kind: 'personal' });
  });
});
