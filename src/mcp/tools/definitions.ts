/**
 * One MCP tool per v1 operation, derived from the operations table: its arguments (path, query
 * and body fields, money as decimal or milliunits), its output (the operation's `data` member,
 * compact by default, paged when a list), and annotations set explicitly.
 */
import * as z from 'zod';
import { memberName, OPERATIONS, type Operation } from '../../api/operations/index.js';
import type { OutputShape } from '../output/builder.js';
import type { EntityKind } from '../output/compact.js';
import { MAX_LIMIT } from '../output/page.js';
import { toolArgs, type ToolArgs } from './args.js';
import { FIELD_DOCS } from './field-docs.js';

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  op: Operation;
  name: string;
  title: string;
  description: string;
  args: ToolArgs;
  input: z.ZodObject;
  output: z.ZodObject;
  shape: OutputShape;
  annotations: ToolAnnotations;
  /** Accepts limit/cursor. */
  paged: boolean;
}

const KIND: Record<string, EntityKind> = {
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
  transaction_ids: 'transaction',
};

const HYBRID = new Set(['getTransactionsByCategory', 'getTransactionsByPayee']);

function shapeOf(op: Operation): OutputShape {
  const list = op.member.endsWith('s') && op.member !== 'settings' && op.id !== 'importTransactions';
  return {
    member: op.member,
    outputMember: memberName(op, op.member, 'budgets'),
    kind: HYBRID.has(op.id) ? 'hybrid_transaction' : KIND[op.member]!,
    list,
    nestedList: op.id === 'getPlanMonth' ? 'categories' : undefined,
    transactionTotals: op.member === 'transactions',
  };
}

/** Deletes remove data; updates overwrite it; creates only add. */
function annotations(op: Operation): ToolAnnotations {
  const read = op.access === 'read';
  const overwrites = op.method === 'DELETE' || op.method === 'PUT' || op.method === 'PATCH';
  return {
    title: op.tool.title,
    readOnlyHint: read,
    destructiveHint: !read && overwrites,
    // Reading, setting a value (PUT/PATCH) and deleting again leave the same state; creating does not.
    idempotentHint: read || overwrites,
    openWorldHint: true,
  };
}

const Identity = z.looseObject({ id: z.string().optional(), name: z.string().optional(), month: z.string().optional() });

const Freshness = z
  .looseObject({
    source: z.enum(['replica', 'cache', 'api']),
    synced_at: z.string(),
    age_seconds: z.int(),
    stale: z.boolean(),
    notice: z.string().optional(),
  })
  .describe('How fresh the answer is: from the local copy of the budget (replica), a short-lived cache, or the API just now.');

function outputSchema(shape: OutputShape): z.ZodObject {
  const member = shape.list
    ? z.array(Identity)
    : shape.member === 'transaction_ids'
      ? z.array(z.string())
      : shape.nestedList
        ? Identity.extend({ [shape.nestedList]: z.array(Identity) })
        : Identity;
  const money = (name: string) => ({ [`${name}_milliunits`]: z.int().optional(), [`${name}_formatted`]: z.string().optional() });
  return z.looseObject({
    [shape.outputMember]: member.nullable(),
    count: z.int().optional().describe('How many items match in all (not only this page).'),
    returned: z.int().optional(),
    has_more: z.boolean().optional(),
    next_cursor: z.string().optional().describe('Pass as cursor, with the same other arguments, for the next items.'),
    ...(shape.transactionTotals ? { ...money('total'), ...money('inflow'), ...money('outflow') } : {}),
    transaction_ids: z.array(z.string()).optional(),
    duplicate_import_ids: z.array(z.string()).optional(),
    freshness: Freshness.optional(),
    notices: z.array(z.string()).optional(),
    read_only: z.string().optional(),
  });
}

function define(op: Operation): ToolDefinition {
  const args = toolArgs(op);
  const shape = shapeOf(op);
  const paged = op.access === 'read' && (shape.list || !!shape.nestedList);
  const controls: Record<string, z.ZodType> = {};
  if (op.access === 'read' && op.id !== 'getUser' && op.id !== 'getPlanSettingsById') {
    controls.detail = z.enum(['compact', 'full']).optional().describe(FIELD_DOCS.detail!);
    controls.fields = z.array(z.string().min(1).max(64)).max(50).optional().describe(FIELD_DOCS.fields!);
  }
  if (paged) {
    controls.limit = z.int().min(1).max(MAX_LIMIT).optional().describe(FIELD_DOCS.limit!);
    controls.cursor = z.string().min(1).max(200).optional().describe(FIELD_DOCS.cursor!);
  }
  const usage = op.access === 'write' ? ' Changes the budget.' : paged ? ' Compact and paged (limit, cursor); detail "full" for every field.' : '';
  return {
    op,
    name: op.tool.name,
    title: op.tool.title,
    description: `${op.tool.description}${usage}`,
    args,
    input: z.strictObject({ ...args.shape, ...controls }),
    output: outputSchema(shape),
    shape,
    annotations: annotations(op),
    paged,
  };
}

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = OPERATIONS.map((op) => define(op as Operation));
