/**
 * The sandbox's users (`--users N`): each has an email to sign in with, their own demo budgets
 * (user 1 from the seed itself, user n from a seed of their own, so their data differs) and
 * their own personal tokens (user 1's may be given with --token / --read-only-token).
 */
import { createDemoBudgets, type DemoSize } from './demo/index.js';
import { Random } from './demo/random.js';
import { userEmail, type PersistedUser } from './persistence.js';
import type { BudgetRec } from './store/records.js';
import { newSecret } from './tokens.js';

export interface NewUsers {
  seed: string | number;
  now: Date;
  transactions?: number;
  /** Each user's demo (default 'full'). */
  demo?: DemoSize;
  /** User 1's budgets instead of demo ones (a budget loaded from an export, `--from`). */
  budgets?: BudgetRec[];
}

/** The demo seed of the n-th user (1-based): user 1 keeps the sandbox's seed. */
export const userSeed = (seed: string | number, n: number) => (n === 1 ? seed : `${seed}/user${n}`);

/** Users n = from..to (1-based), each with new demo budgets and tokens. */
export function newUsers(opts: NewUsers, from: number, to: number): PersistedUser[] {
  const users: PersistedUser[] = [];
  for (let n = from; n <= to; n++) {
    const seed = userSeed(opts.seed, n);
    const id = new Random(n === 1 ? `user:${opts.seed}` : `user:${seed}`).uuid();
    users.push({
      id,
      email: userEmail(n),
      access_token: newSecret('sbx_pat_'),
      read_only_token: newSecret('sbx_pat_ro_'),
      last_used_budget_id: null,
      // Only the first user's first budget takes --transactions (it is for benchmarks).
      budgets:
        n === 1 && opts.budgets
          ? opts.budgets
          : createDemoBudgets({
              seed,
              now: opts.now,
              userId: id,
              transactions: n === 1 ? opts.transactions : undefined,
              size: opts.demo,
            }),
    });
  }
  return users;
}
