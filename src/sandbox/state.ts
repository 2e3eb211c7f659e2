/**
 * The whole sandbox: its users, each with their budgets in display order, the budget they used
 * last, and their personal tokens. A token belongs to one user and reaches only that user's
 * budgets. `budgets` and `userId` are the first user's, for callers that serve one user.
 */
import { resourceNotFound } from './errors.js';
import type { BudgetStore } from './store/budget-store.js';

export interface SandboxUser {
  id: string;
  email: string;
  budgets: BudgetStore[];
  lastUsedBudgetId: string | null;
  accessToken: string;
  readOnlyToken: string;
}

export interface SandboxState {
  users: SandboxUser[];
  /** The first user's budgets and id. */
  readonly budgets: BudgetStore[];
  readonly userId: string;
  /** Told when a user's last-used budget changes (it is state, saved like the rest). */
  onLastUsed?: (user: SandboxUser) => void;
}

export function sandboxState(users: SandboxUser[]): SandboxState {
  return {
    users,
    get budgets() {
      return users[0]!.budgets;
    },
    get userId() {
      return users[0]!.id;
    },
  };
}

export interface TokenInfo {
  /** Opaque id of the grant (never the token), for rate limiting and logs. */
  grantId: string;
  scope: 'full' | 'read-only';
  /** The user the token acts for. */
  userId: string;
  /** OAuth grants made with default budget selection have one; personal tokens do not. */
  defaultBudgetId: string | null;
}

/** The user a token acts for (an unknown user is a 401 at authentication, so it is there). */
export function userOf(state: SandboxState, token: TokenInfo): SandboxUser {
  const user = state.users.find((u) => u.id === token.userId);
  if (!user) throw new Error(`sandbox: no user ${token.userId}`);
  return user;
}

/** Resolves a budget id path parameter among the user's budgets: a UUID, `last-used` or `default`. */
export function resolveBudget(state: SandboxState, idParam: string, token: TokenInfo): BudgetStore {
  const user = userOf(state, token);
  let id = idParam;
  if (idParam === 'last-used') {
    id = user.lastUsedBudgetId ?? user.budgets[0]?.id ?? '';
  } else if (idParam === 'default') {
    if (!token.defaultBudgetId) {
      throw resourceNotFound(
        'no default budget: default budget selection is only available to OAuth applications that enabled it; use "last-used" or a budget id',
      );
    }
    id = token.defaultBudgetId;
  }
  // Another user's budget is not found, exactly like one that does not exist.
  const budget = user.budgets.find((b) => b.id === id);
  if (!budget) throw resourceNotFound(`budget ${JSON.stringify(idParam)} was not found`);
  if (user.lastUsedBudgetId !== budget.id) {
    user.lastUsedBudgetId = budget.id;
    state.onLastUsed?.(user);
  }
  return budget;
}
