/** The shape of one declared operation, and the vocabulary it uses. */
import type * as z from 'zod';
import type { QueryName } from '../query.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Access = 'read' | 'write';
export type Scope = 'root' | 'list' | 'budget';
export type Era = 'plans' | 'budgets';

export const TOOLSETS = ['user', 'budgets', 'accounts', 'categories', 'months', 'payees', 'money_movements', 'transactions', 'scheduled'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/** What a write makes, as the write pipeline and the answer need to know it. */
export interface WriteFacts {
  /** create: adds an entity; update: changes one (several with `batch`); delete: removes one; import: has YNAB import from linked accounts. */
  makes: 'create' | 'update' | 'delete' | 'import';
  /** Takes several transactions in one request: past the bulk limit it is confirmed first (src/writes/policy.ts). */
  batch?: true;
  /** A create held when it looks like a transaction the account already has; allow_duplicate: true makes it anyway. */
  duplicateGuard?: true;
  /** What the answer reads back from the budget's copy once the write is merged: the transactions an import made, or the month's new Ready to Assign. */
  followUp?: 'imported-transactions' | 'ready-to-assign';
}

export interface Operation {
  /** operationId of the current (/plans) spec. */
  id: string;
  /** operationId in the /budgets-era spec where it differed. */
  legacyId?: string;
  method: Method;
  scope: Scope;
  path: string;
  /** Path parameters besides budget_id, in path order. */
  params: readonly string[];
  query: readonly QueryName[];
  /** Schema of the JSON body (wrapper included), for writes that take one. */
  body?: z.ZodType;
  /** The body's wrapper member(s), e.g. `transaction` or `transactions`. */
  bodyMembers?: readonly string[];
  /** Success status and the schema of `data`. */
  status: number;
  data: z.ZodObject;
  /** The member of `data` that holds the resource (plans-era name). */
  member: string;
  /** /budgets-era names of members of `data` that differ. */
  legacyMembers?: Readonly<Record<string, string>>;
  /**
   * Where the /budgets-era description (1.76) answers otherwise than the current one: another
   * success status, another `data` schema, fewer query parameters (one it does not know is
   * ignored there), no one-year default for since_date.
   */
  legacy?: { status?: number; data?: z.ZodObject; query?: readonly QueryName[]; sinceDateDefault?: false };
  /** Accepts last_knowledge_of_server. */
  delta: boolean;
  access: Access;
  /** Writes only: what the write makes (src/writes plans it, src/sync makes it exactly once). */
  write?: WriteFacts;
  toolset: Toolset;
  tool: { name: string; title: string; description: string };
}
