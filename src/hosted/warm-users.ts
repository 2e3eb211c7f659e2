/**
 * The warm-up's users step (warm-up.ts): before /readyz says ready, an instance reads the saved
 * copies of the users who were active last, newest first, into its replica cache, so that their
 * first calls after a restart (a rolling deploy under load, a morning rush) find their copies held
 * instead of each reading and decoding one while a hundred other calls wait (bench/RESULTS.md,
 * hosted: the crowd's slowest 1 % were those first reads, about 300 on three restarted instances).
 *
 * Activity is one Redis sorted set, identity -> the time of their last call (`active/users`),
 * written by each instance at most once a minute per user (RecentUsers), and pruned of users not
 * seen for 35 days, the time their copies live. The step reads, for the newest users, the budgets
 * their session and `last-used` name, each copy with its feed (as a first call would: caught up),
 * until its time budget (YNAB_MCP_WARM_USERS_MS, default 3000 ms, or less: what the warm-up's
 * deadline leaves it, warm-up.ts) runs out (copies being read then finish after it), the users are done
 * (YNAB_MCP_WARM_USERS, default 200: the users an instance holds), or the copies fill half the
 * replica cache (the other half is for the calls; a copy read past the bound would push out one
 * read before it). Nothing here is needed: a copy not read now is read by its user's first call.
 * The single-user server has no such step: its one user's process starts with their host.
 */
import { LRUCache } from 'lru-cache';
import { outsideRequests } from '../shared/async-context.js';
import { aliasesKey, journalKey, sessionBudgetKey } from '../storage/keys.js';
import { parseJsonBytes } from '../storage/store.js';
import type { RedisStateStore } from '../storage/redis-store.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { SharedReplicaCache } from '../sync/replica-cache.js';
import type { HostedOptions } from './options.js';

/** The sorted set of users by their last call. */
export const RECENT_USERS_KEY = 'active/users';
/** An instance writes a user's activity at most this often. */
const WRITE_EVERY_MS = 60_000;
/** Users not seen for this long leave the set (their copies are gone too: RETENTION in serve.ts). */
const FORGET_AFTER_MS = 35 * 86_400_000;
/** Users read at once: their Redis reads overlap the decoding of others'. */
const AT_ONCE = 8;

export const DEFAULT_WARM_USERS = 200;
/**
 * The users step's budget, and so its weight in the deadline's shares (warm-up.ts): three times
 * its first 1000 ms, so that on busy cores it is given about four fifths of what the deadline leaves
 * the timed steps rather than five ninths. A copy it does not read is decoded by its user's first
 * call, while the crowd waits; the other steps' rounds only compile code sooner. With 1000 ms,
 * three instances restarted at once on two cores read 32-100 of 100 users' copies each, and the
 * runs whose instances left the most had the slowest first calls (bench/RESULTS.md, hosted).
 */
export const DEFAULT_WARM_USERS_MS = 3_000;

/** A whole number from YNAB_MCP_WARM_USERS / YNAB_MCP_WARM_USERS_MS; anything else refused, naming the variable. */
export function envCount(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw new Error(`${name}=${JSON.stringify(raw)} is not a whole number from 0 to ${max} (default ${fallback})`);
  return Number(raw);
}

export interface WarmUsersSettings {
  /** Users read at most (0: the step is off). */
  users: number;
  /** The step's time budget. */
  budgetMs: number;
}

export function warmUsersSettings(env: NodeJS.ProcessEnv = process.env): WarmUsersSettings {
  return {
    users: envCount(env, 'YNAB_MCP_WARM_USERS', DEFAULT_WARM_USERS, 100_000),
    budgetMs: envCount(env, 'YNAB_MCP_WARM_USERS_MS', DEFAULT_WARM_USERS_MS, 60_000),
  };
}

/**
 * The recently active users: recorded as they call, at most once a minute per user on this
 * instance (never failing a call), and read by the warm-up's users step. Its settings are read
 * when it is made: a bad one stops the start, naming the variable.
 */
export class RecentUsers {
  private readonly written = new LRUCache<string, number>({ max: 10_000 });
  readonly settings = warmUsersSettings();

  constructor(
    private readonly store: RedisStateStore,
    private readonly now: () => number = Date.now,
  ) {}

  seen(identity: string): void {
    const at = this.now();
    const last = this.written.get(identity);
    if (last !== undefined && at - last < WRITE_EVERY_MS) return;
    this.written.set(identity, at);
    // Pipelined: the set keeps itself small, pruned of users gone for good. Outside the request
    // whose call it records: no caller waits for it, so it is neither that call's wait on Redis
    // nor one its admission turn comes back from (a user's first call on an instance counted it).
    const sent = outsideRequests(() => [
      this.store.keyed('write', 'ZADD', RECENT_USERS_KEY, String(at), identity),
      this.store.keyed('write', 'ZREMRANGEBYSCORE', RECENT_USERS_KEY, '-inf', `(${at - FORGET_AFTER_MS}`),
    ]);
    void Promise.all(sent).catch(() => this.written.delete(identity));
  }

  /** The warm-up's step: their copies read into `replicas` for at most `budgetMs` (the setting's by default). */
  warm(
    replicas: SharedReplicaCache,
    opts: WarmUsersOptions['opts'],
    log: (line: string) => void,
    budgetMs?: number,
    onBudget?: WarmUsersOptions['onBudget'],
  ): Promise<WarmUsersResult> {
    const settings = { ...this.settings, budgetMs: Math.min(budgetMs ?? Infinity, this.settings.budgetMs) };
    return warmUsers({ store: this.store, replicas, opts, settings, log, onBudget });
  }
}

export interface WarmUsersOptions {
  store: RedisStateStore;
  replicas: SharedReplicaCache;
  /** The replica cache's bound (--replica-cache-mb) and the data key. */
  opts: Pick<HostedOptions, 'replicaCacheBytes' | 'dataKey'>;
  settings: WarmUsersSettings;
  /** Where a saved copy that could not be read is told (it is removed, as a first call would). */
  log: (line: string) => void;
  /** Told the budget each user's first call is likely to ask about (their session's), for its reads ahead (read-ahead.ts). */
  onBudget?: (identity: string, budgetId: string) => void;
}

/** The budgets a user's first calls answer about: their session's and the one `last-used` named. */
async function budgetsOf(store: RedisStateStore, identity: string): Promise<string[]> {
  const [session, aliases] = await Promise.all([store.get(sessionBudgetKey(identity)), store.get(aliasesKey(identity))]);
  const ids = [(parseJsonBytes(session) as { id?: unknown } | undefined)?.id, ...Object.values((parseJsonBytes(aliases) as object | undefined) ?? {})];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/**
 * The users step's outcome: the users whose copies were read, those not begun, left to their first
 * calls, and the copies whose months were read too.
 */
export interface WarmUsersResult {
  read: number;
  left: number;
  months?: number;
}

/**
 * Reads the recently active users' copies into the replica cache. Resolves when they are read or
 * the time is up: a copy being read then is finished after it, and held for its user's first call.
 */
export async function warmUsers(o: WarmUsersOptions): Promise<WarmUsersResult> {
  if (o.settings.users === 0) return { read: 0, left: 0 };
  const until = performance.now() + o.settings.budgetMs;
  const identities = (await o.store.keyed<(Buffer | string)[]>('read', 'ZREVRANGE', RECENT_USERS_KEY, '0', String(o.settings.users - 1))).map(String);
  // Loaded here, not at the start: the copies' code is the warm-up's to load (warm-up.ts, code).
  const [{ ReplicaFiles }, { SavedCopies }] = await Promise.all([import('../sync/persist.js'), import('../sync/saved-copies.js')]);
  const files = new ReplicaFiles(o.store, { key: async () => o.opts.dataKey.subkey('replicas') }, o.log);
  const more = () => performance.now() < until && o.replicas.bytes() < o.opts.replicaCacheBytes / 2;
  let next = 0;
  let read = 0;
  // The copies read, each with its user's place in the list (newest first): workers finish out of order.
  const held: { place: number; replica: BudgetReplica }[] = [];
  const worker = async () => {
    // A user is begun only if one as long as this worker's last would end in time: on busy cores
    // each takes tens of milliseconds, and those still being read at the end hold up the next step.
    let lastMs = 0;
    while (next < identities.length && more() && performance.now() + lastMs < until) {
      const began = performance.now();
      const place = next++;
      const identity = identities[place]!;
      const cache = o.replicas.of(identity);
      const saved = new SavedCopies(files, async () => identity, o.log);
      const budgets = await budgetsOf(o.store, identity);
      if (budgets[0] !== undefined) o.onBudget?.(identity, budgets[0]);
      for (const id of budgets) {
        // Beside the copy, its create records: read here, the store remembers them, and the user's
        // first write updates them without a GET first (redis-store.ts; the undo ids were read at the start).
        const records = o.store.get(journalKey(identity, id)).catch(() => undefined);
        const replica = cache.get(id) ?? (await saved.read(id, true));
        if (replica) {
          cache.set(id, replica);
          held.push({ place, replica });
        }
        await records;
      }
      read++;
      lastMs = performance.now() - began;
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, until - performance.now()))));
  await Promise.race([Promise.all(Array.from({ length: AT_ONCE }, worker)), timeUp]);
  clearTimeout(timer);
  return {
    read,
    left: identities.length - next,
    months: await readMonths(
      held.sort((a, b) => a.place - b.place).map((h) => h.replica),
      until,
    ),
  };
}

/**
 * With the time the copies left, their months, newest users first: a saved copy leaves them to
 * the first answer about a month (replica-months.ts), and in a crowd after a restart that is every
 * user's first get_month on each instance, about 20 MB of objects an instance made mid-crowd that
 * its young generation's collector then copied (bench/RESULTS.md, hosted). Read here, they are in
 * the old generation before ready. Months that cannot be read are left as they are: the first ask
 * meets the same error and drops the copy, as it would have.
 */
async function readMonths(held: readonly BudgetReplica[], until: number): Promise<number> {
  let months = 0;
  for (const replica of held) {
    if (performance.now() >= until) break;
    if (!replica.monthsUnread) continue;
    try {
      void replica.months;
      months++;
    } catch {
      // The first ask reports it.
    }
    // A turn between copies: each is a millisecond or two of decoding, and /readyz and Redis's
    // answers still come through.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return months;
}
