/**
 * Types and helpers shared by the secret stores (OS keychain and the 0600 fallback file).
 *
 * Secrets are addressed by (profile, name). Neither a name nor a profile is ever secret, but
 * error messages still avoid echoing the name, because a caller that swapped `set(name, value)`
 * arguments would otherwise print the secret.
 */
import { warningLine } from '../shared/cli-flags.js';

/** Every secret ynab-mcp itself stores. Other names are allowed; the keychain store keeps a registry of them. */
/** Every name a sign-in writes. A new sign-in replaces all of them, so no field of an older one lingers. */
export const CREDENTIAL_NAMES = [
  'access_token',
  'refresh_token',
  'token_expires_at',
  'token_scope',
  'token_kind',
  'oauth_client_id',
  'oauth_client_secret',
  'oauth_app_url',
  'grant_id',
  'base_url',
] as const;

/** Every name the product stores: the sign-in's, and the key of the saved budget copies. */
export const SECRET_NAMES = [...CREDENTIAL_NAMES, 'replica_key'] as const;

export type KnownSecretName = (typeof SECRET_NAMES)[number];

export type SecretSource = 'keychain' | 'file';

export interface SecretLookup {
  value: string;
  source: SecretSource;
}

export interface SecretStore {
  readonly kind: SecretSource;
  /** Profile whose secrets this store reads and writes. */
  readonly profile: string;
  /** Where secrets go, for humans: the file path, or the keychain service and backend. Never secret. */
  readonly location: string;
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  /** Returns true when something was removed. */
  delete(name: string): Promise<boolean>;
  /** Like get, and says which backend held the value (the keychain store also reads a leftover file). */
  lookup(name: string): Promise<SecretLookup | null>;
  /** Names with a stored value for this profile, sorted. */
  listNames(): Promise<string[]>;
  /** Logout: removes everything stored for this profile. Returns the names that were removed, sorted. */
  clear(): Promise<string[]>;
}

export type SecretStoreErrorCode = 'invalid_name' | 'invalid_profile' | 'invalid_value' | 'file_corrupt' | 'file_io' | 'keychain_failed';

/** Every failure of a secret store. Messages never contain secret values. */
export class SecretStoreError extends Error {
  override readonly name = 'SecretStoreError';
  readonly code: SecretStoreErrorCode;
  /** The secrets file involved, when there is one. */
  readonly path: string | undefined;

  constructor(code: SecretStoreErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }
}

const NAME_RE = /^[a-z][a-z0-9_]{0,39}$/;
const PROFILE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Windows Credential Manager caps a credential at 2560 bytes (stored as UTF-16); stay well below on every backend. */
export const MAX_SECRET_LENGTH = 1024;

export function assertSecretName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw new SecretStoreError(
      'invalid_name',
      'Invalid secret name: expected lowercase letters, digits and "_", starting with a letter, at most 40 characters.',
    );
  }
}

export function assertProfile(profile: unknown): asserts profile is string {
  if (typeof profile !== 'string' || !PROFILE_RE.test(profile)) {
    const shown = typeof profile === 'string' ? JSON.stringify(profile.slice(0, 64)) : typeof profile;
    throw new SecretStoreError(
      'invalid_profile',
      `Invalid profile ${shown}: expected letters, digits, ".", "_" or "-", starting with a letter or digit, at most 64 characters.`,
    );
  }
}

export function assertSecretValue(value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new SecretStoreError('invalid_value', `A secret value must be a string, not ${value === null ? 'null' : typeof value}.`);
  }
  if (value.length === 0) throw new SecretStoreError('invalid_value', 'A secret value must not be empty.');
  if (value.length > MAX_SECRET_LENGTH) {
    throw new SecretStoreError('invalid_value', `A secret value must be at most ${MAX_SECRET_LENGTH} characters long.`);
  }
}

/** Property lookup that ignores the prototype chain (a name like "constructor" must not find Object's). */
export function ownValue<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A one-line description of a thrown value for messages: redacts every given secret,
 * collapses whitespace and caps the length.
 */
export function describeError(err: unknown, secrets: readonly (string | undefined)[] = []): string {
  let text: string;
  if (err instanceof Error) text = err.message || err.name;
  else if (typeof err === 'string') text = err;
  else text = 'unknown error';
  for (const secret of secrets) {
    if (secret !== undefined && secret.length > 0) text = text.split(secret).join('[redacted]');
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 297)}...` : text || 'unknown error';
}

export type Warn = (message: string) => void;

/** Default warning sink: stderr (stdout is the MCP channel). */
export const stderrWarn: Warn = (message) => {
  process.stderr.write(`${warningLine(message)}\n`);
};
