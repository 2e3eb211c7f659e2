/**
 * The sandbox's demo budgets, the same for the same seed and `now`: "Demo Household" (USD, two
 * years, every account type and goal type the API describes) and "Haushalt Berlin" (EUR, half a
 * year, a different currency and date format).
 */
import type { BudgetRec } from '../store/records.js';
import { createBerlin } from './eur.js';
import { createHousehold } from './household.js';

export interface DemoOptions {
  seed: string | number;
  now: Date;
  userId: string;
  /**
   * Transaction records in "Demo Household" (default 1,500; exact from about 750 up, below that
   * its fixed monthly bills alone are generated). The other budget is fixed.
   */
  transactions?: number;
}

export function createDemoBudgets(opts: DemoOptions): BudgetRec[] {
  const env = { seed: opts.seed, now: opts.now, userId: opts.userId };
  return [createHousehold(env, opts.transactions ?? 1500), createBerlin(env)];
}
