/**
 * One ServerState per signed-in user, held by this instance in a bounded LRU. A user's state is
 * the same stack as the single-user server's (client, quota ledger, replicas, create records,
 * service) over the shared Redis store, named by their identity: their YNAB grant, their
 * replicas, their create records, their ledgers, and nothing of anyone else's. Everything in it can be
 * rebuilt from the store, so an evicted user (or an instance that restarts) costs a reload, not
 * data; a request is served by whichever instance gets it.
 *
 * Watching is not this LRU's business: a user with webhook subscriptions is watched by watch jobs
 * (src/hosted/watchers.ts) with short-lived states of their own (watchState).
 *
 * A new sign-in of the same user (another grant, perhaps read-only now) replaces the state this
 * instance holds for them: the grant's sign-in time is compared on every request.
 */
import { LRUCache } from 'lru-cache';
import type { TokenProvider } from '../api/client/client.js';
import { OAuthRefreshError, oauthProvider, type OAuthProviderOptions } from '../auth/oauth-provider.js';
import type { McpConfig } from '../mcp/state/config.js';
import { ServerState, type Connection } from '../mcp/state/state.js';
import { SessionBudget, storeKeeper } from '../mcp/state/session-budget.js';
import type { StackOptions } from '../stack/stack.js';
import type { RedisStateStore } from '../storage/redis-store.js';
import type { HostedOptions } from './options.js';
import type { HostedAuth } from './resource-server.js';
import type { SharedReplicaCache } from '../sync/replica-cache.js';
import { sharedAnswers } from './answer-cache.js';
import type { YnabGrant, YnabGrants } from './ynab-grants.js';
import type { WatchFlags } from '../shared/watch.js';
import type { WatchSettings } from '../events/watcher-loop.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../transport/http-options.js';
import { capsFromEnv } from '../events/principal-caps.js';
import { RecentUsers, type WarmUsersResult } from './warm-users.js';
import { ReadAhead } from './read-ahead.js';
import { writtenKey } from '../storage/keys.js';

/** Users whose state one instance keeps in memory at once; the least recently served go first. */
export const MAX_USERS_HELD = 200;

/**
 * The users an instance holds (YNAB_MCP_MAX_USERS_HELD, default 200). Watching does not count
 * against it: watch jobs use states of their own (watchState). Anything but a whole number from 2
 * to 100,000 is refused, naming the variable.
 */
export function maxUsersHeld(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.YNAB_MCP_MAX_USERS_HELD;
  if (raw === undefined || raw === '') return MAX_USERS_HELD;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 2 || n > 100_000) {
    throw new Error(
      `YNAB_MCP_MAX_USERS_HELD=${JSON.stringify(raw)} is not a whole number from 2 to 100000 (the users an instance holds in memory; default ${MAX_USERS_HELD})`,
    );
  }
  return n;
}

/** How long an evicted state stays open for the calls it serves: an HTTP call's deadline. */
const RETIRE_MS = DEFAULT_REQUEST_TIMEOUT_MS;

export const HOSTED_SIGN_IN_AGAIN =
  'The YNAB sign-in behind this connection has expired or was revoked. Reconnect the YNAB connector in your assistant to sign in again.';

/**
 * How long a grant a request read as it was authenticated may start the user's OAuth provider
 * instead of a read of its own: the same request's work, under a crowd's waits. (The provider then
 * keeps what it started from for hours anyway; a refresh reads the stored grant under its lock.)
 */
const FRESH_GRANT_MS = 1_000;

/** The grant a request read as it was authenticated, and when (performance.now()). */
interface SeenGrant {
  grant: YnabGrant;
  at: number;
}

interface Held {
  state: ServerState;
  signedInAt: string;
  /** The grant its latest request read, for the OAuth provider's start (once, while fresh). */
  seen: { last?: SeenGrant };
}

export interface HostedUsersOptions {
  store: RedisStateStore;
  opts: HostedOptions;
  config: McpConfig;
  grants: YnabGrants;
  maxStalenessMs: number;
  log: (line: string) => void;
  maxHeld?: number;
  /** Where every user's budget copies are held, with one bound for the instance (--replica-cache-mb). */
  replicas: SharedReplicaCache;
  /** The hooks metrics and the request log listen on (observe.ts). */
  watch?: Pick<StackOptions, 'onRequest' | 'onReplicaCache' | 'onReplicaCatchUp' | 'onDetected' | 'onWebhookDelivery'> & {
    onRefresh?: OAuthProviderOptions['onRefresh'];
    onWatchLag?: (seconds: number) => void;
    onWatchSkip?: (reason: 'share') => void;
  };
  /** The interval watcher's interval and share (--watch-interval, --watch-share). */
  watcher?: WatchFlags;
  /** The admission's wait on YNAB (src/transport/http-admission.ts): the request's slot goes on meanwhile. */
  aside?: StackOptions['aside'];
  /** Work no caller waits for (a sync's alerts scan), run when the instance is quiet (src/transport/background.ts). */
  background?: StackOptions['background'];
}

export class HostedUsers {
  private readonly held: LRUCache<string, Held>;
  private readonly readOnlyListeners = new Set<(identity: string) => void>();
  /** Who called last, whose copies a starting instance reads first (warm-users.ts); checks its settings at the start. */
  private readonly recent: RecentUsers;
  /** Reads sent with a known token's (resource-server.ts, read-ahead.ts): each user's store takes them. */
  readonly readAhead: ReadAhead;

  constructor(private readonly deps: HostedUsersOptions) {
    capsFromEnv(); // an operator's bad Events cap stops the start, naming the variable (each state reads the caps again)
    this.recent = new RecentUsers(deps.store);
    this.readAhead = new ReadAhead(deps.store);
    this.held = new LRUCache<string, Held>({
      max: deps.maxHeld ?? MAX_USERS_HELD,
      dispose: (h, identity, reason) => {
        if (reason === 'evict' || reason === 'set') this.retire(identity, h);
      },
    });
  }

  /**
   * Evicted or replaced states close a call's deadline later (RETIRE_MS), not at once: a call
   * still running on one (its user's other calls, with more users than the LRU holds) is
   * answered, and a user who comes back meanwhile gets the same state again. Their copies are in
   * the store already; closing only waits for saves under way.
   */
  private readonly retiring = new Map<string, { held: Held; timer: NodeJS.Timeout }>();

  private retire(identity: string, h: Held): void {
    const before = this.retiring.get(identity);
    if (before && before.held !== h) this.closeRetired(identity);
    const timer = setTimeout(() => this.closeRetired(identity), RETIRE_MS).unref();
    this.retiring.set(identity, { held: h, timer });
  }

  private closeRetired(identity: string): void {
    const r = this.retiring.get(identity);
    if (!r) return;
    clearTimeout(r.timer);
    this.retiring.delete(identity);
    void r.held.state.close().catch(() => undefined);
  }

  /** A retiring state of the same sign-in, back in the LRU. */
  private revive(identity: string, signedInAt: string): Held | undefined {
    const r = this.retiring.get(identity);
    if (!r || r.held.signedInAt !== signedInAt) return undefined;
    clearTimeout(r.timer);
    this.retiring.delete(identity);
    this.held.set(identity, r.held);
    return r.held;
  }

  /** The state of the user an authenticated request is for. */
  stateFor(auth: HostedAuth): ServerState {
    const signedInAt = auth.grant.signed_in_at ?? '';
    this.recent.seen(auth.identity);
    const known = this.held.get(auth.identity) ?? this.revive(auth.identity, signedInAt);
    const last = { grant: auth.grant, at: performance.now() };
    if (known && known.signedInAt === signedInAt) {
      known.seen.last = last;
      return known.state;
    }
    const seen = { last };
    // The read-only endpoint's sign-ins are identities of their own (ynab-callback.ts): read-only whatever the grant.
    const state = this.create(auth.identity, auth.readOnly ? 'read-only' : auth.grant.token_scope, undefined, seen);
    this.held.set(auth.identity, { state, signedInAt, seen });
    return state;
  }

  /**
   * A state of the user's own for one watch job (src/hosted/watchers.ts), held by the job and not
   * by the LRU above, so no interactive call can evict it mid-sync; its watcher has no loop (the
   * job runs one pass) and watches their webhook subscriptions. The job closes it. Undefined when
   * the user has no YNAB grant any more.
   */
  async watchState(identity: string): Promise<ServerState | undefined> {
    const grant = await this.deps.grants.read(identity);
    return grant ? this.create(identity, grant.token_scope, { manual: true, webhooks: true }, { last: { grant, at: performance.now() } }) : undefined;
  }

  /** The warm-up's users step (warm-users.ts): the recently active users' copies read into the replica cache, for at most `budgetMs`. */
  readonly warmRecent = (budgetMs?: number): Promise<WarmUsersResult> =>
    this.recent.warm(this.deps.replicas, this.deps.opts, this.deps.log, budgetMs, (identity, budget) =>
      this.readAhead.expect(identity, writtenKey(identity, budget)),
    );

  /** Told, with the user's identity, when a user's server became read-only. */
  onReadOnly(listener: (identity: string) => void): () => void {
    this.readOnlyListeners.add(listener);
    return () => this.readOnlyListeners.delete(listener);
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * `scope`: the grant's scope as YNAB gave it at sign-in, so a read-only user is never offered
   * write tools. `watching`: how its watcher runs; an interactive state's watches only what its own
   * clients listen to (the watch jobs watch webhook subscriptions). `seen`: the grant the latest
   * request read (FRESH_GRANT_MS), which the OAuth provider starts from instead of reading it again.
   */
  private create(
    identity: string,
    scope: 'full' | 'read-only' | undefined,
    watching: Pick<WatchSettings, 'manual' | 'webhooks'> = { webhooks: false },
    seen: { last?: SeenGrant } = {},
  ): ServerState {
    const { store, opts, grants, log } = this.deps;
    const connect = async (): Promise<Connection> => {
      const last = seen.last;
      seen.last = undefined; // once: a later start (after a failed one) uses what its own request read, or reads the store
      const fresh = last && performance.now() - last.at < FRESH_GRANT_MS ? last.grant : undefined;
      const provider = await oauthProvider({
        store: grants.secretsFor(identity, fresh),
        stateDir: '',
        state: store,
        warn: log,
        signInAgain: HOSTED_SIGN_IN_AGAIN,
        onRefresh: this.deps.watch?.onRefresh,
      });
      // A grant YNAB refused is forgotten, so the user's MCP tokens get 401 and the client signs in again.
      const forget = async <T>(p: Promise<T>): Promise<T> => {
        try {
          return await p;
        } catch (e) {
          if (e instanceof OAuthRefreshError) await grants.remove(identity).catch(() => undefined);
          throw e;
        }
      };
      const credentials: TokenProvider = {
        token: () => forget(provider.token()),
        renewAfterUnauthorized: (failed) => forget(provider.renewAfterUnauthorized!(failed)),
      };
      return {
        credentials,
        info: { source: 'hosted', kind: 'oauth', scope: provider.scope, expiresAt: provider.expiresAt() },
        identity: async () => identity,
        baseUrl: opts.ynab.baseUrl,
      };
    };
    const userStore = this.readAhead.storeFor(identity);
    const state = new ServerState(
      this.deps.config,
      connect,
      {
        store: userStore,
        shared: true,
        sharedAnswers: sharedAnswers(store, opts.dataKey, identity),
        persist: true,
        keySource: { key: async () => opts.dataKey.subkey('replicas') },
        maxStalenessMs: this.deps.maxStalenessMs,
        replicaCache: this.deps.replicas.of(identity),
        baseUrl: opts.ynab.baseUrl,
        log,
        onRequest: this.deps.watch?.onRequest,
        aside: this.deps.aside,
        background: this.deps.background,
        onReplicaCache: this.deps.watch?.onReplicaCache,
        onReplicaCatchUp: this.deps.watch?.onReplicaCatchUp,
        onDetected: this.deps.watch?.onDetected,
        onWebhookDelivery: this.deps.watch?.onWebhookDelivery,
        watch: { ...this.deps.watcher, ...watching, onLag: this.deps.watch?.onWatchLag, onSkip: this.deps.watch?.onWatchSkip },
      },
      scope,
      // The user's default budget, the same whichever instance serves a request.
      new SessionBudget(storeKeeper(userStore, identity), this.deps.aside),
    );
    state.onReadOnly(() => {
      for (const l of this.readOnlyListeners) l(identity);
    });
    return state;
  }

  async close(): Promise<void> {
    const states = [...this.held.values(), ...[...this.retiring.values()].map((r) => r.held)].map((h) => h.state);
    for (const r of this.retiring.values()) clearTimeout(r.timer);
    this.retiring.clear();
    this.held.clear();
    await Promise.all(states.map((s) => s.close().catch(() => undefined)));
  }
}
