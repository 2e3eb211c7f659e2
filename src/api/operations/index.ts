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

type Row = (typeof OPERATIONS)[number];

/*
 * Ids of the operations that share a fact (types.ts). A layer's table of behaviour keyed by one of
 * these misses none: a row added with the fact and without its entry is a compile error.
 */
export type OperationId = Row['id'];
/** The operations that change the budget. */
export type WriteOperationId = Extract<Row, { access: 'write' }>['id'];
/** The reads a budget's replica answers (src/sync/replica-reads.ts). */
export type ReplicaOperationId = Extract<Row, { read: { replica: true } }>['id'];
/** The creates recognised by identity after a lost answer (src/sync/create-match.ts). */
export type IdentityCreateId = Extract<Row, { write: { exactlyOnce: 'identity' | 'identity-list' } }>['id'];
/** The creates of one entity among them (src/sync/creates.ts `one`). */
export type SingleCreateId = Extract<Row, { write: { exactlyOnce: 'identity' } }>['id'];

export const OPERATIONS_BY_ID: ReadonlyMap<OperationId, Operation> = new Map<OperationId, Operation>(OPERATIONS.map((op) => [op.id, op]));

export function operation(id: OperationId): Operation {
  const op = OPERATIONS_BY_ID.get(id);
  if (!op) throw new Error(`unknown operation ${id}`);
  return op;
}

/** The name of a `data` member in the given era (`plans` → `budgets` under /budgets). */
export function memberName(op: Operation, member: string, era: Era): string {
  return era === 'budgets' ? (op.legacyMembers?.[member] ?? member) : member;
}
