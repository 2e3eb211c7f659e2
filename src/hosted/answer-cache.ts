/**
 * The answers a user's server caches outside the budget export (their YNAB user, their budget
 * list, money movements), kept in the state store rather than one instance's memory, so that a
 * repeated question costs no request whichever instance gets it, and a write through any instance
 * clears what every instance would answer about that budget.
 *
 *   answers/<identity>/<budget or _all>.gen                   the group's generation (random)
 *   answers/<identity>/<budget or _all>/<gen>/<hash of the question>   sealed (names are budget
 *                                                             data), expiring with the answer's ttl
 *
 * A write makes a group's answers old by giving it a new generation: one SET, the old answers left
 * to expire. Listing the group's keys to delete them was a SCAN of the whole keyspace (every user's
 * keys, a thousand at a time) twice per write: at a hundred users, a dozen round trips per write.
 * An answer is kept under the generation read before it was worked out, so an answer begun before
 * a write and finished after it is never found.
 */
import { createHash, randomBytes } from 'node:crypto';
import { segment } from '../storage/keys.js';
import type { StateStore } from '../storage/store.js';
import type { CachedAnswer, SharedAnswers } from '../sync/service.js';
import type { DataKey } from './sealing.js';

const ALL = '_all';
/** Longer than any answer lives: a generation that lapses back to the first leaves nothing to find. */
const GENERATION_TTL_MS = 35 * 86_400_000;
/** Questions looked up and not yet answered that a user's state remembers the generation of, at most. */
const SEEN_MAX = 1000;

export function sharedAnswers(store: StateStore, key: DataKey, identity: string): SharedAnswers {
  const group = (budgetId: string | undefined) => `answers/${identity}/${budgetId ? segment(budgetId) : ALL}`;
  const hash = (question: string) => createHash('sha256').update(question).digest('hex').slice(0, 32);
  const generation = async (budgetId: string | undefined) => {
    const bytes = await store.get(`${group(budgetId)}.gen`);
    return bytes ? Buffer.from(bytes).toString('utf8') : '0';
  };
  // The generation each question was looked up under, for its set() (the service asks, works it out, then sets).
  const seen = new Map<string, string>();
  return {
    async get(question, budgetId) {
      const gen = await generation(budgetId);
      const k = `${group(budgetId)}/${gen}/${hash(question)}`;
      const found = key.openJson<CachedAnswer>(await store.get(k), k);
      if (found === undefined) {
        if (seen.size >= SEEN_MAX) seen.clear(); // questions asked and never answered: let them go
        seen.set(`${budgetId}\n${question}`, gen);
      }
      return found;
    },
    async set(question, budgetId, answer, ttlMs) {
      const asked = `${budgetId}\n${question}`;
      const gen = seen.get(asked) ?? (await generation(budgetId));
      seen.delete(asked);
      const k = `${group(budgetId)}/${gen}/${hash(question)}`;
      await store.set(k, key.sealJson(answer, k), { ttlMs: Math.max(1, ttlMs) });
    },
    async forget(budgetId) {
      const fresh = () => Buffer.from(randomBytes(8).toString('hex'));
      await Promise.all([budgetId, undefined].map((b) => store.set(`${group(b)}.gen`, fresh(), { ttlMs: GENERATION_TTL_MS })));
    },
  };
}
