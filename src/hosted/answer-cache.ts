/**
 * The answers a user's server caches outside the budget export (their YNAB user, their budget
 * list, money movements), kept in the state store rather than one instance's memory, so that a
 * repeated question costs no request whichever instance gets it, and a write through any instance
 * clears what every instance would answer about that budget.
 *
 *   answers/<identity>/<budget or _all>/<hash of the question>   sealed (names are budget data),
 *                                                               expiring with the answer's ttl
 */
import { createHash } from 'node:crypto';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import type { CachedAnswer, SharedAnswers } from '../sync/service.js';
import type { DataKey } from './sealing.js';

const ALL = '_all';

export function sharedAnswers(store: StateStore, key: DataKey, identity: string): SharedAnswers {
  const group = (budgetId: string | undefined) => `answers/${identity}/${budgetId ? segment(budgetId) : ALL}/`;
  const name = (question: string, budgetId: string | undefined) => `${group(budgetId)}${createHash('sha256').update(question).digest('hex').slice(0, 32)}`;
  return {
    async get(question, budgetId) {
      const k = name(question, budgetId);
      return key.openJson<CachedAnswer>(await store.get(k), k);
    },
    async set(question, budgetId, answer, ttlMs) {
      const k = name(question, budgetId);
      await store.set(k, key.sealJson(answer, k), { ttlMs: Math.max(1, ttlMs) });
    },
    async forget(budgetId) {
      const keys = [...(await store.list(group(budgetId))), ...(await store.list(group(undefined)))];
      await Promise.all(keys.map((k) => store.delete(k)));
    },
  };
}
