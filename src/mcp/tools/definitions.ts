/**
 * The tools: one per v1 operation, derived from the operations table (its arguments: path, query
 * and body fields, money as decimal or milliunits; its output: the operation's `data` member,
 * compact by default, paged when a list), the insight tools of insights.ts, computed from the
 * budget's local copy, and the task-shaped writes of tasks.ts. All kinds share one shape, one
 * registration and one answer path (../tool-answer.ts); every write runs one pipeline
 * (src/writes/pipeline/pipeline.ts), and a write that the `--writes` mode can hold takes `confirm_token`
 * (withConfirm). Annotations are set explicitly; output schemas are lean (the member that holds
 * the answer and its type: what paging, freshness and notices mean is said once, in the server's
 * instructions, not in every tool).
 */
import * as z from 'zod';
import { memberName, OPERATIONS, type Access, type Operation, type WriteFacts } from '../../api/operations/index.js';
import type { Claim } from '../../api/operations/claims.js';
import { FIELDS_APPLY_TO, type OutputShape } from '../output/builder.js';
import { fieldsDoc } from '../output/compact.js';
import type { McpToolset } from './toolsets.js';
import { canHold, PREVIEW_HINT, type WriteKind, type WriteMode } from '../../writes/pipeline/policy.js';
import type { Task } from '../../writes/pipeline/task.js';
import { CONTROLS, toolArgs, type ToolArgs } from './args.js';
import { BUDGET_ARG, guardedString } from '../../shared/arg-schemas.js';
import type { InsightSpec } from '../../insights/core/types.js';
import { INSIGHTS, type InsightRow } from './insights.js';
import { TASKS, type TaskSpec } from './tasks.js';

/**
 * What hosts may assume about a tool, stated where it means something: readOnlyHint always;
 * destructiveHint and idempotentHint for writes only (the protocol says they mean nothing for a
 * read-only tool), and only where they differ from the protocol's defaults (destructive: true,
 * idempotent: false), since every definition's bytes are paid for at the start of a conversation.
 * openWorldHint is left at the protocol's default, true: every tool reaches YNAB.
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
  /** `confirm`: the form a `--writes` mode offers with confirm_token (withConfirm). */
  form?: 'confirm';
  annotations: ToolAnnotations;
  /** The kinds of write it can make (none for reads): whether a mode can hold it (src/writes/pipeline/policy.ts). */
  kinds: readonly WriteKind[];
  /** What its description says of its answer, each with a call that shows it (not in tools/list: test/mcp/tool-claims.test.ts). */
  claims: readonly Claim[];
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

/** A tool computed from the budget's local copy (insights.ts; the computations are in src/insights). */
export interface InsightTool extends ToolBase {
  kind: 'insight';
  compute: InsightSpec['compute'];
  /** Reads the house rules (its context holds them). */
  rules?: true;
  /** Reads when this server reconciled each account (its context holds them). */
  reconciled?: true;
  /** Its answer carries the alerts fired since the client last asked (../pull-alerts.ts). */
  alerts?: true;
}

/** A task-shaped write (or the undo journal's list) of tasks.ts: its handler is in src/writes/. */
export interface TaskTool extends ToolBase {
  kind: 'task';
  task: Task;
}

export type ToolDefinition = ApiTool | InsightTool | TaskTool;

/** The output shape of an operation's answer, from its row's output facts. */
function shapeOf(op: Operation): OutputShape {
  const out = op.output;
  const member = out.member ?? op.member;
  return {
    member,
    outputMember: memberName(op, member, 'budgets'),
    kind: out.kind,
    list: out.list === true,
    nestedList: out.nestedList,
    totals: out.totals,
    ...(out.newestFirst ? { newestFirst: true } : {}),
  };
}

const READ: ToolAnnotations = { readOnlyHint: true };

/** A write's hints, the protocol's defaults left out (destructiveHint true, idempotentHint false). */
function writeHints(destructive: boolean, idempotent: boolean): ToolAnnotations {
  return { readOnlyHint: false, ...(destructive ? {} : { destructiveHint: false }), ...(idempotent ? { idempotentHint: true } : {}) };
}

/** Deletes remove data; updates overwrite it; creates only add. */
function annotations(op: Operation): ToolAnnotations {
  const read = op.access === 'read';
  const overwrites = op.method === 'DELETE' || op.method === 'PUT' || op.method === 'PATCH';
  if (read) return READ;
  // Setting a value (PUT/PATCH) and deleting again leave the same state; creating does not.
  return writeHints(overwrites, overwrites);
}

/** The member that holds the answer, and its type; what it holds is the tool description's business. */
function outputSchema(shape: OutputShape): z.ZodObject {
  return z.looseObject({ [shape.outputMember]: (shape.list ? z.array(z.unknown()) : z.looseObject({})).optional() });
}

function define(op: Operation): ApiTool {
  const shape = shapeOf(op);
  const paged = op.access === 'read' && (shape.list || !!shape.nestedList);
  // Which of the controls (args.ts) the tool takes, from its row's facts.
  const controls: Partial<typeof CONTROLS> = {};
  if (op.access === 'read' && !op.output.plain) Object.assign(controls, { detail: CONTROLS.detail, fields: fieldsArg(op.tool.name, shape) });
  if (op.output.categories) controls.include_all = CONTROLS.include_all;
  if (paged) Object.assign(controls, { limit: CONTROLS.limit, cursor: CONTROLS.cursor });
  // The duplicate guard holds a create that looks like one already there (src/writes/pipeline/duplicates.ts).
  if (op.write?.duplicateGuard) controls.allow_duplicate = CONTROLS.allow_duplicate;
  // A payee_name close to an existing payee is held (src/writes/pipeline/new-payees.ts).
  if (op.write?.newPayees) controls.allow_new_payee = CONTROLS.allow_new_payee;
  // An inflow at a payee only ever paid is held (src/writes/pipeline/inflows.ts).
  if (op.write?.inflowGuard) controls.allow_inflow = CONTROLS.allow_inflow;
  const tool: Omit<ApiTool, 'args' | 'input'> = {
    kind: 'api',
    op,
    name: op.tool.name,
    title: op.tool.title,
    description: op.tool.description,
    toolset: op.toolset,
    access: op.access,
    budget: op.scope === 'budget',
    output: outputSchema(shape),
    shape,
    annotations: annotations(op),
    kinds: writeKinds(op),
    claims: op.tool.claims ?? [],
    paged,
  };
  // Made on first use: a built server answers tools/list from the build's JSON Schemas, and
  // making 44 tools' arguments was the largest part of its own start (bench: footprint).
  const api = tool as ApiTool;
  lazily(api, 'args', () => toolArgs(op));
  lazily(api, 'input', (self) => z.strictObject({ ...self.args.shape, ...controls }));
  return api;
}

/** The first tool whose `fields` takes each list of names: a later one says "As in <that tool>." (40 KB for the 44 tools). */
const FIELDS_FIRST = new Map<string, string>();

/** `fields`, naming what it accepts for the kind it picks from (a group's categories: builder.ts). */
function fieldsArg(tool: string, shape: OutputShape) {
  const doc = fieldsDoc(FIELDS_APPLY_TO[shape.kind]?.kind ?? shape.kind);
  const first = FIELDS_FIRST.get(doc) ?? (FIELDS_FIRST.set(doc, tool), tool);
  const same = `As in ${first}.`;
  return CONTROLS.fields.describe(first === tool || doc.length <= same.length ? doc : same);
}

/** Makes `obj[key]` on its first read (then a plain property), for whatever object it is read from. */
function lazily<T extends object, K extends keyof T>(obj: T, key: K, make: (self: T) => T[K]): void {
  Object.defineProperty(obj, key, {
    configurable: true,
    enumerable: true,
    get(this: T) {
      const value = make(this);
      Object.defineProperty(this, key, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
  });
}

/** The kind of write each thing a write makes is, for the policy: an import adds transactions. */
const WRITE_KIND: Record<WriteFacts['makes'], WriteKind> = { create: 'create', import: 'create', update: 'update', delete: 'delete' };

/** The kinds of write an operation can make, for the policy (a batch is also bulk past 5 transactions). */
function writeKinds(op: Operation): WriteKind[] {
  if (!op.write) return [];
  // A first split is held as split_transaction's is, so the tool takes confirm_token in every mode.
  // Money filed under a hidden category is held as well (src/writes/pipeline/hidden-categories.ts).
  return [
    WRITE_KIND[op.write.makes],
    ...(op.write.batch ? ['bulk' as const] : []),
    ...(op.write.firstSplit ? ['split' as const] : []),
    ...(op.write.filesUnder ? ['hidden' as const] : []),
  ];
}

/** An insight tool from its row of the table: budget_id first, read-only, answered from the replica. */
function defineInsight(spec: InsightRow): InsightTool {
  return {
    kind: 'insight',
    name: spec.name,
    title: spec.title,
    description: spec.description,
    toolset: spec.toolset ?? 'insights',
    access: 'read',
    budget: true,
    input: z.strictObject({ budget_id: BUDGET_ARG, ...spec.input }),
    output: z.looseObject(spec.output),
    annotations: READ,
    kinds: [],
    claims: spec.claims ?? [],
    compute: spec.compute,
    ...(spec.rules ? { rules: true as const } : {}),
    ...(spec.reconciled ? { reconciled: true as const } : {}),
    ...(spec.alerts ? { alerts: true as const } : {}),
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
    annotations: spec.access === 'read' ? READ : writeHints(spec.destructive, false),
    kinds: spec.kinds,
    claims: spec.claims ?? [],
    task: spec.task,
  };
}

/** confirm_token: said once in the server's instructions, so not described here. */
const CONFIRM_TOKEN = guardedString(100).optional();

/**
 * Each definition as offered in each mode, made once: hosted mode builds a server per request, and
 * extending a zod schema every time cost more than answering from a held copy.
 */
const CONFIRMABLE = new WeakMap<ToolDefinition, Map<WriteMode, ToolDefinition>>();

/** The tool as offered in a `--writes` mode: a write the mode can hold says so and takes confirm_token. */
export function withConfirm<T extends ToolDefinition>(def: T, mode: WriteMode): T {
  if (def.access !== 'write' || !canHold(mode, def.kinds)) return def;
  let byMode = CONFIRMABLE.get(def);
  if (!byMode) CONFIRMABLE.set(def, (byMode = new Map()));
  let made = byMode.get(mode);
  if (!made) {
    // The properties copied as they are, so arguments not made yet are not made here either.
    made = Object.defineProperties({}, Object.getOwnPropertyDescriptors(def)) as ToolDefinition;
    Object.assign(made, { description: `${def.description} ${PREVIEW_HINT}`, form: 'confirm' });
    lazily(made, 'input', () => def.input.extend({ confirm_token: CONFIRM_TOKEN }));
    byMode.set(mode, made);
  }
  return made as T;
}

export const API_TOOLS: readonly ApiTool[] = OPERATIONS.map((op) => define(op));
export const INSIGHT_TOOLS: readonly InsightTool[] = INSIGHTS.map(defineInsight);
export const TASK_TOOLS: readonly TaskTool[] = TASKS.map(defineTask);
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [...API_TOOLS, ...INSIGHT_TOOLS, ...TASK_TOOLS];

/** The API tool of an operation's tool name (resources and prompts mirror API tools only). */
export function apiTool(name: string): ApiTool | undefined {
  return API_TOOLS.find((t) => t.name === name);
}
