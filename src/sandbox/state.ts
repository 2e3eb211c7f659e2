/**
 * The whole sandbox: its user, its budgets in display order, and which budget was used last.
 */
import { resourceNotFound } from './errors.js';
import type { BudgetStore } from './store/budget-store.js';

export interface SandboxState {
  userId: string;
  budgets: BudgetStore[];
  lastUsedBudgetId: string | null;
}

export interface TokenInfo {
  /** Opaque id of the grant (never the token), for rate limiting and logs. */
  grantId: string;
  scope: 'full' | 'read-only';
  /** OAuth grants made with default budget selection have one; personal tokens do not. */
  defaultBudgetId: string | null;
}

/** Resolves a budget id path parameter: a UUID, `last-used` or `default`. */
export function resolveBudget(state: SandboxState, idParam: string, token: TokenInfo): BudgetStore {
  let id = idParam;
  if (idParam === 'last-used') {
    id = state.lastUsedBudgetId ?? state.budgets[0]?.id ?? '';
  } else if (idParam === 'default') {
    if (!token.defaultBudgetId) {
      throw resourceNotFound(
        'no default budget: default budget selection is only available to OAuth applications that enabled it; use "last-used" or a budget id',
      );
    }
    id = token.defaultBudgetId;
  }
  const budget = state.budgets.find((b) => b.id === id);
  if (!budget) throw resourceNotFound(`budget ${JSON.stringify(idParam)} was not found`);
  state.lastUsedBudgetId = budget.id;
  return budget;
}
