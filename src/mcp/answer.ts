/**
 * The answer to a tool call, as tools and resources both give it. One path for every tool:
 * arguments → the budget and names resolved (resolve.ts) → for an API tool, the request →
 * the service (replica, cache or API) → the one output builder; for an insight tool, its
 * compute function over the budget's local copy → structured content that names the budget
 * when it was not given by id, says how fresh it is, and carries a data notice when it holds
 * text typed by people, every string scrubbed of secrets and with control characters escaped
 * (output/sanitize.ts: the one place budget text enters answers). Tools add their text mirror
 * and error results (tools/run.ts); resources serve the same text (resources.ts, both through
 * output/untrusted.ts), so a resource and the tool it mirrors can never disagree.
 */
import type { OperationId } from '../api/operations/index.js';
import type { CurrencyFormat } from '../api/schemas/common.js';
import { BudgetView } from '../insights/view.js';
import { moneyWriter } from '../insights/format.js';
import type { ServiceResult } from '../sync/service.js';
import { followUp } from './after-write.js';
import { budgetList, resolveTarget, type Target } from './resolve.js';
import { leaveOutCategories } from './output/categories.js';
import { buildOutput, OutputTooLargeError } from './output/builder.js';
import type { CompactContext, Names } from './output/compact.js';
import { MAX_LIMIT, queryKey } from './output/page.js';
import { sanitize } from './output/sanitize.js';
import { USER_DATA_NOTICE } from './output/untrusted.js';
import type { ServerState } from './state.js';
import type { ApiTool, InsightTool, ToolDefinition } from './tools/definitions.js';

/** Room kept in an answer's size limit for what is added around the built output: the data notice and the budget's name. */
const ENVELOPE = JSON.stringify({ data_notice: USER_DATA_NOTICE }).length + 300;

/** Kinds whose results hold text typed by people (names, payees, memos, notes). */
const NO_USER_TEXT = new Set(['user', 'settings']);

export interface Answer {
  structured: Record<string, unknown>;
  /** The answer holds budget text (names, payees, memos): its text form must be marked as data. */
  userText: boolean;
  /** The budget answered about, and its currency format, when known (for views: views/view-meta.ts). */
  budgetId?: string;
  format?: CurrencyFormat | null;
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

function noticesFor(def: ApiTool, args: Record<string, unknown>, res: ServiceResult): string[] {
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

/** An API tool: the request through the service, then the output builder. */
async function apiAnswer(def: ApiTool, target: Target, state: ServerState): Promise<Record<string, unknown>> {
  const write = def.op.access === 'write';
  const args = target.args;
  const service = await state.service();
  const format = target.replica?.summary.currency_format;
  const call = def.args.toCall(args, { budget: target.budgetId ?? state.config.defaultBudget, decimalDigits: format ? format.decimal_digits : undefined });
  // Lists come lazily where they can: only the page shown is built.
  const res = await service.call(def.op.id as OperationId, call, { lazyLists: true });
  const after = write ? await followUp(state, def.op.id as OperationId, target.budgetId, res.data, call.params) : {};
  const data = after.data ?? res.data;
  const needNames = def.shape.kind === 'money_movement' || def.shape.kind === 'payee_location';
  const ctx = await compactContext(state, call.params.budget_id, needNames);
  const extras: Record<string, unknown> = {};
  if (data.transaction_ids && def.shape.member !== 'transaction_ids') extras.transaction_ids = data.transaction_ids;
  if (data.duplicate_import_ids) extras.duplicate_import_ids = data.duplicate_import_ids;
  if (data.not_applied) extras.not_applied = data.not_applied;
  Object.assign(extras, after.extras);
  if (res.freshness) extras.freshness = res.freshness;
  const notices = [...noticesFor(def, args, res), ...(after.notices ?? [])];
  if (Array.isArray(data.duplicate_import_ids) && data.duplicate_import_ids.length) {
    notices.push(`${data.duplicate_import_ids.length} transaction(s) already existed (same import_id on the same account) and were not created again: ${data.duplicate_import_ids.join(', ')}.`);
  }
  const shown = args.detail === 'full' || args.include_all === true ? { data, leftOut: 0 } : leaveOutCategories(def.op.id as OperationId, data);
  if (shown.leftOut) {
    extras.categories_left_out = shown.leftOut;
    notices.push(`${shown.leftOut} categories are left out: hidden, internal, or with every figure zero. include_all: true lists them.`);
  }
  if (state.readOnly && !write) extras.read_only = state.readOnlyReason();
  const built = buildOutput({
    shape: def.shape,
    data: shown.data,
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
    maxChars: state.config.maxResultChars - ENVELOPE,
  });
  return built.structured;
}

/** An insight tool: computed from the budget's copy, synced first when not fresh enough. */
async function insightAnswer(def: InsightTool, target: Target, state: ServerState): Promise<Record<string, unknown>> {
  const service = await state.service();
  const { replica, notice } = await service.replicas.fresh(target.budgetId!);
  const format = replica.summary.currency_format ?? null;
  const result = def.compute(
    {
      view: BudgetView.of(replica),
      today: new Date().toISOString().slice(0, 10),
      money: moneyWriter(format),
      format,
      digits: format?.decimal_digits,
      queryKey: queryKey(def.name, target.args),
    },
    target.args,
  );
  const notices = [...(result.notices ?? []), ...(notice ? [notice] : [])];
  const structured: Record<string, unknown> = { ...result.structured, freshness: service.replicas.freshnessOf(replica, notice), ...(notices.length ? { notices } : {}) };
  if (state.readOnly) structured.read_only = state.readOnlyReason();
  const size = JSON.stringify(structured).length;
  if (size > state.config.maxResultChars) {
    throw new OutputTooLargeError(`the answer is ${size} characters, over the limit of ${state.config.maxResultChars}; narrow the question (fewer days, a shorter period, filters)`);
  }
  return structured;
}

/** The budget's id and name, for answers where it was not given by id. */
async function budgetNamed(state: ServerState, target: Target): Promise<{ id: string; name: string } | undefined> {
  if (!target.named || !target.budgetId) return undefined;
  const held = (await state.service()).replicas.peek(target.budgetId);
  if (held) return { id: held.summary.id, name: held.summary.name };
  try {
    const b = (await budgetList(state)).find((x) => x.id === target.budgetId);
    return b ? { id: b.id, name: b.name } : undefined;
  } catch {
    return undefined; // the answer stands without the budget's name
  }
}

/**
 * Answers a tool call with arguments already validated against the tool's input schema.
 * Throws what resolution, the service or the builder throw; callers turn that into their own
 * kind of error (an isError tool result, a resources/read error).
 */
export async function answer(def: ToolDefinition, args: Record<string, unknown>, state: ServerState): Promise<Answer> {
  const target = await resolveTarget(def, args, state);
  const body = def.kind === 'api' ? await apiAnswer(def, target, state) : await insightAnswer(def, target, state);
  const budget = await budgetNamed(state, target);
  const userText = def.kind === 'insight' || (!NO_USER_TEXT.has(def.shape.kind) && def.shape.member !== 'transaction_ids');
  const marked = { ...(budget ? { budget } : {}), ...body, ...(userText ? { data_notice: USER_DATA_NOTICE } : {}) };
  const service = await state.service();
  const held = target.budgetId ? service.replicas.peek(target.budgetId) : undefined;
  return {
    structured: sanitize(marked, (text) => service.client.scrub(text)),
    userText,
    budgetId: held?.summary.id ?? target.budgetId,
    format: held?.summary.currency_format ?? null,
  };
}
