import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSecretStore, writeFileAtomic } from '../../src/auth/file-store.js';
import { openSecretStore, SecretStoreError, type SecretStore } from '../../src/auth/secret-store.js';
import { collectingWarn, distinctiveSecret, tempDirs } from './helpers.js';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

const posix = process.platform !== 'win32';

async function fileStore(configDir: string, profile = 'default', warn = collectingWarn().warn): Promise<SecretStore> {
  const store = await openSecretStore({ configDir, profile, keychain: 'off', warn });
  expect(store.kind).toBe('file');
  return store;
}

async function rejection(p: Promise<unknown>): Promise<SecretStoreError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SecretStoreError);
  return err as SecretStoreError;
}

describe('file secret store', () => {
  it('round-trips set, get, lookup, delete', async () => {
    const dir = dirs.make();
    const store = await fileStore(dir);
    expect(await store.get('access_token')).toBeNull();
    await store.set('access_token', 'tok-1');
    await store.set('token_expires_at', '2030-01-01T00:00:00Z');
    expect(await store.get('access_token')).toBe('tok-1');
    expect(await store.lookup('access_token')).toEqual({ value: 'tok-1', source: 'file' });
    await store.set('access_token', 'tok-2');
    expect(await store.get('access_token')).toBe('tok-2');
    expect(await store.listNames()).toEqual(['access_token', 'token_expires_at']);
    expect(await store.delete('access_token')).toBe(true);
    expect(await store.delete('access_token')).toBe(false);
    expect(await store.get('access_token')).toBeNull();
    // A second store on the same directory sees what the first wrote.
    expect(await (await fileStore(dir)).get('token_expires_at')).toBe('2030-01-01T00:00:00Z');
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({
      version: 1,
      profiles: { default: { token_expires_at: '2030-01-01T00:00:00Z' } },
    });
  });

  it.skipIf(!posix)('writes the file with mode 0600 inside a new 0700 directory', async () => {
    const configDir = join(dirs.make(), 'nested', 'ynab-mcp');
    const store = await fileStore(configDir);
    await store.set('refresh_token', 'r');
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(configDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    await store.set('refresh_token', 'r2');
    expect(statSync(join(configDir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('creates nothing when only reading, or deleting what is not there', async () => {
    const configDir = join(dirs.make(), 'never-created');
    const store = await fileStore(configDir);
    expect(await store.get('access_token')).toBeNull();
    expect(await store.lookup('access_token')).toBeNull();
    expect(await store.listNames()).toEqual([]);
    expect(await store.delete('access_token')).toBe(false);
    expect(await store.clear()).toEqual([]);
    expect(existsSync(configDir)).toBe(false);
  });

  it.skipIf(!posix)('replaces the file by rename (new inode), leaving no temp or lock files', async () => {
    const dir = dirs.make();
    const store = await fileStore(dir);
    const file = join(dir, 'secrets.json');
    await store.set('access_token', 'a');
    const before = statSync(file).ino;
    await store.set('access_token', 'b');
    expect(statSync(file).ino).not.toBe(before);
    expect(readdirSync(dir)).toEqual(['secrets.json']);
  });

  it('readers never see a partial file while writers are busy', async () => {
    const dir = dirs.make();
    const file = join(dir, 'secrets.json');
    const store = await fileStore(dir);
    await store.set('replica_key', 'k'.repeat(900));
    let writing = true;
    let reads = 0;
    const reader = (async () => {
      while (writing) {
        const text = readFileSync(file, 'utf8');
        expect(() => JSON.parse(text)).not.toThrow();
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 40; i++) await store.set('replica_key', String(i % 10).repeat(900 - i));
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(await store.get('replica_key')).toBe('9'.repeat(861));
  });

  it('a failed write removes its temp file and leaves the target alone', async () => {
    const dir = dirs.make();
    const target = join(dir, 'target');
    mkdirSync(target);
    writeFileSync(join(target, 'keep'), 'x');
    await expect(writeFileAtomic(target, '{}')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['target']);
    expect(readFileSync(join(target, 'keep'), 'utf8')).toBe('x');
  });

  it('serialises concurrent writers (two stores, same file): no update is lost', async () => {
    const dir = dirs.make();
    const a = await fileStore(dir, 'alpha');
    const b = await fileStore(dir, 'beta');
    const names = Array.from({ length: 12 }, (_, i) => `name_${i}`);
    await Promise.all(names.flatMap((n) => [a.set(n, `a-${n}`), b.set(n, `b-${n}`)]));
    expect(await a.listNames()).toEqual([...names].sort());
    expect(await b.listNames()).toEqual([...names].sort());
    for (const n of names) {
      expect(await a.get(n)).toBe(`a-${n}`);
      expect(await b.get(n)).toBe(`b-${n}`);
    }
    expect(readdirSync(dir)).toEqual(['secrets.json']);
  });

  it('keeps profiles apart, and clear() removes only its own profile', async () => {
    const dir = dirs.make();
    const def = await fileStore(dir);
    const work = await fileStore(dir, 'work');
    await def.set('access_token', 'default-token');
    await def.set('replica_key', 'default-key');
    await work.set('access_token', 'work-token');
    expect(await def.get('access_token')).toBe('default-token');
    expect(await work.get('access_token')).toBe('work-token');
    expect(await work.get('replica_key')).toBeNull();

    expect(await def.clear()).toEqual(['access_token', 'replica_key']);
    expect(await def.listNames()).toEqual([]);
    expect(await def.get('access_token')).toBeNull();
    expect(await work.get('access_token')).toBe('work-token');
    expect(await def.clear()).toEqual([]);

    // Removing the last secret removes the file.
    expect(await work.clear()).toEqual(['access_token']);
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
  });

  it('refuses to touch a corrupt file, and says which file and what to do', async () => {
    const dir = dirs.make();
    const file = join(dir, 'secrets.json');
    const secret = distinctiveSecret();
    const content = `{"version":1,"profiles":{"default":{"access_token":"${secret}"`; // truncated
    writeFileSync(file, content, { mode: 0o600 });
    const store = await fileStore(dir);
    for (const attempt of [
      () => store.get('access_token'),
      () => store.set('access_token', 'new'),
      () => store.delete('access_token'),
      () => store.clear(),
      () => store.listNames(),
    ]) {
      const err = await rejection(attempt());
      expect(err.code).toBe('file_corrupt');
      expect(err.path).toBe(file);
      expect(err.message).toContain(file);
      expect(err.message).toMatch(/not valid JSON/);
      expect(err.message).toMatch(/Move it aside or delete it/);
      expect(err.message).not.toContain(secret);
      expect(String(err.stack)).not.toContain(secret);
    }
    expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('rejects a file with the wrong shape, and one from a newer format', async () => {
    const dir = dirs.make();
    const file = join(dir, 'secrets.json');
    const store = await fileStore(dir);
    writeFileSync(file, JSON.stringify({ version: 1, profiles: { default: { access_token: 42 } } }), { mode: 0o600 });
    expect((await rejection(store.get('access_token'))).message).toMatch(/value is not a string/);
    writeFileSync(file, JSON.stringify(['not', 'an', 'object']), { mode: 0o600 });
    expect((await rejection(store.get('access_token'))).code).toBe('file_corrupt');
    writeFileSync(file, JSON.stringify({ version: 2, profiles: {} }), { mode: 0o600 });
    expect((await rejection(store.get('access_token'))).message).toMatch(/newer version of ynab-mcp/);
  });

  it('reads an empty file as an empty store (it holds no secrets to lose)', async () => {
    const dir = dirs.make();
    writeFileSync(join(dir, 'secrets.json'), '  \n', { mode: 0o600 });
    const store = await fileStore(dir);
    expect(await store.get('access_token')).toBeNull();
    await store.set('access_token', 't');
    expect(await store.get('access_token')).toBe('t');
  });

  it.skipIf(!posix)('tightens a file readable by others to 0600 and warns once', async () => {
    const dir = dirs.make();
    const file = join(dir, 'secrets.json');
    const w = collectingWarn();
    const store = await fileStore(dir, 'default', w.warn);
    await store.set('access_token', 'loose');
    chmodSync(file, 0o644);
    expect(await store.get('access_token')).toBe('loose');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    chmodSync(file, 0o640);
    await store.get('access_token');
    expect(w.messages).toHaveLength(1);
    expect(w.messages[0]).toContain(file);
    expect(w.messages[0]).toContain('0644');
    expect(w.messages.join('\n')).not.toContain('loose');
  });

  it('validates names, profiles and values', async () => {
    const dir = dirs.make();
    const store = await fileStore(dir);
    for (const bad of ['', 'Access_Token', '1token', 'a-b', 'a:b', '__names__', 'x'.repeat(41)]) {
      expect((await rejection(store.set(bad, 'v'))).code).toBe('invalid_name');
      expect((await rejection(store.get(bad))).code).toBe('invalid_name');
    }
    expect((await rejection(store.set('access_token', ''))).code).toBe('invalid_value');
    expect((await rejection(store.set('access_token', 'v'.repeat(1025)))).code).toBe('invalid_value');
    await expect(openSecretStore({ configDir: dir, profile: 'a:b', keychain: 'off' })).rejects.toMatchObject({
      code: 'invalid_profile',
    });
    expect(() => new FileSecretStore({ path: join(dir, 'x.json'), profile: '', warn: () => undefined })).toThrow(SecretStoreError);
    expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
  });

  it('does not confuse names with Object.prototype members', async () => {
    const store = await fileStore(dirs.make());
    expect(await store.get('constructor')).toBeNull();
    expect(await store.get('hasownproperty')).toBeNull();
    await store.set('constructor', 'c');
    expect(await store.get('constructor')).toBe('c');
    expect(await store.delete('tostring')).toBe(false);
  });
});
