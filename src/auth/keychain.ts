/**
 * The OS keychain through @napi-rs/keyring: Secret Service on Linux (pinned, so it never silently
 * falls back to the kernel keyring, which is per-boot and unreliable in containers), Keychain on
 * macOS, Credential Manager on Windows.
 *
 * The native module is loaded on first use (dynamic import), never at startup.
 *
 * Entries: service "ynab-mcp" (configurable), account "<profile>:<name>". Names outside
 * SECRET_NAMES are recorded in a registry entry "<profile>:__names__" so that clear() can find them;
 * the keychain APIs cannot list accounts reliably on every platform.
 */
import { randomBytes } from 'node:crypto';
import type { AsyncEntry, EntryOptions } from '@napi-rs/keyring';
import type { FileSecretStore } from './file-store.js';
import {
  SECRET_NAMES,
  SecretStoreError,
  assertProfile,
  assertSecretName,
  assertSecretValue,
  describeError,
  type SecretLookup,
  type SecretStore,
  type Warn,
} from './secret-common.js';

export type KeyringModule = typeof import('@napi-rs/keyring');

/** Pins Linux to Secret Service; ignored on other platforms. */
export const KEYRING_ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } };

export type KeychainBackend = 'secret-service' | 'macos-keychain' | 'windows-credential-manager' | 'none';

export function keychainBackendFor(platform: NodeJS.Platform = process.platform): KeychainBackend {
  if (platform === 'linux') return 'secret-service';
  if (platform === 'darwin') return 'macos-keychain';
  if (platform === 'win32') return 'windows-credential-manager';
  return 'none';
}

export function keychainBackendLabel(backend: KeychainBackend): string {
  switch (backend) {
    case 'secret-service':
      return 'Secret Service';
    case 'macos-keychain':
      return 'macOS Keychain';
    case 'windows-credential-manager':
      return 'Windows Credential Manager';
    case 'none':
      return 'no keychain';
  }
}

/** Result of a keychain check, for `status` and for choosing the store. Contains no secrets. */
export interface KeychainProbe {
  available: boolean;
  /** The keychain this platform uses (whether or not it worked). */
  backend: KeychainBackend;
  /** Why the keychain is not used; null when available. */
  reason: string | null;
  /** How long the check took. */
  elapsedMs: number;
}

let keyringModule: Promise<KeyringModule> | undefined;

/** Loads the native binding once, on first use. */
export function loadKeyring(): Promise<KeyringModule> {
  keyringModule ??= import('@napi-rs/keyring').then((m) => {
    const mod = ((m as { default?: KeyringModule }).default ?? m) as KeyringModule;
    if (typeof mod.AsyncEntry !== 'function') throw new Error('the module does not export AsyncEntry');
    return mod;
  });
  return keyringModule;
}

export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 15_000;

/**
 * Runs one keychain call with a deadline. A keychain can block indefinitely (an unlock prompt nobody
 * answers, a wedged D-Bus peer); a tool call must not. The signal is passed to the native call as well.
 */
async function withDeadline<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer from the keychain within ${ms} ms`));
    }, ms);
  });
  try {
    // Promise.resolve().then(): a throwing constructor becomes a rejection.
    return await Promise.race([Promise.resolve().then(() => run(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ProbeOptions {
  service?: string;
  timeoutMs?: number;
}

/**
 * Decides whether the OS keychain works by a real round trip of a sentinel entry: set, get (must
 * return the same value), delete (must report it deleted). A read alone proves nothing: without
 * D-Bus, or with a locked collection, reads return null without error. Any throw means unavailable.
 * The sentinel's account and value are random per call, so concurrent probes (a host that starts
 * the server twice) do not disturb each other; it is removed whatever happens.
 *
 * Limit: on Linux the AsyncEntry constructor connects to D-Bus synchronously; the deadline covers
 * the calls after it, not a bus that accepts the connection and then never answers the handshake.
 */
export async function probeKeychain(opts: ProbeOptions = {}): Promise<KeychainProbe> {
  return (await probeKeychainInternal(opts)).probe;
}

/** @internal Also hands back the loaded module when the keychain works. */
export async function probeKeychainInternal(opts: ProbeOptions = {}): Promise<{ probe: KeychainProbe; keyring: KeyringModule | null }> {
  const service = opts.service ?? 'ynab-mcp';
  const timeoutMs = opts.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  const backend = keychainBackendFor();
  const started = Date.now();
  const done = (keyring: KeyringModule | null, reason: string | null) => ({
    probe: { available: reason === null, backend, reason, elapsedMs: Date.now() - started },
    keyring,
  });

  let keyring: KeyringModule;
  try {
    keyring = await loadKeyring();
  } catch (err) {
    return done(null, `the native keyring module could not be loaded: ${describeError(err)}`);
  }

  const tag = randomBytes(8).toString('hex');
  const account = `__probe__:${process.pid}:${tag}`;
  const value = `ynab-mcp-probe-${randomBytes(16).toString('hex')}`;
  let step = 'open';
  let entry: AsyncEntry | undefined;
  try {
    await withDeadline(timeoutMs, async (signal) => {
      entry = new keyring.AsyncEntry(service, account, KEYRING_ENTRY_OPTIONS);
      step = 'write';
      await entry.setPassword(value, signal);
      step = 'read back';
      const got = await entry.getPassword(signal);
      if (got !== value) throw new Error(got === null ? 'the entry just written is missing' : 'the entry just written reads back differently');
      step = 'delete';
      const deleted = await entry.deletePassword(signal);
      if (!deleted) throw new Error('the entry just written could not be found to delete');
      step = 'done';
    });
    return done(keyring, null);
  } catch (err) {
    // Even a write that failed or timed out may have landed (or land later): try to remove the sentinel.
    if (entry !== undefined) {
      const e = entry;
      await withDeadline(2_000, (signal) => e.deletePassword(signal)).catch(() => undefined);
    }
    return done(null, `${keychainBackendLabel(backend)} failed at "${step}": ${describeError(err, [value])}`);
  }
}

const REGISTRY_NAME = '__names__';
const KNOWN: readonly string[] = SECRET_NAMES;

export interface KeychainSecretStoreOptions {
  keyring: KeyringModule;
  service: string;
  profile: string;
  /**
   * The fallback file. Secrets written there while no keychain worked are still read (the keychain
   * wins), removed when the same name is written to the keychain, and removed by delete() and clear().
   */
  leftoverFile: FileSecretStore;
  warn: Warn;
  timeoutMs?: number;
}

export class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;
  readonly service: string;
  readonly profile: string;
  readonly location: string;
  private readonly keyring: KeyringModule;
  private readonly file: FileSecretStore;
  private readonly warn: Warn;
  private readonly timeoutMs: number;
  private warnedLeftover = false;

  constructor(opts: KeychainSecretStoreOptions) {
    assertProfile(opts.profile);
    this.keyring = opts.keyring;
    this.service = opts.service;
    this.profile = opts.profile;
    this.file = opts.leftoverFile;
    this.warn = opts.warn;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
    this.location = `${keychainBackendLabel(keychainBackendFor())}, service "${opts.service}"`;
  }

  async get(name: string): Promise<string | null> {
    return (await this.lookup(name))?.value ?? null;
  }

  async lookup(name: string): Promise<SecretLookup | null> {
    assertSecretName(name);
    const value = await this.call('read', name, (e, signal) => e.getPassword(signal));
    if (value !== null) return { value, source: 'keychain' };
    const leftover = await this.file.get(name);
    if (leftover === null) return null;
    if (!this.warnedLeftover) {
      this.warnedLeftover = true;
      this.warn(
        `Secrets for profile "${this.profile}" are still in the file ${this.file.path} although the OS keychain works; ` +
          'each moves to the keychain (and out of the file) the next time it is saved, for example by signing in again.',
      );
    }
    return { value: leftover, source: 'file' };
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    assertSecretValue(value);
    if (!KNOWN.includes(name)) await this.register(name);
    await this.call('write', name, (e, signal) => e.setPassword(value, signal), value);
    // The keychain now holds the value; a copy left in the file must not linger.
    try {
      await this.file.delete(name);
    } catch (err) {
      this.warn(`Could not remove an old copy of a secret from ${this.file.path}: ${describeError(err, [value])}`);
    }
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    const inKeychain = await this.call('delete', name, (e, signal) => e.deletePassword(signal));
    const inFile = await this.file.delete(name);
    return inKeychain || inFile;
  }

  async listNames(): Promise<string[]> {
    const names = new Set<string>();
    for (const name of await this.candidates()) {
      if ((await this.call('read', name, (e, signal) => e.getPassword(signal))) !== null) names.add(name);
    }
    for (const name of await this.file.listNames()) names.add(name);
    return [...names].sort();
  }

  async clear(): Promise<string[]> {
    const removed = new Set<string>();
    for (const name of await this.candidates()) {
      if (await this.call('delete', name, (e, signal) => e.deletePassword(signal))) removed.add(name);
    }
    await this.call('delete', REGISTRY_NAME, (e, signal) => e.deletePassword(signal));
    for (const name of await this.file.clear()) removed.add(name);
    return [...removed].sort();
  }

  private async candidates(): Promise<string[]> {
    return [...new Set([...KNOWN, ...(await this.registered())])];
  }

  private async registered(): Promise<string[]> {
    const raw = await this.call('read', REGISTRY_NAME, (e, signal) => e.getPassword(signal));
    if (raw === null) return [];
    try {
      const parsed: unknown = JSON.parse(raw);
      return Array.isArray(parsed) ? parsed.filter((n): n is string => typeof n === 'string' && /^[a-z][a-z0-9_]{0,39}$/.test(n)) : [];
    } catch {
      return [];
    }
  }

  private async register(name: string): Promise<void> {
    const names = await this.registered();
    if (names.includes(name)) return;
    const next = JSON.stringify([...names, name].sort());
    await this.call('write', REGISTRY_NAME, (e, signal) => e.setPassword(next, signal));
  }

  /** One keychain call on "<profile>:<name>", with a deadline and an error that names no secret. */
  private async call<T>(
    action: 'read' | 'write' | 'delete',
    name: string,
    run: (entry: AsyncEntry, signal: AbortSignal) => Promise<T>,
    secret?: string,
  ): Promise<T> {
    try {
      return await withDeadline(this.timeoutMs, (signal) =>
        run(new this.keyring.AsyncEntry(this.service, `${this.profile}:${name}`, KEYRING_ENTRY_OPTIONS), signal),
      );
    } catch (err) {
      const what = name === REGISTRY_NAME ? 'the list of secret names' : `secret "${name}"`;
      throw new SecretStoreError(
        'keychain_failed',
        `The OS keychain (${keychainBackendLabel(keychainBackendFor())}) could not ${action} ${what} for profile "${this.profile}": ${describeError(err, [secret])}`,
      );
    }
  }
}
