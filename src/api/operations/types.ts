/**
 * The shape of one declared operation, and the vocabulary it uses.
 *
 * Every fact about an operation is said once, on its row; code elsewhere reads the fact, never
 * the operation's id. Where a layer implements something per operation (how the replica answers
 * a read, how a create is recognised after a lost answer), its table is keyed by an id union
 * derived from the rows (index.ts: WriteOperationId, ReplicaOperationId, IdentityCreateId, …), so
 * that a row added without its entry is a compile error. The facts, and who reads them:
 *
 *   id, legacyId, method, scope, path, params, query, legacy, legacyMembers
 *       the request in each era: api/paths.ts (routes and paths), api/client (requests and
 *       member renames), the sandbox (its routes), test/contract (against the descriptions);
 *       mcp/tools/args.ts (tool arguments from params and query); sync/writes.ts and
 *       sync/transaction-updates.ts (the id a path names: the transaction, what a delete removes).
 *   body, bodyMembers
 *       the request body: api/argument-check.ts, the sandbox; mcp/tools/args.ts flattens it;
 *       sync/creates.ts (what a create of one entity sent).
 *   bodyArgs      how the tool offers the body when not flattened as it is (a list of
 *                 transactions; every field optional): mcp/tools/args.ts.
 *   status, data, member
 *       the answer: api/client, the sandbox; the member the tools answer with
 *       (mcp/tools/definitions.ts); what a write recovered after a lost answer answers with
 *       (sync/creates.ts, sync/writes.ts).
 *   delta         accepts last_knowledge_of_server (the same as `query` listing it; said for the reader).
 *   sinceDateDefault
 *                 false where a list's since_date has no one-year default (a month bounds it):
 *                 `noticesFor` in mcp/answer/tool-answer.ts says the default window only where it applies.
 *   access        read or write: sync/service.ts (writes go through sync/writes.ts), the policy
 *                 (src/writes), the tools' annotations (mcp/tools/definitions.ts).
 *   read.replica  the budget's replica answers it (unless a delta is asked for): sync/service.ts
 *                 routes it there, sync/replica-reads.ts answers it (REPLICA_READS, keyed by
 *                 ReplicaOperationId).
 *   read.cache    how long YNAB's answer to any other read is reused, and which writes make it old
 *                 (CacheClass): sync/service.ts.
 *   write         what a write makes and how it is made exactly once (WriteFacts): src/writes (plans,
 *                 the policy, the duplicate guard), mcp/tools/definitions.ts (write kinds,
 *                 allow_duplicate), writes/pipeline/follow-ups.ts (follow-up reads), sync/writes.ts,
 *                 sync/creates.ts, sync/create-match.ts, sync/transaction-updates.ts (exactlyOnce).
 *   output        what the answer holds and how the tools show it (OutputFacts):
 *                 mcp/tools/definitions.ts (the output shape for mcp/output/builder.ts; paging,
 *                 detail, fields and include_all arguments), mcp/output/categories.ts (category lists).
 *   toolset, tool the tool's toolset, name, title, description and the claims the description makes
 *                 of its answer (claims.ts; checked by test/mcp/tool-claims.test.ts): mcp/tools/definitions.ts,
 *                 mcp/tools/toolsets.ts, api/client (a refused write names its tool).
 *
 * test/api/operations-facts.test.ts checks that the facts agree with each other.
 */
import type { Claim } from './claims.js';
import type * as z from 'zod';
import type { QueryName } from '../query.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Access = 'read' | 'write';
export type Scope = 'root' | 'list' | 'budget';
export type Era = 'plans' | 'budgets';

export const TOOLSETS = ['user', 'budgets', 'accounts', 'categories', 'months', 'payees', 'money_movements', 'transactions', 'scheduled'] as const;
export type Toolset = (typeof TOOLSETS)[number];

/**
 * The kinds of entity an answer holds, each with its compact form (src/mcp/output/compact.ts).
 * `category_row` is a category as a row of a list; no operation answers with it as such.
 */
export type OutputKind =
  | 'user'
  | 'budget_summary'
  | 'budget_detail'
  | 'settings'
  | 'account'
  | 'category_group'
  | 'category'
  | 'category_row'
  | 'payee'
  | 'payee_location'
  | 'month_summary'
  | 'month_detail'
  | 'money_movement'
  | 'money_movement_group'
  | 'transaction'
  | 'hybrid_transaction'
  | 'scheduled_transaction';

/** What an answer holds, and how the tools show it (src/mcp/tools/definitions.ts, src/mcp/output). */
export interface OutputFacts {
  /** The kind of entity (its compact form). */
  kind: OutputKind;
  /** The answer's member is a list of them: a read's is paged (limit, cursor). */
  list?: true;
  /** One entity holding a long list, paged by a read: that list's member (a month's categories). */
  nestedList?: 'categories';
  /**
   * The answer's totals over every row, not only the page shown: a list of transactions carries
   * the total, inflow and outflow of every row that matched; a list of accounts its balances by
   * kind (api/account-kinds.ts) and the net worth.
   */
  totals?: 'transactions' | 'accounts';
  /** The member the tool answers with, where not `member`: an import answers with the transactions it made (read back: write.followUp). */
  member?: string;
  /** A list of months shown newest first (the API's order is oldest first: last month would be on a later page). */
  newestFirst?: true;
  /** Too small to have a compact form worth choosing: the tool takes neither `detail` nor `fields`. */
  plain?: true;
  /**
   * A category list whose compact form leaves out hidden, internal and all-zero categories unless
   * `include_all` (src/mcp/output/categories.ts): a month's categories, or the categories of each group.
   */
  categories?: 'month' | 'groups';
  /**
   * A split the API lists whole (a payee's list gives a split whose payee it is as one row, category
   * "Split") is shown as its lines, each its own row, and the answer says how much of its total
   * went to other accounts (src/mcp/answer/split-lines.ts).
   */
  splitLines?: true;
}

/**
 * How long an answer from YNAB is reused (src/sync/service.ts, ServiceOptions.ttl), and what makes
 * it old before then:
 *  - user:    the signed-in user (an hour); no write changes it;
 *  - budgets: the budget list (five minutes); any write (it shows when each budget last changed);
 *  - budget:  anything of one budget (as long as its replica may be stale); a write to that budget.
 */
export type CacheClass = 'user' | 'budgets' | 'budget';

/** Where a read's answer comes from (src/sync/service.ts). */
export interface ReadFacts {
  /**
   * The budget's replica answers it (src/sync/replica-reads.ts), unless a delta
   * (last_knowledge_of_server) is asked for; otherwise YNAB does, and its answer is kept (`cache`).
   */
  replica: boolean;
  cache: CacheClass;
}

/**
 * How src/sync/writes.ts makes a write exactly once when its answer is lost:
 *  - identity-list: creates several transactions in one request, each recognised by identity
 *    among what no call of ours made (src/sync/creates.ts `transactions`);
 *  - identity:      creates one entity, recognised the same way (src/sync/creates.ts `one`); both
 *    have a CreateKind in src/sync/create-match.ts;
 *  - compare:       updates transactions: re-read and compared, sent again only when the change is
 *    not there; what the answer shows is compared with what was sent (src/sync/transaction-updates.ts);
 *  - gone:          deletes: done when the entity is gone;
 *  - resend:        sets a value (a name, an assigned amount) or has YNAB import: sending it again is harmless.
 */
export type ExactlyOnce = 'identity-list' | 'identity' | 'compare' | 'gone' | 'resend';

/** What a write makes, as the write pipeline and the answer need to know it. */
export interface WriteFacts {
  /** create: adds an entity; update: changes one (several with `batch`); delete: removes one; import: has YNAB import from linked accounts. */
  makes: 'create' | 'update' | 'delete' | 'import';
  /** Takes several transactions in one request: past the bulk limit it is confirmed first (src/writes/pipeline/policy.ts). */
  batch?: true;
  /** A create held when it looks like a transaction the account already has; allow_duplicate: true makes it anyway. */
  duplicateGuard?: true;
  /** Takes payee_name, which makes a payee no payee has: a name close to one is held; allow_new_payee: true makes it (src/writes/pipeline/new-payees.ts). */
  newPayees?: true;
  /** Makes transactions from a model's amounts: an inflow at a payee only ever paid is held; allow_inflow: true makes it (src/writes/pipeline/inflows.ts). */
  inflowGuard?: true;
  /** Files money under a category: under a hidden one it is held for confirmation (kind 'hidden', src/writes/pipeline/hidden-categories.ts). */
  filesUnder?: true;
  /** Takes subtransactions: a first split is held for confirmation as split_transaction's is (kind 'split', src/writes/pipeline/policy.ts). */
  firstSplit?: true;
  /** A payee_name a house rule renames is sent as the rule's payee, with a notice (src/writes/rules/create-rules.ts). */
  renamesByRules?: true;
  /** What the answer reads back from the budget's copy once the write is merged: the transactions an import made, or the month's new Ready to Assign. */
  followUp?: 'imported-transactions' | 'ready-to-assign';
  /** How it is made exactly once when its answer is lost (src/sync/writes.ts). */
  exactlyOnce: ExactlyOnce;
}

/**
 * How a tool offers the body, where not as the fields of its one wrapper member (src/mcp/tools/args.ts):
 *  - list:    a list of items under `member`, always sent in the list form (so that a duplicate
 *             import id is reported per item rather than failing the whole call); `doc` describes it;
 *  - partial: the fields of its one member, every one optional (a PUT that changes only the fields given).
 */
/**
 * `defaults`: what each item of a list holds when the tool's caller leaves it out (a transaction
 * logged from the user's own words is approved, as one typed into YNAB's app is).
 */
export type BodyArgs = { kind: 'list'; member: string; doc: string; defaults?: Readonly<Record<string, unknown>> } | { kind: 'partial' };

interface OperationBase {
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
  /** How the tool offers the body, where not flattened as it is. */
  bodyArgs?: BodyArgs;
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
  /** A transaction list whose since_date has no one-year default (a month bounds it). */
  sinceDateDefault?: false;
  /** What the answer holds, and how the tools show it. */
  output: OutputFacts;
  toolset: Toolset;
  /** The tool: its name, title and description, and what the description says of its answer (claims.ts). */
  tool: { name: string; title: string; description: string; claims?: readonly Claim[] };
}

/** An operation that only reads: where its answer comes from. */
export interface ReadOperation extends OperationBase {
  access: 'read';
  read: ReadFacts;
  write?: never;
}

/** An operation that changes the budget: what it makes (src/writes plans it, src/sync makes it exactly once). */
export interface WriteOperation extends OperationBase {
  access: 'write';
  write: WriteFacts;
  read?: never;
}

export type Operation = ReadOperation | WriteOperation;
