import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileSecretStore } from '../../src/auth/file-store.js';
import { KeychainSecretStore, loadKeyring, type KeyringModule } from '../../src/auth/keychain.js';
import { openSecretStore, probeKeychain, SecretStoreError } from '../../src/auth/secret-store.js';
import { resolveAccessToken } from '../../src/auth/token-source.js';
import { collectingWarn, distinctiveSecret, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const linux = process.platform === 'linux';
const uniqueService = () => `ynab-mcp-test-${process.pid}-${randomBytes(4).toString('hex')}`;

/** A keychain store for profile "default" under a service name of its own, its leftover file in `dir`. */
function keychainStore(keyring: KeyringModule, dir: string, extra: { timeoutMs?: number } = {}): KeychainSecretStore {
  return new KeychainSecretStore({
    keyring,
    service: uniqueService(),
    profile: 'default',
    leftoverFile: new FileSecretStore({ path: join(dir, 'secrets.json'), profile: 'default', warn: () => undefined }),
    warn: () => undefined,
    ...extra,
  });
}

/** Points D-Bus at a socket that does not exist, so Secret Service cannot be reached, whatever the shell. */
function withoutDbus() {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = 'unix:path=/nonexistent/ynab-mcp-test/bus';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
    else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
  });
}

/** Everything written to stdout/stderr or the console while `fn` runs. */
async function captureOutput(fn: () => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const grab = (chunk: unknown) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(grab),
    vi.spyOn(process.stderr, 'write').mockImplementation(grab),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void chunks.push(args.map(String).join(' '))),
    ),
  ];
  try {
    await fn();
  } finally {
    for (const s of spies) s.mockRestore();
  }
  return chunks.join('');
}

/** An in-memory stand-in for @napi-rs/keyring, to test error handling the real keychain cannot be made to produce. */
function fakeKeyring(behaviour: { setPassword?: (password: string) => Promise<void>; getPassword?: () => Promise<string | null> }): KeyringModule {
  const store = new Map<string, string>();
  class AsyncEntry {
    constructor(
      private readonly service: string,
      private readonly account: string,
    ) {}
    private get key() {
      return `${this.service}\u0000${this.account}`;
    }
    async setPassword(password: string) {
      if (behaviour.setPassword) return behaviour.setPassword(password);
      store.set(this.key, password);
    }
    async getPassword() {
      if (behaviour.getPassword) return behaviour.getPassword();
      return store.get(this.key) ?? null;
    }
    async deletePassword() {
      return store.delete(this.key);
    }
  }
  return { AsyncEntry } as unknown as KeyringModule;
}

describe.runIf(linux)('without D-Bus (Linux)', () => {
  withoutDbus();

  // Failing at "open" shows the store is pinned to Secret Service: unpinned, @napi-rs/keyring
  // constructs the entry fine and falls back to the kernel keyring, failing (or not) only at "write".
  it('probeKeychain reports Secret Service unavailable, with the reason', async () => {
    const probe = await probeKeychain({ service: uniqueService() });
    expect(probe.available).toBe(false);
    expect(probe.backend).toBe('secret-service');
    expect(probe.reason).toMatch(/^Secret Service failed at "open": .+/);
  });

  it('openSecretStore with keychain "auto" falls back to the file store and warns once', async () => {
    const dir = dirs.make();
    const w = collectingWarn();
    const service = uniqueService();
    const store = await openSecretStore({ configDir: dir, service, warn: w.warn });
    expect(store.kind).toBe('file');
    expect(store.probe.available).toBe(false);
    expect(store.location).toBe(join(dir, 'secrets.json'));
    await store.set('access_token', 'fallback-token');
    expect(await store.get('access_token')).toBe('fallback-token');
    expect(await store.delete('access_token')).toBe(true);
    const again = await openSecretStore({ configDir: dir, service, warn: w.warn });
    expect(again.kind).toBe('file');

    expect(w.messages).toHaveLength(1);
    expect(w.messages[0]).toMatch(/No OS keychain was available/);
    expect(w.messages[0]).toContain(join(dir, 'secrets.json'));
    expect(w.messages[0]).toMatch(/Secret Service failed/);
  });
});

describe('no side effects at import', () => {
  it('loads the native keychain module only when a store is opened with keychain "auto"', () => {
    const root = resolve(fileURLToPath(import.meta.url), '../../..');
    const dir = dirs.make();
    const script = join(dir, 'probe-import.mjs');
    writeFileSync(
      script,
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require('node:module')._cache).some((k) => k.includes('@napi-rs'));
const mod = await import(${JSON.stringify(pathToFileURL(join(root, 'src/auth/secret-store.ts')).href)});
const out = { afterImport: loaded() };
await mod.openSecretStore({ configDir: ${JSON.stringify(join(dir, 'cfg'))}, keychain: 'off' });
out.afterOff = loaded();
await mod.openSecretStore({ configDir: ${JSON.stringify(join(dir, 'cfg'))}, service: ${JSON.stringify(uniqueService())}, warn: () => {} });
out.afterAuto = loaded();
process.stdout.write(JSON.stringify(out));
`,
    );
    const out = execFileSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ afterImport: false, afterOff: false, afterAuto: true });
    expect(existsSync(join(dir, 'cfg'))).toBe(false);
  });
});

describe('keychain "off"', () => {
  it('uses the file without probing and without a warning', async () => {
    const w = collectingWarn();
    const store = await openSecretStore({ configDir: dirs.make(), keychain: 'off', warn: w.warn });
    expect(store.kind).toBe('file');
    expect(store.probe).toMatchObject({ available: false, reason: 'the keychain is turned off by configuration', elapsedMs: 0 });
    expect(w.messages).toEqual([]);
  });
});

describe('secrets never leak into output or errors', () => {
  withoutDbus();

  it('file store: warnings, errors and console output never contain the secret', async () => {
    const secret = distinctiveSecret();
    const dir = dirs.make();
    const file = join(dir, 'secrets.json');
    const w = collectingWarn();
    const errors: string[] = [];
    const keep = (e: unknown) => {
      expect(e).toBeInstanceOf(SecretStoreError);
      errors.push(`${(e as Error).message}\n${(e as Error).stack ?? ''}`);
    };
    const printed = await captureOutput(async () => {
      const store = await openSecretStore({
        configDir: dir,
        service: uniqueService(),
        warn: w.warn,
        keychain: linux ? 'auto' : 'off',
      });
      await store.set('access_token', secret);
      expect(await store.get('access_token')).toBe(secret);
      await store.lookup('access_token');
      await store.listNames();
      // Arguments swapped by mistake: the "name" is the secret.
      await store.set(secret, 'access_token').catch(keep);
      await store.get(secret).catch(keep);
      await store.set('refresh_token', `${secret}${'x'.repeat(1024)}`).catch(keep);
      if (process.platform !== 'win32') {
        const { chmodSync } = await import('node:fs');
        chmodSync(file, 0o644);
        await store.get('access_token');
      }
      writeFileSync(file, readFileSync(file, 'utf8').slice(0, -5));
      await store.get('access_token').catch(keep);
      await store.clear().catch(keep);
    });
    expect(errors).toHaveLength(5);
    if (linux) expect(w.messages.some((m) => m.includes('No OS keychain'))).toBe(true);
    for (const text of [printed, ...w.messages, ...errors]) expect(text).not.toContain(secret);
  });

  it('keychain store: errors from the keychain are redacted', async () => {
    const secret = distinctiveSecret();
    const keyring = fakeKeyring({
      setPassword: async (password) => {
        throw new Error(`platform refused to store "${password}"`);
      },
    });
    const dir = dirs.make();
    const store = keychainStore(keyring, dir);
    const err = await store.set('access_token', secret).then(
      () => null,
      (e: unknown) => e as SecretStoreError,
    );
    expect(err).toBeInstanceOf(SecretStoreError);
    expect(err?.code).toBe('keychain_failed');
    expect(err?.message).toContain('could not write secret "access_token"');
    expect(err?.message).toContain('[redacted]');
    expect(err?.message).not.toContain(secret);
    expect(err?.cause).toBeUndefined();
  });

  it.runIf(linux)('keychain store: a real keychain failure names no secret', async () => {
    const secret = distinctiveSecret();
    const dir = dirs.make();
    const store = keychainStore(await loadKeyring(), dir);
    const err = await store.set('access_token', secret).then(
      () => null,
      (e: unknown) => e as SecretStoreError,
    );
    expect(err?.code).toBe('keychain_failed');
    expect(err?.message).toMatch(/Secret Service\) could not write secret "access_token" for profile "default": .+/);
    expect(err?.message).not.toContain(secret);
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false); // no silent downgrade to the file
  });
});

describe('keychain store behaviour that needs no real keychain', () => {
  it('gives up on a keychain call that never answers', async () => {
    const store = keychainStore(fakeKeyring({ getPassword: () => new Promise<never>(() => undefined) }), dirs.make(), { timeoutMs: 50 });
    await expect(store.get('access_token')).rejects.toMatchObject({
      code: 'keychain_failed',
      message: expect.stringMatching(/no answer from the keychain within 50 ms/),
    });
  });
});

describe('resolveAccessToken', () => {
  it('prefers YNAB_ACCESS_TOKEN and does not open the store then', async () => {
    const open = vi.fn(async () => openSecretStore({ configDir: dirs.make(), keychain: 'off' }));
    expect(await resolveAccessToken(open, { YNAB_ACCESS_TOKEN: ' env-token \n' })).toEqual({
      token: 'env-token',
      source: 'env',
    });
    expect(open).not.toHaveBeenCalled();
  });

  it('falls back to the store, reporting where the token was', async () => {
    const store = await openSecretStore({ configDir: dirs.make(), keychain: 'off' });
    expect(await resolveAccessToken(store, {})).toBeNull();
    await store.set('access_token', 'stored-token');
    expect(await resolveAccessToken(store, {})).toEqual({ token: 'stored-token', source: 'file' });
    expect(await resolveAccessToken(async () => store, { YNAB_ACCESS_TOKEN: '' })).toEqual({
      token: 'stored-token',
      source: 'file',
    });
    // A host that left its optional token field empty passes the template through unsubstituted.
    expect(await resolveAccessToken(store, { YNAB_ACCESS_TOKEN: '${user_config.ynab_access_token}' })).toEqual({
      token: 'stored-token',
      source: 'file',
    });
    expect(await resolveAccessToken(store, { YNAB_ACCESS_TOKEN: 'from-env' })).toEqual({ token: 'from-env', source: 'env' });
  });

  it('keychain beats a leftover file; the file is used when the keychain has nothing', async () => {
    const dir = dirs.make();
    const file = new FileSecretStore({ path: join(dir, 'secrets.json'), profile: 'default', warn: () => undefined });
    await file.set('access_token', 'file-token');
    const w = collectingWarn();
    const store = new KeychainSecretStore({
      keyring: fakeKeyring({}),
      service: uniqueService(),
      profile: 'default',
      leftoverFile: file,
      warn: w.warn,
    });
    expect(await resolveAccessToken(store, {})).toEqual({ token: 'file-token', source: 'file' });
    expect(w.messages).toHaveLength(1);
    expect(w.messages[0]).toContain(join(dir, 'secrets.json'));
    await store.set('access_token', 'keychain-token');
    expect(await resolveAccessToken(store, {})).toEqual({ token: 'keychain-token', source: 'keychain' });
    expect(await file.get('access_token')).toBeNull(); // moved out of the file
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
  });
});
