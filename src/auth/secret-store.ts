/**
 * Where secrets live: the personal access token, OAuth tokens and expiry, the OAuth client secret and
 * the replica encryption key. Never in a config file the user edits.
 *
 * - The OS keychain when it works (decided by a real round trip, see probeKeychain).
 * - Otherwise `<configDir>/secrets.json` (0600 file in a 0700 directory), with a one-time warning
 *   that says no keychain was available and where the file is.
 *
 * Nothing happens at import: the native keychain module is loaded and probed when openSecretStore is
 * first called, so the MCP server starts cheaply and without side effects.
 */
import { FileSecretStore, secretsFilePath } from './file-store.js';
import {
  DEFAULT_KEYCHAIN_TIMEOUT_MS,
  KeychainSecretStore,
  keychainBackendFor,
  keychainBackendLabel,
  probeKeychainInternal,
  type KeychainProbe,
  type KeyringModule,
} from './keychain.js';
import { assertProfile, stderrWarn, type SecretStore, type Warn } from './secret-common.js';

export {
  SECRET_NAMES,
  SecretStoreError,
  type KnownSecretName,
  type SecretLookup,
  type SecretSource,
  type SecretStore,
  type SecretStoreErrorCode,
} from './secret-common.js';
export { FileSecretStore, SECRETS_FILE_NAME, secretsFilePath } from './file-store.js';
export { KeychainSecretStore, probeKeychain, type KeychainBackend, type KeychainProbe } from './keychain.js';

export const KEYCHAIN_ENV = 'YNAB_MCP_KEYCHAIN';

/** True when the environment turns the keychain off (YNAB_MCP_KEYCHAIN=off, any case). */
export function keychainOffByEnv(env: Record<string, string | undefined> = process.env): boolean {
  return (env[KEYCHAIN_ENV] ?? '').trim().toLowerCase() === 'off';
}

export interface SecretStoreOptions {
  /** Keychain service name. Default "ynab-mcp". */
  service?: string;
  /** Profile whose secrets to use. Default "default". */
  profile?: string;
  /** Configuration directory; the fallback file is `<configDir>/secrets.json`. */
  configDir: string;
  /** Where warnings go. Default: stderr. Never receives secret values. */
  warn?: (message: string) => void;
  /**
   * "off" forces the file store without touching the keychain (tests, or a user's explicit choice). Default "auto".
   * YNAB_MCP_KEYCHAIN=off in `env` forces "off" whatever is passed here: it is the user's (or a test's) choice for
   * every place that opens the store, including ones that ask for "auto".
   */
  keychain?: 'auto' | 'off';
  /** Where YNAB_MCP_KEYCHAIN is read. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Deadline for each keychain call, including the probe. Default 15 s. */
  keychainTimeoutMs?: number;
}

/** A store as opened by openSecretStore, with the keychain check that chose it (for `status`). */
export interface OpenedSecretStore extends SecretStore {
  readonly probe: KeychainProbe;
}

type ProbeResult = { probe: KeychainProbe; keyring: KeyringModule | null };

/**
 * Successful probes per service, shared by every openSecretStore call in this process, so that
 * opening the store again does not write another sentinel. Failures are not kept: a keychain that
 * is unlocked later is picked up by the next open.
 */
const probes = new Map<string, Promise<ProbeResult>>();
/** Fallback files already announced in this process. */
const announced = new Set<string>();

function probeOnce(service: string, timeoutMs: number): Promise<ProbeResult> {
  let pending = probes.get(service);
  if (pending === undefined) {
    pending = probeKeychainInternal({ service, timeoutMs });
    probes.set(service, pending);
    void pending.then((r) => {
      if (!r.probe.available && probes.get(service) === pending) probes.delete(service);
    });
  }
  return pending;
}

/** How the warning that secrets go to the file begins: login and status state it in their own words. */
export const NO_KEYCHAIN = 'No OS keychain was available';

export async function openSecretStore(opts: SecretStoreOptions): Promise<OpenedSecretStore> {
  const service = opts.service ?? 'ynab-mcp';
  const profile = opts.profile ?? 'default';
  const warn: Warn = opts.warn ?? stderrWarn;
  const timeoutMs = opts.keychainTimeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  assertProfile(profile);
  if (typeof opts.configDir !== 'string' || opts.configDir === '') {
    throw new TypeError('openSecretStore: configDir is required');
  }
  const path = secretsFilePath(opts.configDir);
  const file = new FileSecretStore({ path, profile, warn });

  const offByEnv = keychainOffByEnv(opts.env ?? process.env);
  if (opts.keychain === 'off' || offByEnv) {
    const probe: KeychainProbe = {
      available: false,
      backend: keychainBackendFor(),
      reason: offByEnv ? `the keychain is turned off by ${KEYCHAIN_ENV}=off` : 'the keychain is turned off by configuration',
      elapsedMs: 0,
    };
    return Object.assign(file, { probe });
  }

  const { probe, keyring } = await probeOnce(service, timeoutMs);
  if (probe.available && keyring !== null) {
    const store = new KeychainSecretStore({ keyring, service, profile, leftoverFile: file, warn, timeoutMs });
    return Object.assign(store, { probe });
  }

  if (!announced.has(path)) {
    announced.add(path);
    warn(
      `${NO_KEYCHAIN} (${probe.reason ?? keychainBackendLabel(probe.backend)}). ` +
        `Secrets are stored in the file ${path} instead, readable only by your user account (mode 0600).` +
        (probe.backend === 'secret-service'
          ? ' To use the keychain, run a Secret Service provider (for example gnome-keyring or KeePassXC) in an unlocked D-Bus session.'
          : ''),
    );
  }
  return Object.assign(file, { probe });
}
