/**
 * The sandbox's demo budgets, the same for the same seed and `now`: "Demo Household" (USD, two
 * years, every account type and goal type the API describes) and "Haushalt Berlin" (EUR, half a
 * year, a different currency and date format).
 */
import type { BudgetRec } from '../store/records.js';
import { createBerlin } from './eur.js';
import { createHousehold } from './household.js';

/**
 * 'full' (the default): both budgets. 'small': "Demo Household" alone over SMALL_MONTHS months and
 * about SMALL_TRANSACTIONS transactions (same accounts, card, categories and targets), for
 * benchmarks of many users (bench/hosted-watch.ts), where the full demo is ~3.5 MB a user.
 */
export type DemoSize = 'full' | 'small';

export const SMALL_MONTHS = 6;
export const SMALL_TRANSACTIONS = 300;

export interface DemoOptions {
  seed: string | number;
  now: Date;
  userId: string;
  /**
   * Transaction records in "Demo Household" (default 1,500; exact from about 750 up, below that
   * its fixed monthly bills alone are generated). The other budget is fixed.
   */
  transactions?: number;
  size?: DemoSize;
}

export function createDemoBudgets(opts: DemoOptions): BudgetRec[] {
  const env = { seed: opts.seed, now: opts.now, userId: opts.userId };
  if (opts.size === 'small') return [createHousehold(env, opts.transactions ?? SMALL_TRANSACTIONS, SMALL_MONTHS)];
  return [createHousehold(env, opts.transactions ?? 1500), createBerlin(env)];
}
