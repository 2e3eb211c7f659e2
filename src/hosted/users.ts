/**
 * One ServerState per signed-in user, held by this instance in a bounded LRU. A user's state is
 * the same stack as the single-user server's (client, quota ledger, replicas, create records,
 * service) over the shared Redis store, named by their identity: their YNAB grant, their
 * replicas, their create records, their ledgers, and nothing of anyone else's. Everything in it can be
 * rebuilt from the store, so an evicted user (or an instance that restarts) costs a reload, not
 * data; a request is served by whichever instance gets it.
 *
 * A new sign-in of the same user (another grant, perhaps read-only now) replaces the state this
 * instance holds for them: the grant's sign-in time is compared on every request.
 */
import { LRUCache } from 'lru-cache';
import type { TokenProvider } from '../api/client/client.js';
import { OAuthRefreshError, oauthProvider, type OAuthProviderOptions } from '../auth/oauth-provider.js';
import type { McpConfig } from '../mcp/config.js';
import { ServerState, type Connection } from '../mcp/state.js';
import { SessionBudget, storeKeeper } from '../mcp/session-budget.js';
import type { StackOptions } from '../stack/stack.js';
import type { StateStore } from '../storage/store.js';
import type { HostedOptions } from './options.js';
import type { HostedAuth } from './resource-server.js';
import type { SharedReplicaCache } from '../sync/replica-cache.js';
import { sharedAnswers } from './answer-cache.js';
import type { YnabGrants } from './ynab-grants.js';
import type { WatchFlags } from '../shared/watch.js';

/** Users whose state one instance keeps in memory at once; the least recently served go first. */
export const MAX_USERS_HELD = 200;

export const HOSTED_SIGN_IN_AGAIN =
  'The YNAB sign-in behind this connection has expired or was revoked. Reconnect the YNAB connector in your assistant to sign in again.';

interface Held {
  state: ServerState;
  signedInAt: string;
}

export interface HostedUsersOptions {
  store: StateStore;
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
}

export class HostedUsers {
  private readonly held: LRUCache<string, Held>;
  private readonly readOnlyListeners = new Set<(identity: string) => void>();

  constructor(private readonly deps: HostedUsersOptions) {
    this.held = new LRUCache<string, Held>({
      max: deps.maxHeld ?? MAX_USERS_HELD,
      // Evicted or replaced states only wait for saves under way; their copies are in the store already.
      dispose: (h, _identity, reason) => {
        if (reason === 'evict' || reason === 'set') void h.state.close().catch(() => undefined);
      },
    });
  }

  /** The state of the user an authenticated request is for. */
  stateFor(auth: HostedAuth): ServerState {
    const signedInAt = auth.grant.signed_in_at ?? '';
    const known = this.held.get(auth.identity);
    if (known && known.signedInAt === signedInAt) return known.state;
    const state = this.create(auth.identity, auth.grant.token_scope);
    this.held.set(auth.identity, { state, signedInAt });
    return state;
  }

  /**
   * The state of a user known only by identity (the interval watcher's, for a user with webhook
   * subscriptions and no connection now): undefined when they have no YNAB grant any more.
   */
  async stateOfIdentity(identity: string): Promise<ServerState | undefined> {
    const grant = await this.deps.grants.read(identity);
    return grant ? this.stateFor({ identity, grant }) : undefined;
  }

  /** Told, with the user's identity, when a user's server became read-only. */
  onReadOnly(listener: (identity: string) => void): () => void {
    this.readOnlyListeners.add(listener);
    return () => this.readOnlyListeners.delete(listener);
  }

  get size(): number {
    return this.held.size;
  }

  /** `scope`: the grant's scope as YNAB gave it at sign-in, so a read-only user is never offered write tools. */
  private create(identity: string, scope: 'full' | 'read-only' | undefined): ServerState {
    const { store, opts, grants, log } = this.deps;
    const connect = async (): Promise<Connection> => {
      const provider = await oauthProvider({
        store: grants.secretsFor(identity),
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
    const state = new ServerState(
      this.deps.config,
      connect,
      {
        store,
        shared: true,
        sharedAnswers: sharedAnswers(store, opts.dataKey, identity),
        persist: true,
        keySource: { key: async () => opts.dataKey.subkey('replicas') },
        maxStalenessMs: this.deps.maxStalenessMs,
        replicaCache: this.deps.replicas.of(identity),
        baseUrl: opts.ynab.baseUrl,
        log,
        onRequest: this.deps.watch?.onRequest,
        onReplicaCache: this.deps.watch?.onReplicaCache,
        onReplicaCatchUp: this.deps.watch?.onReplicaCatchUp,
        onDetected: this.deps.watch?.onDetected,
        onWebhookDelivery: this.deps.watch?.onWebhookDelivery,
        watch: { ...this.deps.watcher, onLag: this.deps.watch?.onWatchLag, onSkip: this.deps.watch?.onWatchSkip },
      },
      scope,
      // The user's default budget, the same whichever instance serves a request.
      new SessionBudget(storeKeeper(store, identity)),
    );
    state.onReadOnly(() => {
      for (const l of this.readOnlyListeners) l(identity);
    });
    return state;
  }

  async close(): Promise<void> {
    const states = [...this.held.values()].map((h) => h.state);
    this.held.clear();
    await Promise.all(states.map((s) => s.close().catch(() => undefined)));
  }
}
