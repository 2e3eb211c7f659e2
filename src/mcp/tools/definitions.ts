/**
 * The tools: one per v1 operation, derived from the operations table (its arguments: path, query
 * and body fields, money as decimal or milliunits; its output: the operation's `data` member,
 * compact by default, paged when a list), the insight tools of insights.ts, computed from the
 * budget's local copy, and the task-shaped writes of tasks.ts. All kinds share one shape, one
 * registration and one answer path (../tool-answer.ts); every write runs one pipeline
 * (src/writes/pipeline.ts), and a write that the `--writes` mode can hold takes `confirm_token`
 * (withConfirm). Annotations are set explicitly; output schemas are lean (the member that holds
 * the answer and its type: what paging, freshness and notices mean is said once, in the server's
 * instructions, not in every tool).
 */
import * as z from 'zod';
import { memberName, OPERATIONS, type Access, type Operation } from '../../api/operations/index.js';
import type { OutputShape } from '../output/builder.js';
import type { OutputKind } from '../output/compact.js';
import type { McpToolset } from '../toolsets.js';
import { canHold, PREVIEW_HINT, type WriteKind, type WriteMode } from '../../writes/policy.js';
import type { Task } from '../../writes/task.js';
import { toolArgs, type ToolArgs } from './args.js';
import { BUDGET_ARG, guardedString, PAGING } from '../../shared/arg-schemas.js';
import { FIELD_DOCS } from '../../shared/field-docs.js';
import { INSIGHTS, type InsightCompute, type InsightSpec } from './insights.js';
import { TASKS, type TaskSpec } from './tasks.js';

/**
 * What hosts may assume about a tool, stated where it means something: readOnlyHint always;
 * destructiveHint and idempotentHint for writes only (the protocol says they mean nothing for a
 * read-only tool). openWorldHint is left at the protocol's default, true: every tool reaches YNAB.
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

/** What every tool has, whatever answers it. */
interface ToolBase {
  name: string;
  title: string;
  description: string;
  toolset: McpToolset;
  access: Access;
  /** Takes budget_id (the budget's id, name or alias). */
  budget: boolean;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** The kinds of write it can make (none for reads): whether a mode can hold it (src/writes/policy.ts). */
  kinds: readonly WriteKind[];
}

/** A tool for one v1 operation: arguments → the API request → the output builder. */
export interface ApiTool extends ToolBase {
  kind: 'api';
  op: Operation;
  args: ToolArgs;
  shape: OutputShape;
  /** Accepts limit/cursor. */
  paged: boolean;
}

/** A tool computed from the budget's local copy (insights.ts). */
export interface InsightTool extends ToolBase {
  kind: 'insight';
  compute: InsightCompute;
}

/** A task-shaped write (or the undo journal's list) of tasks.ts: its handler is in src/writes/. */
export interface TaskTool extends ToolBase {
  kind: 'task';
  task: Task;
}

export type ToolDefinition = ApiTool | InsightTool | TaskTool;

const KIND: Record<string, OutputKind> = {
  user: 'user',
  plans: 'budget_summary',
  plan: 'budget_detail',
  settings: 'settings',
  accounts: 'account',
  account: 'account',
  category_groups: 'category_group',
  category_group: 'category_group',
  category: 'category',
  payees: 'payee',
  payee: 'payee',
  payee_locations: 'payee_location',
  payee_location: 'payee_location',
  months: 'month_summary',
  month: 'month_detail',
  money_movements: 'money_movement',
  money_movement_groups: 'money_movement_group',
  transactions: 'transaction',
  transaction: 'transaction',
  scheduled_transactions: 'scheduled_transaction',
  scheduled_transaction: 'scheduled_transaction',
};

const HYBRID = new Set(['getTransactionsByCategory', 'getTransactionsByPayee']);

function shapeOf(op: Operation): OutputShape {
  // An import answers with the transactions it created (read back after the write), not their ids.
  if (op.id === 'importTransactions') return { member: 'transactions', outputMember: 'transactions', kind: 'transaction', list: true };
  const list = op.member.endsWith('s') && op.member !== 'settings';
  return {
    member: op.member,
    outputMember: memberName(op, op.member, 'budgets'),
    kind: HYBRID.has(op.id) ? 'hybrid_transaction' : KIND[op.member]!,
    list,
    nestedList: op.id === 'getPlanMonth' ? 'categories' : undefined,
    transactionTotals: op.member === 'transactions',
  };
}

const READ: ToolAnnotations = { readOnlyHint: true };

/** Deletes remove data; updates overwrite it; creates only add. */
function annotations(op: Operation): ToolAnnotations {
  const read = op.access === 'read';
  const overwrites = op.method === 'DELETE' || op.method === 'PUT' || op.method === 'PATCH';
  if (read) return READ;
  // Setting a value (PUT/PATCH) and deleting again leave the same state; creating does not.
  return { readOnlyHint: false, destructiveHint: overwrites, idempotentHint: overwrites };
}

/** The member that holds the answer, and its type; what it holds is the tool description's business. */
function outputSchema(shape: OutputShape): z.ZodObject {
  return z.looseObject({ [shape.outputMember]: (shape.list ? z.array(z.unknown()) : z.looseObject({})).optional() });
}

function define(op: Operation): ApiTool {
  const args = toolArgs(op);
  const shape = shapeOf(op);
  const paged = op.access === 'read' && (shape.list || !!shape.nestedList);
  const controls: Record<string, z.ZodType> = {};
  if (op.access === 'read' && op.id !== 'getUser' && op.id !== 'getPlanSettingsById') {
    controls.detail = z.enum(['compact', 'full']).optional();
    controls.fields = FIELDS.optional();
  }
  if (CATEGORY_LISTS.has(op.id)) controls.include_all = z.boolean().optional().describe(FIELD_DOCS.include_all!);
  if (paged) Object.assign(controls, PAGING);
  // The duplicate guard holds a create that looks like one already there (src/writes/duplicates.ts).
  if (op.id === 'createTransaction') controls.allow_duplicate = z.boolean().optional();
  return {
    kind: 'api',
    op,
    name: op.tool.name,
    title: op.tool.title,
    description: op.tool.description,
    toolset: op.toolset,
    access: op.access,
    budget: op.scope === 'budget',
    args,
    input: z.strictObject({ ...args.shape, ...controls }),
    output: outputSchema(shape),
    shape,
    annotations: annotations(op),
    kinds: writeKinds(op),
    paged,
  };
}

/** The kinds of write an operation can make, for the policy (a bulk update is one past 5 transactions). */
function writeKinds(op: Operation): WriteKind[] {
  if (op.access === 'read') return [];
  if (op.method === 'DELETE') return ['delete'];
  if (op.id === 'updateTransactions') return ['update', 'bulk'];
  return [op.method === 'POST' ? 'create' : 'update'];
}

const FIELDS = z.array(guardedString(64)).refine((v) => v.length <= 50, { message: 'must hold at most 50 items' });

/** Lists whose compact form leaves out hidden and all-zero categories unless include_all. */
export const CATEGORY_LISTS: ReadonlySet<string> = new Set(['getCategories', 'getPlanMonth']);

/** An insight tool from its row of the table: budget_id first, read-only, answered from the replica. */
function defineInsight(spec: InsightSpec): InsightTool {
  return {
    kind: 'insight',
    name: spec.name,
    title: spec.title,
    description: spec.description,
    toolset: 'insights',
    access: 'read',
    budget: true,
    input: z.strictObject({ budget_id: BUDGET_ARG, ...spec.input }),
    output: z.looseObject(spec.output),
    annotations: READ,
    kinds: [],
    compute: spec.compute,
  };
}

/** A task tool from its row of tasks.ts. */
function defineTask(spec: TaskSpec): TaskTool {
  return {
    kind: 'task',
    name: spec.name,
    title: spec.title,
    description: spec.description,
    toolset: spec.toolset,
    access: spec.access,
    budget: true,
    input: z.strictObject({ budget_id: BUDGET_ARG, ...spec.task.input }),
    // Optional: a write may answer with a preview (or held duplicates) instead.
    output: z.looseObject(Object.fromEntries(Object.entries(spec.output).map(([k, v]) => [k, v.optional()]))),
    annotations: spec.access === 'read' ? READ : { readOnlyHint: false, destructiveHint: spec.destructive, idempotentHint: false },
    kinds: spec.kinds,
    task: spec.task,
  };
}

/** confirm_token: said once in the server's instructions, so not described here. */
const CONFIRM_TOKEN = guardedString(100).optional();

/** The tool as offered in a `--writes` mode: a write the mode can hold says so and takes confirm_token. */
export function withConfirm<T extends ToolDefinition>(def: T, mode: WriteMode): T {
  if (def.access !== 'write' || !canHold(mode, def.kinds)) return def;
  return { ...def, description: `${def.description} ${PREVIEW_HINT}`, input: def.input.extend({ confirm_token: CONFIRM_TOKEN }) };
}

export const API_TOOLS: readonly ApiTool[] = OPERATIONS.map((op) => define(op as Operation));
export const INSIGHT_TOOLS: readonly InsightTool[] = INSIGHTS.map(defineInsight);
export const TASK_TOOLS: readonly TaskTool[] = TASKS.map(defineTask);
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [...API_TOOLS, ...INSIGHT_TOOLS, ...TASK_TOOLS];

/** The API tool of an operation's tool name (resources and prompts mirror API tools only). */
export function apiTool(name: string): ApiTool | undefined {
  return API_TOOLS.find((t) => t.name === name);
}
