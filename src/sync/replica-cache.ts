/**
 * Where a replica manager holds its budget copies in memory: an LRU bounded by the copies'
 * approximate size. The single-user server has one of its own. A hosted instance has one for all
 * its users together (SharedReplicaCache), so that its memory has one bound however many users it
 * meets, and each user's manager sees only their own copies through a view named by their identity.
 * Whatever is held is also in the store (a synced copy's changes are saved before it answers,
 * under the budget's lock), so an evicted copy costs a read from Redis, never data.
 */
import { LRUCache } from 'lru-cache';
import type { BudgetReplica } from './replica.js';

export interface ReplicaCache {
  get(budgetId: string): BudgetReplica | undefined;
  set(budgetId: string, replica: BudgetReplica): void;
  delete(budgetId: string): void;
  /** The copies held. */
  values(): BudgetReplica[];
}

const sized = (r: BudgetReplica) => Math.max(1, r.approximateSize());

/** A cache of one manager's own (the single-user server). */
export function ownReplicaCache(maxBytes: number): ReplicaCache {
  const cache = new LRUCache<string, BudgetReplica>({ maxSize: maxBytes, sizeCalculation: sized });
  return {
    get: (id) => cache.get(id),
    set: (id, r) => void cache.set(id, r),
    delete: (id) => void cache.delete(id),
    values: () => [...cache.values()],
  };
}

/** One bound for all the users of an instance (hosted mode). */
export class SharedReplicaCache {
  private readonly cache: LRUCache<string, BudgetReplica>;
  private readonly owners = new Map<string, Set<string>>();

  constructor(maxBytes: number) {
    this.cache = new LRUCache<string, BudgetReplica>({
      maxSize: maxBytes,
      sizeCalculation: sized,
      // Not when a copy is replaced under its key: it is still held.
      dispose: (_r, key, reason) => {
        if (reason !== 'set') this.forget(key);
      },
    });
  }

  /** The copies of one user (`owner`: their identity), as a cache of their own. */
  of(owner: string): ReplicaCache {
    const key = (id: string) => `${owner}\u0000${id}`;
    return {
      get: (id) => this.cache.get(key(id)),
      set: (id, r) => {
        let ids = this.owners.get(owner);
        if (!ids) this.owners.set(owner, (ids = new Set()));
        ids.add(id);
        this.cache.set(key(id), r);
      },
      delete: (id) => void this.cache.delete(key(id)),
      values: () => [...(this.owners.get(owner) ?? [])].flatMap((id) => this.cache.peek(key(id)) ?? []),
    };
  }

  /** Bytes of every copy held, all users together (as sized when last stored): for metrics. */
  bytes(): number {
    return this.cache.calculatedSize;
  }

  /** Copies held, all users together. */
  get size(): number {
    return this.cache.size;
  }

  private forget(key: string): void {
    const at = key.indexOf('\u0000');
    const owner = key.slice(0, at);
    const ids = this.owners.get(owner);
    ids?.delete(key.slice(at + 1));
    if (ids && !ids.size) this.owners.delete(owner);
  }
}
