/**
 * `--data FILE`: the sandbox's users (their budgets and personal tokens), the OAuth client and
 * its grants, saved as JSON. The file is a snapshot: every change is first appended to the
 * write-ahead log beside it (write-ahead-log.ts) and folded in later. A snapshot is written whole or not at all:
 * to a new temp file (created exclusively, mode 0600 since it holds tokens), flushed to disk,
 * renamed over FILE, and the directory flushed too. A file that cannot be read as sandbox data is
 * refused with a clear error and never overwritten.
 *
 * Version 1 files (one user, before the write-ahead log) are read and saved as version 2.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PendingCode } from './oauth.js';
import type { BudgetRec } from './store/records.js';
import type { Grant, RefreshEntry } from './tokens.js';

export const DATA_FORMAT = 'ynab-mcp-sandbox';
export const DATA_VERSION = 2;

export interface PersistedUser {
  id: string;
  email: string;
  access_token: string;
  read_only_token: string;
  last_used_budget_id: string | null;
  budgets: BudgetRec[];
}

export interface PersistedOAuth {
  client_id: string;
  client_secret: string;
  /** OAuth grants only: personal tokens come from the users. */
  grants: Grant[];
  refresh_tokens: RefreshEntry[];
  codes: [string, PendingCode][];
}

export interface SandboxData {
  /** The last write-ahead log entry folded into this snapshot. */
  journal_seq: number;
  users: PersistedUser[];
  oauth: PersistedOAuth;
}

export class SandboxDataError extends Error {}

const MAP_FIELDS = ['accounts', 'payees', 'payee_locations', 'category_groups', 'categories', 'transactions', 'scheduled_transactions'] as const;

function budgetToJson(b: BudgetRec): unknown {
  const out: Record<string, unknown> = { ...b };
  for (const f of MAP_FIELDS) out[f] = [...b[f].values()];
  out.months = [...b.months.values()];
  out.derived_state = [...b.derived_state];
  return out;
}

function budgetFromJson(raw: unknown, where: string): BudgetRec {
  const o = raw as Record<string, unknown>;
  if (!o || typeof o !== 'object' || typeof o.id !== 'string' || typeof o.name !== 'string' || typeof o.knowledge !== 'number') {
    throw new SandboxDataError(`${where} is not a budget (id, name and knowledge are required)`);
  }
  const rec: Record<string, unknown> = { ...o };
  for (const f of [...MAP_FIELDS, 'months', 'money_movements', 'money_movement_groups', 'pending_imports', 'derived_state']) {
    if (!Array.isArray(o[f])) throw new SandboxDataError(`${where}.${f} must be a list`);
  }
  for (const f of MAP_FIELDS) {
    rec[f] = new Map((o[f] as { id: string }[]).map((e) => [e.id, e]));
  }
  rec.months = new Map((o.months as { month: string }[]).map((m) => [m.month, m]));
  rec.derived_state = new Map(o.derived_state as [string, { fp: string; knowledge: number }][]);
  const budget = rec as unknown as BudgetRec;
  if (typeof budget.split_category_id !== 'string') {
    // Saved before splits had the service's "Split" category: give them one.
    budget.split_category_id = randomUUID();
    for (const t of budget.transactions.values()) if (t.subtransactions.length && t.category_id === null) t.category_id = budget.split_category_id;
    for (const t of budget.scheduled_transactions.values()) if (t.subtransactions.length && t.category_id === null) t.category_id = budget.split_category_id;
  }
  return budget;
}

/** The email of the n-th sandbox user (1-based). */
export const userEmail = (n: number) => `user${n}@sandbox.ynab-mcp.test`;

/** Reads version 1 (one user) into version 2's shape. */
function fromVersion1(parsed: Record<string, unknown>): SandboxData {
  const tokens = parsed.tokens as { access_token?: unknown; read_only_token?: unknown; oauth_client_id?: unknown; oauth_client_secret?: unknown };
  if (!tokens || typeof tokens.access_token !== 'string' || typeof tokens.read_only_token !== 'string') throw new SandboxDataError('its tokens are missing');
  if (!Array.isArray(parsed.budgets) || !parsed.budgets.length) throw new SandboxDataError('it holds no budgets');
  const userId = String(parsed.user_id);
  const oauth = (parsed.oauth ?? {}) as { grants?: Grant[]; refresh_tokens?: RefreshEntry[] };
  return {
    journal_seq: 0,
    users: [
      {
        id: userId,
        email: userEmail(1),
        access_token: tokens.access_token,
        read_only_token: tokens.read_only_token,
        last_used_budget_id: (parsed.last_used_budget_id as string | null) ?? null,
        budgets: parsed.budgets.map((b, i) => budgetFromJson(b, `budgets[${i}]`)),
      },
    ],
    oauth: {
      client_id: String(tokens.oauth_client_id ?? ''),
      client_secret: String(tokens.oauth_client_secret ?? ''),
      grants: (oauth.grants ?? []).map((g) => ({ ...g, user_id: g.user_id ?? userId })),
      refresh_tokens: oauth.refresh_tokens ?? [],
      codes: [],
    },
  };
}

function fromVersion2(parsed: Record<string, unknown>): SandboxData {
  if (!Array.isArray(parsed.users) || !parsed.users.length) throw new SandboxDataError('it holds no users');
  const users = parsed.users.map((raw, i): PersistedUser => {
    const u = raw as Record<string, unknown>;
    const where = `users[${i}]`;
    if (typeof u.id !== 'string' || typeof u.email !== 'string' || typeof u.access_token !== 'string' || typeof u.read_only_token !== 'string') {
      throw new SandboxDataError(`${where} needs an id, an email and its tokens`);
    }
    if (!Array.isArray(u.budgets) || !u.budgets.length) throw new SandboxDataError(`${where} holds no budgets`);
    return {
      id: u.id,
      email: u.email,
      access_token: u.access_token,
      read_only_token: u.read_only_token,
      last_used_budget_id: (u.last_used_budget_id as string | null) ?? null,
      budgets: u.budgets.map((b, j) => budgetFromJson(b, `${where}.budgets[${j}]`)),
    };
  });
  const oauth = parsed.oauth as Partial<PersistedOAuth> | undefined;
  if (!oauth || typeof oauth.client_id !== 'string' || typeof oauth.client_secret !== 'string') throw new SandboxDataError('its OAuth client is missing');
  return {
    journal_seq: typeof parsed.journal_seq === 'number' ? parsed.journal_seq : 0,
    users,
    oauth: {
      client_id: oauth.client_id,
      client_secret: oauth.client_secret,
      grants: oauth.grants ?? [],
      refresh_tokens: oauth.refresh_tokens ?? [],
      codes: oauth.codes ?? [],
    },
  };
}

/** Reads a data file; undefined when it does not exist. Throws SandboxDataError when it is not sandbox data. */
export function loadData(file: string): SandboxData | undefined {
  if (!existsSync(file)) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new SandboxDataError(`cannot read sandbox data from ${file}: ${(e as Error).message.split('\n')[0]}; the file was left untouched`);
  }
  try {
    if (parsed?.format !== DATA_FORMAT) throw new SandboxDataError(`it is not a ${DATA_FORMAT} file`);
    if (parsed.version === 1) return fromVersion1(parsed);
    if (parsed.version !== DATA_VERSION) throw new SandboxDataError(`its version ${String(parsed.version)} is not supported (expected ${DATA_VERSION})`);
    return fromVersion2(parsed);
  } catch (e) {
    const reason = e instanceof SandboxDataError ? e.message : (e as Error).message;
    throw new SandboxDataError(`cannot load sandbox data from ${file}: ${reason}; the file was left untouched`);
  }
}

/** Writes all of `bytes` (a write may take less than asked). */
export function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
}

/** Flushes a directory, so that a rename in it survives a crash. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems cannot flush a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The temp file a save writes before renaming it over `file`: pid and a random part, so two writers never share one. */
const tempName = (file: string) => `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;

/**
 * Removes what saves of `file` left behind when their process was killed mid-write (a snapshot
 * of a large budget is tens of megabytes): temp files named as `tempName` makes them, whose
 * process is gone. A live process's temp file (another sandbox on the same file) is left alone.
 */
export function removeStaleTemps(file: string, log: (line: string) => void): void {
  const pattern = new RegExp(`^${basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.[0-9a-f]{8}\\.tmp$`);
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || alive(pid)) continue;
    try {
      unlinkSync(join(dirname(file), name));
      log(`sandbox: removed ${name}, a snapshot left half-written when its process stopped`);
    } catch {
      // Gone already, or not ours to remove: the next start tries again.
    }
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes a snapshot atomically and durably: temp file, flush, rename, flush the directory. */
export function saveData(file: string, data: SandboxData): void {
  const body = JSON.stringify({
    format: DATA_FORMAT,
    version: DATA_VERSION,
    saved_at: new Date().toISOString(),
    journal_seq: data.journal_seq,
    users: data.users.map((u) => ({ ...u, budgets: u.budgets.map(budgetToJson) })),
    oauth: data.oauth,
  });
  const tmp = tempName(file);
  let fd: number | undefined;
  try {
    // 'wx': a new file, never one that is there already (nor a link planted in its place).
    fd = openSync(tmp, 'wx', 0o600);
    writeAll(fd, Buffer.from(body));
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
    syncDirectory(dirname(file));
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // Nothing to clean up.
    }
    const missingDir = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`cannot save sandbox data to ${file}: ${missingDir ? 'its directory does not exist' : (e as Error).message}`);
  }
}
