/**
 * `--data FILE`: the sandbox's budgets, tokens and OAuth grants saved as JSON, loaded at start
 * when present, written atomically (temp file + rename, mode 0600 since it holds tokens) after
 * changes and at exit. A file that cannot be read as sandbox data is refused with a clear error
 * and never overwritten.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { BudgetRec } from './store/records.js';
import type { Grant, RefreshEntry } from './tokens.js';

export const DATA_FORMAT = 'ynab-mcp-sandbox';
export const DATA_VERSION = 1;

export interface PersistedTokens {
  access_token: string;
  read_only_token: string;
  oauth_client_id: string;
  oauth_client_secret: string;
}

export interface SandboxData {
  user_id: string;
  last_used_budget_id: string | null;
  tokens: PersistedTokens;
  oauth: { grants: Grant[]; refresh_tokens: RefreshEntry[] };
  budgets: BudgetRec[];
}

export class SandboxDataError extends Error {}

const MAP_FIELDS = [
  'accounts',
  'payees',
  'payee_locations',
  'category_groups',
  'categories',
  'transactions',
  'scheduled_transactions',
] as const;

function budgetToJson(b: BudgetRec): unknown {
  const out: Record<string, unknown> = { ...b };
  for (const f of MAP_FIELDS) out[f] = [...b[f].values()];
  out.months = [...b.months.values()];
  out.derived_state = [...b.derived_state];
  return out;
}

function budgetFromJson(raw: unknown, index: number): BudgetRec {
  const o = raw as Record<string, unknown>;
  const where = `budgets[${index}]`;
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

/** Reads a data file; undefined when it does not exist. Throws SandboxDataError when it is not sandbox data. */
export function loadData(file: string): SandboxData | undefined {
  if (!existsSync(file)) return undefined;
  let parsed: Record<string, unknown>;
  try {
    const text = readFileSync(file, 'utf8');
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new SandboxDataError(`cannot read sandbox data from ${file}: ${(e as Error).message.split('\n')[0]}; the file was left untouched`);
  }
  try {
    if (parsed?.format !== DATA_FORMAT) throw new SandboxDataError(`it is not a ${DATA_FORMAT} file`);
    if (parsed.version !== DATA_VERSION) throw new SandboxDataError(`its version ${String(parsed.version)} is not supported (expected ${DATA_VERSION})`);
    const tokens = parsed.tokens as PersistedTokens;
    if (!tokens || typeof tokens.access_token !== 'string' || typeof tokens.read_only_token !== 'string') {
      throw new SandboxDataError('its tokens are missing');
    }
    if (!Array.isArray(parsed.budgets) || !parsed.budgets.length) throw new SandboxDataError('it holds no budgets');
    const oauth = (parsed.oauth ?? { grants: [], refresh_tokens: [] }) as SandboxData['oauth'];
    return {
      user_id: String(parsed.user_id),
      last_used_budget_id: (parsed.last_used_budget_id as string | null) ?? null,
      tokens,
      oauth: { grants: oauth.grants ?? [], refresh_tokens: oauth.refresh_tokens ?? [] },
      budgets: parsed.budgets.map(budgetFromJson),
    };
  } catch (e) {
    const reason = e instanceof SandboxDataError ? e.message : (e as Error).message;
    throw new SandboxDataError(`cannot load sandbox data from ${file}: ${reason}; the file was left untouched`);
  }
}

export function saveData(file: string, data: SandboxData): void {
  const body = JSON.stringify({
    format: DATA_FORMAT,
    version: DATA_VERSION,
    saved_at: new Date().toISOString(),
    user_id: data.user_id,
    last_used_budget_id: data.last_used_budget_id,
    tokens: data.tokens,
    oauth: data.oauth,
    budgets: data.budgets.map(budgetToJson),
  });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, body, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // Nothing to clean up.
    }
    const missingDir = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`cannot save sandbox data to ${file}: ${missingDir ? 'its directory does not exist' : (e as Error).message}`);
  }
}
