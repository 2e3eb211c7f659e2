/**
 * The answer to a read or write, as tools and resources both give it: arguments → the API
 * request → the service (replica, cache or API) → the one output builder → structured content,
 * with a data notice when it holds text typed by people, every string scrubbed of secrets and
 * with control characters escaped (output/sanitize.ts: the one place budget text enters answers).
 * Tools add their text mirror and error results (tools/run.ts); resources serve the same text
 * (resources.ts, both through output/untrusted.ts), so a resource and the tool it mirrors can
 * never disagree.
 */
import type { OperationId } from '../api/operations/index.js';
import type { ServiceResult } from '../sync/service.js';
import { buildOutput } from './output/builder.js';
import type { CompactContext, Names } from './output/compact.js';
import { MAX_LIMIT, queryKey } from './output/page.js';
import { sanitize } from './output/sanitize.js';
import { USER_DATA_NOTICE } from './output/untrusted.js';
import type { ServerState } from './state.js';
import type { ToolDefinition } from './tools/definitions.js';

/** Kinds whose results hold text typed by people (names, payees, memos, notes). */
const NO_USER_TEXT = new Set(['user', 'settings']);

export interface Answer {
  structured: Record<string, unknown>;
  /** The answer holds budget text (names, payees, memos): its text form must be marked as data. */
  userText: boolean;
}

async function compactContext(state: ServerState, budgetId: string | undefined, needNames: boolean): Promise<CompactContext> {
  const stack = await state.started();
  if (!stack || !budgetId) return { format: null };
  let replica = stack.replicas.peek(budgetId);
  if (!replica && needNames) {
    try {
      replica = (await stack.replicas.fresh(budgetId)).replica;
    } catch {
      // Names are a convenience; the answer stands without them.
    }
  }
  if (!replica) return { format: null };
  const names: Names = {
    category: (id) => (id ? (replica!.categories.get(id)?.name ?? null) : null),
    payee: (id) => (id ? (replica!.payees.get(id)?.name ?? null) : null),
  };
  return { format: replica.summary.currency_format ?? null, names };
}

function noticesFor(def: ToolDefinition, args: Record<string, unknown>, res: ServiceResult): string[] {
  const notices: string[] = [];
  const filtered = def.op.query.includes('since_date') && def.op.id !== 'getTransactionsByMonth';
  if (filtered && args.since_date === undefined) {
    notices.push('Only transactions from the last year are included (the API\'s default window); pass since_date for earlier ones.');
  }
  if (res.freshness?.stale && res.freshness.notice) notices.push(res.freshness.notice);
  // What a write went through (a lost answer, what was found, what was sent again).
  notices.push(...(res.notices ?? []));
  return notices;
}

/**
 * Runs one operation with tool arguments (already validated against the tool's input schema) and
 * builds its answer. Throws what the service or builder throw; callers turn that into their own
 * kind of error (an isError tool result, a resources/read error).
 */
export async function answer(def: ToolDefinition, args: Record<string, unknown>, state: ServerState): Promise<Answer> {
  const write = def.op.access === 'write';
  const service = await state.service();
  const call = def.args.toCall(args, state.config.defaultBudget);
  const res = await service.call(def.op.id as OperationId, call);
  const needNames = def.shape.kind === 'money_movement' || def.shape.kind === 'payee_location';
  const ctx = await compactContext(state, call.params.budget_id, needNames);
  const extras: Record<string, unknown> = {};
  if (res.data.transaction_ids && def.shape.member !== 'transaction_ids') extras.transaction_ids = res.data.transaction_ids;
  if (res.data.duplicate_import_ids) extras.duplicate_import_ids = res.data.duplicate_import_ids;
  if (res.data.not_applied) extras.not_applied = res.data.not_applied;
  if (res.freshness) extras.freshness = res.freshness;
  const notices = noticesFor(def, args, res);
  if (Array.isArray(res.data.duplicate_import_ids) && res.data.duplicate_import_ids.length) {
    notices.push(`${res.data.duplicate_import_ids.length} transaction(s) already existed (same import_id on the same account) and were not created again: ${res.data.duplicate_import_ids.join(', ')}.`);
  }
  if (state.readOnly && !write) extras.read_only = state.readOnlyReason();
  const built = buildOutput({
    shape: def.shape,
    data: res.data,
    options: {
      detail: args.detail as 'compact' | 'full' | undefined,
      fields: args.fields as string[] | undefined,
      // A write's answer lists everything it did; only reads are paged.
      limit: write ? MAX_LIMIT : (args.limit as number | undefined),
      cursor: args.cursor as string | undefined,
      queryKey: queryKey(def.name, args),
    },
    ctx,
    extras,
    notices,
    maxChars: state.config.maxResultChars,
  });
  const userText = !NO_USER_TEXT.has(def.shape.kind) && def.shape.member !== 'transaction_ids';
  const marked = userText ? { ...built.structured, data_notice: USER_DATA_NOTICE } : built.structured;
  return { structured: sanitize(marked, (text) => service.client.scrub(text)), userText };
}
