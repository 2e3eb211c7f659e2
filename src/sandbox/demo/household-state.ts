/** The state the month planner of the demo household works on, shared by household.ts and the month and scheduled planners it calls. */
import type { BudgetStore } from '../store/budget-store.js';
import type { AccountRec, CategoryRec, PayeeRec } from '../store/records.js';
import type { Ledger, Entry } from './ledger.js';
import type { Random } from './random.js';

export type AccountKey = 'checking' | 'savings' | 'wallet' | 'visa' | 'loc' | 'mortgage' | 'oldBank';

/** Everything the month planner needs about the budget being built. */
export interface Household {
  store: BudgetStore;
  rng: Random;
  ledger: Ledger;
  today: string;
  firstMonth: string;
  acc: Record<AccountKey, AccountRec>;
  cat: Record<string, CategoryRec>;
  rta: CategoryRec;
  primeMonth: number;
  /** Month index of the home equity line draw. */
  drawMonth: number;
  /** Cash the month's planned wallet purchases need (for the ATM top-up). */
  walletPlanned: number;
  /** What the household expects to spend monthly per category key (milliunits), and how much bigger than the default it is. */
  expected: Map<string, number>;
  scale: number;
  /** Per credit account: its debt at the start of the month being built. */
  debts: Map<string, number>;
  extras: Entry[];
  payee(name: string): PayeeRec;
  transferTo(account: AccountRec): PayeeRec;
}
