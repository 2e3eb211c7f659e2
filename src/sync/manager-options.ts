/**
 * What a ReplicaManager is made with (manager.ts): the client, where copies are held and saved, and
 * in hosted mode the replicas it shares with other instances (see manager.ts's header).
 */
import type { YnabClient } from '../api/client/client.js';
import type { ReplicaFiles } from './persist.js';
import type { BudgetReplica } from './replica.js';
import type { ReplicaCache } from './replica-cache.js';
import type { CatchUp } from './replica-feed.js';
import type { Held, IoAside } from '../storage/store.js';

export interface ReplicaManagerOptions {
  client: YnabClient;
  /** Key of the current token (a hash), separating saved replicas of different users. */
  tokenKey: () => Promise<string>;
  files?: ReplicaFiles;
  maxStalenessMs?: number;
  maxBytes?: number;
  /** Where copies are held (hosted mode: the user's share of the instance's cache); else an LRU of `maxBytes`. */
  cache?: ReplicaCache;
  now?: () => number;
  log?: (line: string) => void;
  /** Replicas shared with other instances (hosted mode); see the header. */
  shared?: SharedReplicas;
  /**
   * Told of each copy a request to YNAB brought up to date (src/events scans it); not of a copy
   * caught up from the changes or the saved copy another instance's sync left, which it scanned.
   */
  onSynced?: (replica: BudgetReplica) => void;
  /**
   * Told how each answer's copy was had: held in memory and fresh ('hit'), read from the store
   * without a request ('saved'), or synced ('miss'). For metrics.
   */
  onCache?: (result: 'hit' | 'saved' | 'miss') => void;
  /** Shared replicas: told how a copy that was not fresh enough was brought up to date (see CatchUp). For metrics. */
  onCatchUp?: (via: CatchUp) => void;
  /** Wraps a wait on another caller's sync of the same budget: hosted mode's admission. */
  aside?: IoAside;
}

export interface SharedReplicas {
  /** The highest server knowledge a write of ours (any instance) reached for the budget; 0 when none. */
  written(budgetId: string): Promise<number>;
  /** The highest knowledge a write through this process moved that mark to (0: none), known without a read. */
  writtenHere?(budgetId: string): number;
  /** Runs `fn` as the only sync of this budget across instances; `read`: a key read as it starts (the store's withLock). */
  exclusive<T>(budgetId: string, read: string | undefined, fn: (held?: Held) => Promise<T>): Promise<T>;
}
