/**
 * What a sandbox holds when it starts (app.ts): its users, saved with --data or new with demo
 * budgets, their personal tokens, the OAuth client with its grants and pending codes, and every
 * budget warmed for its first request. With --data, every change is wired to the file
 * (durable-wiring.ts) before the first request can make one.
 */
import { randomUUID } from 'node:crypto';
import { Durability, loadDurable } from './durable.js';
import { keepDurable } from './durable-wiring.js';
import { OAuthServer, type OAuthClient } from './oauth.js';
import type { PersistedUser, SandboxData } from './persistence.js';
import { sandboxState, type SandboxState, type SandboxUser } from './state.js';
import { BudgetStore } from './store/budget-store.js';
import { exportSegments } from './store/export-segments.js';
import type { BudgetRec, Versioned } from './store/records.js';
import { ExportError, loadExport, loadLines } from './export/load-export.js';
import { newSecret, TokenRegistry } from './tokens.js';
import type { DemoSize } from './demo/index.js';
import { newUsers } from './users.js';

/** The options (app.ts, SandboxOptions) the starting state depends on. */
export interface WorldOptions {
  token?: string;
  readOnlyToken?: string;
  users?: number;
  dataFile?: string;
  transactions?: number;
  demo?: DemoSize;
  oauthTokenTtl?: number;
  /** A budget export to serve as user 1's only budget (src/sandbox/export/). */
  from?: string;
  /** User 1's budgets, already loaded (a rehearsal's copy: commands/rehearse.ts); with --data, only when its file is new. */
  budgets?: BudgetRec[];
}

export interface WorldEnv {
  clock: () => Date;
  log: (line: string) => void;
  seed: string | number;
}

export interface SandboxWorld {
  users: SandboxUser[];
  state: SandboxState;
  client: OAuthClient;
  tokens: TokenRegistry;
  oauth: OAuthServer;
  /** Present with --data. */
  durability: Durability | undefined;
}

/** The saved users, and new ones up to --users; user 1's tokens replaced by --token / --read-only-token. */
function usersToServe(opts: WorldOptions, saved: SandboxData | undefined, env: WorldEnv): PersistedUser[] {
  const persistedUsers = saved?.users ?? [];
  const wanted = Math.max(opts.users ?? 1, 1);
  const budgets = opts.budgets ?? (opts.from ? fromExport(opts.from, env) : undefined);
  if (persistedUsers.length < wanted)
    persistedUsers.push(
      ...newUsers({ seed: env.seed, now: env.clock(), transactions: opts.transactions, demo: opts.demo, budgets }, persistedUsers.length + 1, wanted),
    );
  else if (opts.users !== undefined && persistedUsers.length > wanted) {
    env.log(`sandbox: ${opts.dataFile} holds ${persistedUsers.length} users; all are kept (--users ${wanted} only adds users)`);
  }
  if (opts.token) persistedUsers[0]!.access_token = opts.token;
  if (opts.readOnlyToken) persistedUsers[0]!.read_only_token = opts.readOnlyToken;
  return persistedUsers;
}

/** `--from FILE`: the export's budget, what the load found logged; a file that cannot be loaded throws ExportError. */
function fromExport(file: string, env: WorldEnv): BudgetRec[] {
  const loaded = loadExport(file, { now: env.clock() });
  for (const line of loadLines(file, loaded)) env.log(line);
  return [loaded.budget];
}

/** A user as served, each budget telling `budgetChanged` of its every change. */
function liveUser(u: PersistedUser, clock: () => Date, budgetChanged: (store: BudgetStore, stamped: readonly Versioned[]) => void): SandboxUser {
  const env = { clock, newId: randomUUID, userId: u.id };
  const stores: BudgetStore[] = u.budgets.map((rec) => {
    const store: BudgetStore = new BudgetStore(rec, env, (stamped) => budgetChanged(store, stamped));
    return store;
  });
  return {
    id: u.id,
    email: u.email,
    budgets: stores,
    lastUsedBudgetId: u.last_used_budget_id,
    accessToken: u.access_token,
    readOnlyToken: u.read_only_token,
  };
}

export function openWorld(opts: WorldOptions, env: WorldEnv): SandboxWorld {
  const { clock, log } = env;
  const tokens = new TokenRegistry(() => clock().getTime(), opts.oauthTokenTtl ?? 7200);

  // An export is served fresh each start: saving it (--data) would serve the saved copy next time instead.
  if (opts.from && opts.dataFile) throw new ExportError(`--from ${opts.from} cannot be combined with --data: a loaded export is served fresh each start`);
  // The saved state (snapshot and write-ahead log), or new users with new demo budgets.
  const loaded = opts.dataFile ? loadDurable(opts.dataFile, log) : undefined;
  const saved = loaded?.data;
  let durability: Durability | undefined;
  const users = usersToServe(opts, saved, env).map((u) => liveUser(u, clock, (store, stamped) => durability?.budgetChanged(store, stamped)));
  const state = sandboxState(users);
  const client = {
    id: saved?.oauth.client_id || `sbx-client-${newSecret('').slice(0, 12)}`,
    secret: saved?.oauth.client_secret || newSecret('sbx_secret_'),
  };
  if (saved) tokens.restore({ grants: saved.oauth.grants, refresh_tokens: saved.oauth.refresh_tokens });
  for (const u of users) {
    tokens.addPersonal(u.accessToken, 'full', u.id);
    tokens.addPersonal(u.readOnlyToken, 'read-only', u.id);
  }
  // Ready before the first request, as the service is: computed figures, the transaction index
  // and the export's encoded segments (at 100,000 transactions that is most of a second).
  for (const u of users) {
    for (const b of u.budgets) {
      b.derived();
      exportSegments(b);
    }
  }
  const oauth = new OAuthServer(
    client,
    tokens,
    // OAuth grants come with default budget selection: the user's first budget.
    () => users.map((u) => ({ id: u.id, email: u.email, defaultBudgetId: u.budgets[0]?.id ?? null })),
    () => clock().getTime(),
  );
  if (saved) oauth.restoreCodes(saved.oauth.codes);
  if (opts.dataFile) durability = keepDurable(opts.dataFile, loaded?.seq ?? 0, { users, state, client, tokens, oauth }, log);
  return { users, state, client, tokens, oauth, durability };
}
