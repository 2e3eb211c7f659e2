/**
 * What building API answers needs to know about a budget besides the entity at hand: names of
 * the accounts, payees and categories an entity refers to, which accounts are on budget, and the
 * budget's currency format. The sandbox answers from its records and the replica from its copy;
 * both provide this, and both build answers with the same code (this directory).
 */
import type { CurrencyFormat } from '../schemas/common.js';

export interface BudgetLookup {
  currencyFormat: CurrencyFormat | null;
  account(id: string): { name: string; on_budget: boolean } | undefined;
  payeeName(id: string | null): string | null;
  categoryName(id: string | null): string | null;
  /** The id of the "Uncategorized" internal category, which stands for lines without one. */
  uncategorizedId: string | null;
  /** Its name ("Uncategorized"), shown for an on-budget line without a category. */
  uncategorizedName: string;
  /** The name of a category group. */
  groupName(id: string): string | undefined;
}
