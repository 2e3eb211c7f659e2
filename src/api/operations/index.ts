/**
 * Every v1 operation, declared once, as data. The sandbox's routes, the client's request
 * functions and the MCP tools are all derived from this table; nothing else lists operations.
 *
 * Paths are written relative to their scope:
 *  - `root`:   an absolute path below /v1 (`/user`), the same in both eras;
 *  - `list`:   the budget list itself (`/plans` or `/budgets`);
 *  - `budget`: a path below `/{plans|budgets}/{budget_id}` (`/accounts/{account_id}`).
 * The /plans era (spec 1.79+) and the /budgets era serve the same operations; only the
 * members listed in `legacyMembers` are named differently under /budgets.
 */
import type { Era, Operation } from './types.js';
import { ACCOUNTS_OPERATIONS } from './accounts.js';
import { BUDGETS_OPERATIONS } from './budgets.js';
import { CATEGORIES_OPERATIONS } from './categories.js';
import { MONTHS_OPERATIONS } from './months.js';
import { PAYEES_OPERATIONS } from './payees.js';
import { SCHEDULED_OPERATIONS } from './scheduled.js';
import { TRANSACTIONS_OPERATIONS } from './transactions.js';

export * from './types.js';

/** The 44 operations, in the official description's order of areas. */
export const OPERATIONS = [
  ...BUDGETS_OPERATIONS,
  ...ACCOUNTS_OPERATIONS,
  ...CATEGORIES_OPERATIONS,
  ...PAYEES_OPERATIONS,
  ...MONTHS_OPERATIONS,
  ...TRANSACTIONS_OPERATIONS,
  ...SCHEDULED_OPERATIONS,
] as const satisfies readonly Operation[];

export type OperationId = (typeof OPERATIONS)[number]['id'];
/** The operations that change the budget: a table of write behaviour keyed by this misses none (a missing row is a compile error). */
export type WriteOperationId = Extract<(typeof OPERATIONS)[number], { access: 'write' }>['id'];

export const OPERATIONS_BY_ID: ReadonlyMap<OperationId, Operation> = new Map(OPERATIONS.map((op) => [op.id, op as Operation]));

export function operation(id: OperationId): Operation {
  const op = OPERATIONS_BY_ID.get(id);
  if (!op) throw new Error(`unknown operation ${id}`);
  return op;
}

/** The name of a `data` member in the given era (`plans` → `budgets` under /budgets). */
export function memberName(op: Operation, member: string, era: Era): string {
  return era === 'budgets' ? (op.legacyMembers?.[member] ?? member) : member;
}
