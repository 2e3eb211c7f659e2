/**
 * What `ynab-mcp status` reports: where the token comes from and what it is, the keychain, the
 * token's request quota on this machine, the saved replicas and their key. Built from names, dates, counts
 * and hashes only: no token or client secret is ever put into the report. Reading it changes
 * nothing (no refresh, no request to YNAB).
 */
import { join } from 'node:path';
import { DEFAULT_BASE_URL } from '../api/client/transport.js';
import { QuotaLedger, tokenKey } from '../quota/ledger.js';
import { keyFileProblem } from '../storage/key-file.js';
import { oauthIdentity, storedGrantIdentity } from './credentials.js';
import { listReplicas } from './replica-files.js';
import { keychainBackendLabel, type KeychainBackend } from './keychain.js';
import { openSecretStore } from './secret-store.js';
import { accessTokenFromEnv } from './token-source.js';

export interface StatusReport {
  profile: string;
  token: {
    source: 'env' | 'keychain' | 'file' | 'none';
    kind: 'personal' | 'oauth' | null;
    scope: 'full' | 'read-only' | null;
    expires_at: string | null;
    expired: boolean | null;
    /** OAuth: whether a refresh token is stored (the implicit grant has none). */
    refreshable: boolean | null;
    oauth_client_id: string | null;
    oauth_app_url: string | null;
    /** The API `serve` would use (YNAB_BASE_URL, else the one stored at login, else YNAB's). */
    base_url: string;
  };
  store: {
    kind: 'keychain' | 'file';
    location: string;
    /** Names of the stored secrets (never their values). */
    names: string[];
    /** A stored sign-in exists but YNAB_ACCESS_TOKEN takes precedence. */
    overridden_by_env: boolean;
  };
  keychain: { backend: KeychainBackend; label: string; available: boolean; reason: string | null };
  quota: { limit: number; used: number; remaining: number; read_remaining: number; next_slot_at: string | null; blocked_until: string | null } | null;
  replicas: { directory: string; budgets: number; bytes: number; files: { budget_id: string; bytes: number; modified: string }[] } | null;
  /** Where the key sealing saved replicas lives, and what is wrong with it (a key file only; the keychain is not read). */
  replica_key: { location: string; problem: string | null };
}

export interface StatusOptions {
  configDir: string;
  stateDir: string;
  profile?: string;
  env?: Record<string, string | undefined>;
  warn?: (line: string) => void;
  now?: () => number;
}

export async function statusReport(opts: StatusOptions): Promise<StatusReport> {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now;
  const store = await openSecretStore({ configDir: opts.configDir, profile: opts.profile, warn: opts.warn, env });
  const names = await store.listNames();
  const found = await store.lookup('access_token');
  const fromEnv = accessTokenFromEnv(env);
  const kind = found ? ((await store.get('token_kind')) === 'oauth' ? 'oauth' : 'personal') : null;

  const report: StatusReport = {
    profile: store.profile,
    token: {
      source: fromEnv !== null ? 'env' : (found?.source ?? 'none'),
      kind: fromEnv !== null ? 'personal' : kind,
      scope: null,
      expires_at: null,
      expired: null,
      refreshable: null,
      oauth_client_id: null,
      oauth_app_url: null,
      base_url: env.YNAB_BASE_URL || (fromEnv === null && found ? await store.get('base_url') : null) || DEFAULT_BASE_URL,
    },
    store: { kind: store.kind, location: store.location, names, overridden_by_env: fromEnv !== null && found !== null },
    keychain: { backend: store.probe.backend, label: keychainBackendLabel(store.probe.backend), available: store.probe.available, reason: store.probe.reason },
    quota: null,
    replicas: null,
    replica_key:
      store.kind === 'keychain'
        ? { location: `the OS keychain (${store.location})`, problem: null }
        : { location: join(opts.stateDir, 'replica.key'), problem: await keyFileProblem(join(opts.stateDir, 'replica.key')) },
  };

  // The token in use, and the identity its replicas are saved under (as connection.ts decides).
  let token: string | null = null;
  let identity: string | null = null;
  if (fromEnv !== null) {
    token = fromEnv;
    identity = tokenKey(fromEnv);
  } else if (found) {
    token = found.value;
    if (kind === 'oauth') {
      const expires = await store.get('token_expires_at');
      const scope = await store.get('token_scope');
      report.token.scope = scope === 'read-only' ? 'read-only' : 'full';
      report.token.expires_at = expires;
      report.token.expired = expires === null ? null : Date.parse(expires) <= now();
      report.token.refreshable = (await store.get('refresh_token')) !== null;
      report.token.oauth_client_id = await store.get('oauth_client_id');
      report.token.oauth_app_url = await store.get('oauth_app_url');
      identity = oauthIdentity(await storedGrantIdentity(store));
    } else {
      identity = tokenKey(found.value);
    }
  }

  if (token !== null) {
    const q = await QuotaLedger.forToken(token, { stateDir: opts.stateDir, now }).status();
    report.quota = {
      limit: q.limit,
      used: q.used,
      remaining: q.remaining,
      read_remaining: q.readRemaining,
      next_slot_at: q.nextSlotAt?.toISOString() ?? null,
      blocked_until: q.blockedUntil?.toISOString() ?? null,
    };
  }
  if (identity !== null) {
    const set = await listReplicas(opts.stateDir, identity, opts.warn);
    report.replicas = {
      directory: set.directory,
      budgets: set.budgets.length,
      bytes: set.totalBytes,
      files: set.budgets.map((b) => ({ budget_id: b.budgetId, bytes: b.bytes, modified: b.modified })),
    };
  }
  return report;
}
