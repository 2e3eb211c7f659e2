/**
 * The fallback secret store: one JSON file, `<configDir>/secrets.json`, mode 0600 in a 0700 directory.
 *
 * Format: `{"version":1,"profiles":{"<profile>":{"<name>":"<value>"}}}`.
 *
 * - Writes are atomic (a new 0600 temp file, fsync, rename over the old one), so a reader never sees
 *   a torn file, and they hold a lock (proper-lockfile, `secrets.json.lock`) around read-modify-write,
 *   so two ynab-mcp processes never lose each other's updates. The rules of src/storage/safe-fs.ts
 *   apply: the directory is made (or tightened to) 0700, temp files are created exclusively, and
 *   a link where the lock goes is removed.
 * - The secrets file itself is never read or written through a link: a link there is refused with
 *   an error naming it (it is not replaced, since the user may have put it there on purpose).
 * - Reads take no lock and create nothing: a missing file is an empty store.
 * - A file readable by others (mode & 077) is tightened to 0600 on read, with a warning.
 * - A file that cannot be parsed is never overwritten or discarded: it may hold other profiles'
 *   secrets, and silently starting over would also hide the problem. Every operation then fails with
 *   a SecretStoreError (code "file_corrupt") that names the file and says how to recover. An empty
 *   (or whitespace-only) file holds no secrets and is read as an empty store.
 * - When the last secret is removed, the file is deleted.
 */
import { constants } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import lockfile from 'proper-lockfile';
import { clearLockPath, privateDir, writeAtomic } from '../storage/safe-fs.js';
import {
  SecretStoreError,
  assertProfile,
  assertSecretName,
  assertSecretValue,
  ownValue,
  type SecretLookup,
  type SecretStore,
  type Warn,
} from './secret-common.js';

export const SECRETS_FILE_NAME = 'secrets.json';

export function secretsFilePath(configDir: string): string {
  return join(configDir, SECRETS_FILE_NAME);
}

type Profiles = Record<string, Record<string, string>>;

interface SecretsFileV1 {
  version: 1;
  profiles: Profiles;
}

const IS_WINDOWS = process.platform === 'win32';

function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

function corrupt(path: string, what: string): SecretStoreError {
  return new SecretStoreError(
    'file_corrupt',
    `The secrets file ${path} ${what}. ynab-mcp will not overwrite it, because it may hold secrets for other ` +
      'profiles. Move it aside or delete it, then sign in again.',
    { path },
  );
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses and checks the file. Messages never quote the content: JSON.parse errors in Node 20 include a snippet of it. */
export function parseSecretsFile(text: string, path: string): SecretsFileV1 {
  if (text.trim() === '') return { version: 1, profiles: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw corrupt(path, 'is not valid JSON');
  }
  if (!isPlainObject(raw)) throw corrupt(path, 'does not hold a JSON object');
  if (raw.version !== 1) {
    if (typeof raw.version === 'number' && raw.version > 1) {
      throw new SecretStoreError(
        'file_corrupt',
        `The secrets file ${path} was written by a newer version of ynab-mcp (format ${raw.version}); upgrade ynab-mcp to use it.`,
        { path },
      );
    }
    throw corrupt(path, 'has no supported "version" field');
  }
  if (!isPlainObject(raw.profiles)) throw corrupt(path, 'has no "profiles" object');
  const profiles: Profiles = {};
  for (const [profile, entries] of Object.entries(raw.profiles)) {
    if (!isPlainObject(entries)) throw corrupt(path, 'has a profile that is not an object');
    const copy: Record<string, string> = {};
    for (const [name, value] of Object.entries(entries)) {
      if (typeof value !== 'string') throw corrupt(path, 'has a secret whose value is not a string');
      copy[name] = value;
    }
    profiles[profile] = copy;
  }
  return { version: 1, profiles };
}

export interface FileSecretStoreOptions {
  /** Full path of the secrets file. */
  path: string;
  profile: string;
  warn: Warn;
}

export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const;
  readonly path: string;
  readonly profile: string;
  readonly location: string;
  private readonly warn: Warn;
  private warnedLoose = false;

  constructor(opts: FileSecretStoreOptions) {
    assertProfile(opts.profile);
    this.path = opts.path;
    this.profile = opts.profile;
    this.location = opts.path;
    this.warn = opts.warn;
  }

  async get(name: string): Promise<string | null> {
    assertSecretName(name);
    const file = await this.load();
    return ownValue(ownValue(file.profiles, this.profile), name) ?? null;
  }

  async lookup(name: string): Promise<SecretLookup | null> {
    const value = await this.get(name);
    return value === null ? null : { value, source: 'file' };
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    assertSecretValue(value);
    await this.update((profiles) => {
      const entries = ownValue(profiles, this.profile) ?? {};
      if (ownValue(entries, name) === value) return { result: undefined, changed: false };
      entries[name] = value;
      profiles[this.profile] = entries;
      return { result: undefined, changed: true };
    });
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    if ((await this.get(name)) === null) return false; // nothing to do: take no lock, create nothing
    return this.update((profiles) => {
      const entries = ownValue(profiles, this.profile);
      if (entries === undefined || ownValue(entries, name) === undefined) return { result: false, changed: false };
      delete entries[name];
      if (Object.keys(entries).length === 0) delete profiles[this.profile];
      return { result: true, changed: true };
    });
  }

  async listNames(): Promise<string[]> {
    const file = await this.load();
    return Object.keys(ownValue(file.profiles, this.profile) ?? {}).sort();
  }

  async clear(): Promise<string[]> {
    if ((await this.listNames()).length === 0) return [];
    return this.update((profiles) => {
      const names = Object.keys(ownValue(profiles, this.profile) ?? {}).sort();
      if (names.length === 0) return { result: [], changed: false };
      delete profiles[this.profile];
      return { result: names, changed: true };
    });
  }

  /** Reads the whole file; a missing file is empty. Tightens loose permissions. */
  private async load(): Promise<SecretsFileV1> {
    let text: string;
    try {
      const fh = await open(this.path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
      try {
        const st = await fh.stat();
        if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
        if (!IS_WINDOWS) {
          if ((st.mode & 0o077) !== 0) {
            await fh.chmod(0o600);
            if (!this.warnedLoose) {
              this.warnedLoose = true;
              this.warn(
                `The secrets file ${this.path} was readable by other users (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}); ` +
                  'its mode is now 0600. Consider rotating the secrets it holds.',
              );
            }
          }
        }
        text = await fh.readFile('utf8');
      } finally {
        await fh.close();
      }
    } catch (err) {
      if (errCode(err) === 'ENOENT') return { version: 1, profiles: {} };
      if (errCode(err) === 'ELOOP' || errCode(err) === 'EMLINK' || errCode(err) === 'EFTYPE') {
        throw new SecretStoreError(
          'file_io',
          `The secrets file ${this.path} is a symbolic link. ynab-mcp reads and writes secrets only in a file of its own, ` +
            'never through a link: replace the link with the file itself, or remove it and sign in again.',
          { path: this.path, cause: err },
        );
      }
      if (errCode(err) === 'ENOTFILE') {
        throw new SecretStoreError('file_io', `The secrets file ${this.path} is not a regular file; move it aside and sign in again.`, {
          path: this.path,
          cause: err,
        });
      }
      throw new SecretStoreError('file_io', `Could not read the secrets file ${this.path} (${errCode(err) ?? 'error'}).`, {
        path: this.path,
        cause: err,
      });
    }
    return parseSecretsFile(text, this.path);
  }

  /** Locked read-modify-write. `mutate` edits the profiles in place and says whether anything changed. */
  private async update<R>(mutate: (profiles: Profiles) => { result: R; changed: boolean }): Promise<R> {
    const dir = dirname(this.path);
    try {
      privateDir(dir, dir, this.warn);
    } catch (err) {
      throw new SecretStoreError('file_io', `Could not create the directory ${dir} (${errCode(err) ?? 'error'}).`, {
        path: this.path,
        cause: err,
      });
    }
    let release: () => Promise<void>;
    try {
      await clearLockPath(`${this.path}.lock`, this.warn);
      release = await lockfile.lock(this.path, {
        realpath: false,
        stale: 10_000,
        retries: { retries: 100, factor: 1.2, minTimeout: 5, maxTimeout: 100 },
        // The critical section takes milliseconds; if the lock's mtime refresh ever fails, the rename
        // still keeps the file whole. Do not throw from a timer (the default), which would crash the server.
        onCompromised: () => undefined,
      });
    } catch (err) {
      throw new SecretStoreError(
        'file_io',
        errCode(err) === 'ELOCKED'
          ? `The secrets file ${this.path} is locked by another ynab-mcp process; try again.`
          : `Could not lock the secrets file ${this.path} (${errCode(err) ?? 'error'}).`,
        { path: this.path, cause: err },
      );
    }
    try {
      const file = await this.load();
      const { result, changed } = mutate(file.profiles);
      if (changed) await this.persist(file);
      return result;
    } finally {
      await release().catch(() => undefined);
    }
  }

  private async persist(file: SecretsFileV1): Promise<void> {
    const empty = Object.values(file.profiles).every((entries) => Object.keys(entries).length === 0);
    try {
      if (empty) {
        await unlink(this.path).catch((err: unknown) => {
          if (errCode(err) !== 'ENOENT') throw err;
        });
      } else {
        await writeFileAtomic(this.path, `${JSON.stringify(file, null, 2)}\n`);
      }
    } catch (err) {
      throw new SecretStoreError('file_io', `Could not write the secrets file ${this.path} (${errCode(err) ?? 'error'}).`, {
        path: this.path,
        cause: err,
      });
    }
  }
}

/** Writes `data` to a new 0600 temp file beside `path` (created exclusively), flushes it, and renames it over `path`. */
export function writeFileAtomic(path: string, data: string): Promise<void> {
  return writeAtomic(path, data, { sync: true });
}
