/**
 * The answer to a tool call, as tools and resources both give it. One path for every tool:
 * arguments → the budget and names resolved (resolve.ts) → for an API read, the request through
 * the service (replica, cache or API); for a write, API tool or task tool, the write pipeline
 * (src/writes/pipeline/pipeline.ts: plan, duplicate guard, gate, apply, undo journal, answer), which may
 * stop at a preview or ask the client's dialog (dialog.ts) → for an API tool, the one output
 * builder; for an insight tool, its compute function over the budget's local copy → structured
 * content that names the budget when it was not given by id, says how fresh it is, and carries
 * a data notice when it holds text typed by people, every string scrubbed of secrets and with
 * control characters escaped (output/sanitize.ts: the one place budget text enters answers). Tools add their text mirror
 * and error results (tools/run.ts); resources serve the same text (resources.ts, both through
 * output/untrusted.ts), so a resource and the tool it mirrors can never disagree.
 */
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import type { OperationId } from '../../api/operations/index.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';
import { BudgetView } from '../../insights/core/view.js';
import { moneyWriter } from '../../insights/core/format.js';
import { readyToAssignFields, readyToAssignIn, readyToAssignLine } from '../../insights/core/ready-to-assign.js';
import { formatMilliunits } from '../../api/money.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { ServiceResult } from '../../sync/service.js';
import { isWriteOperation, runApiWrite, type ApiWritten } from '../../writes/api-tools/api-plan.js';
import { NO_CONFIRM, type ConfirmInput } from '../../writes/pipeline/gate.js';
import type { WriteOutcome, WriteSetting } from '../../writes/pipeline/pipeline.js';
import { readTask, runTask } from '../../writes/pipeline/task-run.js';
import { askUser } from './dialog.js';
import { budgetList, resolveTarget, type Target } from '../resolve/resolve.js';
import { leaveOutCategories } from '../output/categories.js';
import { buildOutput, OutputTooLargeError } from '../output/builder.js';
import { fitPage } from '../output/fit.js';
import type { CompactContext, Names } from '../output/compact.js';
import { MAX_LIMIT, queryKey } from '../../shared/paging.js';
import { sanitize } from '../output/sanitize.js';
import { USER_DATA_NOTICE } from '../output/untrusted.js';
import type { ServerState } from '../state/state.js';
import { rehearsalNotice } from '../state/config.js';
import type { ApiTool, InsightTool, TaskTool, ToolDefinition } from '../tools/definitions.js';
import { apiToolArgs, type ApiToolArgs } from '../tools/args.js';

/** Room kept in an answer's size limit for what is added around the built output: the data notice and the budget's name. */
const ENVELOPE = JSON.stringify({ data_notice: USER_DATA_NOTICE }).length + 300;

/**
 * How fresh an answer is, as the answer says it: how many seconds old its data is, and
 * `stale: true` only when it could not be brought up to date (why is among the notices). Where
 * the data came from (the budget's copy, an answer held for a while, YNAB just now) and when it
 * was synced add nothing an assistant acts on, and would cost every answer some 75 bytes (a
 * typical answer is at most 2 KB); ynab://status shows when each budget's copy was synced.
 */
function answerFreshness(f: { age_seconds: number; stale: boolean }): Record<string, unknown> {
  return { age_seconds: f.age_seconds, ...(f.stale ? { stale: true } : {}) };
}

/** Kinds whose results hold text typed by people (names, payees, memos, notes). */
const NO_USER_TEXT = new Set(['user', 'settings']);

export interface Answer {
  structured: Record<string, unknown>;
  /** The answer holds budget text (names, payees, memos): its text form must be marked as data. */
  userText: boolean;
  /** The budget answered about, and its currency format, when known (for views: views/view-meta.ts). */
  budgetId?: string;
  format?: CurrencyFormat | null;
  /** A held write asks the user in the client's dialog (dialog.ts) instead of answering. */
  input?: InputRequiredResult;
}

/** A write's early end: a preview, a held duplicate, or the client's dialog. */
type Stop = { answer: Record<string, unknown> } | { input: InputRequiredResult };
/** What a kind of tool answers: its body, or where a write stopped. */
type Outcome = { body: Record<string, unknown> } | Stop;

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

function noticesFor(def: ApiTool, args: ApiToolArgs, res: ServiceResult): string[] {
  const notices: string[] = [];
  const filtered = def.op.query.includes('since_date') && def.op.sinceDateDefault !== false;
  if (filtered && args.since_date === undefined) {
    notices.push("Only transactions from the last year are included (the API's default window); pass since_date for earlier ones.");
  }
  if (res.freshness?.stale && res.freshness.notice) notices.push(res.freshness.notice);
  // What a write went through (a lost answer, what was found, what was sent again).
  notices.push(...(res.notices ?? []));
  return notices;
}

/** get_month: the furthest month's Ready to Assign beside the month's, and why, when they differ (ready-to-assign.ts). */
function laterReadyToAssign(data: any, replica: BudgetReplica | undefined, extras: Record<string, unknown>, notices: string[]): void {
  const month = data?.month?.month;
  const rta = replica && typeof month === 'string' ? readyToAssignIn(replica.months, month) : undefined;
  if (!rta?.latest) return;
  const format = replica!.summary.currency_format ?? null;
  const { ready_to_assign: _a, ready_to_assign_formatted: _f, ready_to_assign_month: _m, ...latest } = readyToAssignFields(rta, moneyWriter(format));
  Object.assign(extras, latest);
  notices.push(readyToAssignLine(rta, (v) => formatMilliunits(v, format))!);
}

/** What the --writes mode and the stack give the write pipeline. */
async function writeSetting(state: ServerState): Promise<WriteSetting> {
  const stack = await state.ready();
  return {
    service: stack.service,
    confirmTokens: stack.confirmTokens,
    changes: stack.changes,
    rules: stack.rules,
    reconciled: stack.events.reconciled,
    rehearsal: state.rehearsal,
    alerts: { answer: async (budgetId, args) => (await import('../../events/alerts.js')).alertsAnswer(stack.events, budgetId, args) },
    mode: state.config.writes,
    localFiles: state.config.localFiles,
  };
}

/** Where a write ended: its answer, or a stop (a preview, held duplicates, nothing to change), or the client's dialog. */
function ended<A>(outcome: WriteOutcome<A>): { body: A } | Stop {
  if ('ask' in outcome) return { input: askUser(outcome.ask) };
  if ('stop' in outcome) return { answer: outcome.stop };
  return outcome;
}

/** An API tool: a read through the service, a write through the write pipeline; then the output builder. */
async function apiAnswer(def: ApiTool, target: Target, state: ServerState, confirm: ConfirmInput): Promise<Outcome> {
  const write = def.op.access === 'write';
  const args = apiToolArgs(target.args);
  const service = await state.service();
  const format = target.replica?.summary.currency_format;
  const call = def.args.toCall(args, { budget: target.budgetId ?? state.config.defaultBudget, decimalDigits: format ? format.decimal_digits : undefined });
  let written: ApiWritten | undefined;
  if (write && isWriteOperation(def.op) && target.budgetId) {
    const w = ended(
      await runApiWrite(await writeSetting(state), {
        op: def.op,
        tool: def.name,
        budgetId: target.budgetId,
        call,
        allowDuplicate: args.allow_duplicate === true,
        allowNewPayee: args.allow_new_payee === true,
        allowInflow: args.allow_inflow === true,
        confirm,
      }),
    );
    if (!('body' in w)) return w;
    written = w.body;
  }
  // Lists come lazily where they can: only the page shown is built.
  const res = written?.res ?? (await service.call(def.op.id as OperationId, call, { lazyLists: true }));
  let data = written?.data ?? res.data;
  const needNames = def.shape.kind === 'money_movement' || def.shape.kind === 'payee_location';
  const ctx = await compactContext(state, call.params.budget_id, needNames);
  const extras: Record<string, unknown> = {};
  const lines = def.op.output.splitLines && target.budgetId ? service.replicas.peek(target.budgetId) : undefined;
  const split = lines ? (await import('./split-lines.js')).withSplitLines(data, def.shape.member, lines, ctx) : undefined;
  if (split) ({ data } = split);
  if (data.transaction_ids && def.shape.member !== 'transaction_ids') extras.transaction_ids = data.transaction_ids;
  // A write's own: duplicate import ids, what was not applied, what was read back after it, change_id.
  Object.assign(extras, written?.extras);
  if (res.freshness) extras.freshness = answerFreshness(res.freshness);
  const notices = [...noticesFor(def, args, res), ...(written?.notices ?? []), ...(split?.notices ?? [])];
  Object.assign(extras, split?.extras);
  if (def.shape.kind === 'month_detail' && target.budgetId) laterReadyToAssign(data, service.replicas.peek(target.budgetId), extras, notices);
  const shown = args.detail === 'full' || args.include_all === true ? { data, leftOut: 0 } : leaveOutCategories(def.op.output.categories, data);
  if (shown.leftOut) {
    extras.categories_left_out = shown.leftOut;
    notices.push(`${shown.leftOut} categories are left out: hidden, internal, or with every figure zero. include_all: true lists them.`);
  }
  if (state.readOnly && !write) extras.read_only = state.readOnlyReason();
  const built = buildOutput({
    shape: def.shape,
    data: shown.data,
    options: {
      detail: args.detail,
      fields: args.fields,
      // A write's answer lists everything it did; only reads are paged.
      limit: write ? MAX_LIMIT : args.limit,
      cursor: args.cursor,
      queryKey: queryKey(def.name, args),
    },
    ctx,
    extras,
    notices,
    maxChars: state.config.maxResultChars - ENVELOPE,
  });
  return { body: built.structured };
}

/** An insight tool: computed from the budget's copy, synced first when not fresh enough. */
async function insightAnswer(def: InsightTool, target: Target, state: ServerState, caller?: string): Promise<Outcome> {
  const service = await state.service();
  const { replica, notice } = await service.replicas.fresh(target.budgetId!);
  const format = replica.summary.currency_format ?? null;
  // needs_attention's overview: the alerts new to the asking client (pull-alerts.ts), room left for them.
  const pulled =
    def.alerts && caller && target.args.kind === undefined
      ? await (await import('../events/pull-alerts.js')).pulledAlerts((await state.ready()).events, replica, caller, target.args.detail === 'full')
      : undefined;
  const ctx = {
    view: BudgetView.of(replica),
    today: new Date().toISOString().slice(0, 10),
    money: moneyWriter(format),
    format,
    digits: format?.decimal_digits,
    queryKey: queryKey(def.name, target.args),
    // The house rules, for an insight that reads them (review_transactions puts a rule's category first).
    ...(def.rules ? { rules: await (await state.ready()).rules.list(replica.summary.id) } : {}),
    // When this server reconciled each account, for an insight that counts it (needs_attention).
    ...(def.reconciled ? { reconciled: await (await state.ready()).events.reconciled.get(replica.summary.id) } : {}),
    ...(pulled ? { room: JSON.stringify(pulled.fields).length } : {}),
  };
  // A paged insight too large for one answer holds fewer rows and says how to get the rest.
  const said = new Map<Record<string, unknown>, string[]>();
  const fit = await fitPage(
    async (limit) => {
      const r = await def.compute(ctx, limit ? { ...target.args, limit } : target.args);
      said.set(r.structured, r.notices ?? []);
      return r.structured;
    },
    state.config.maxResultChars - ENVELOPE - 400,
  );
  const notices = [...said.get(fit.body)!, ...(fit.notice ? [fit.notice] : []), ...(notice ? [notice] : []), ...service.replicas.takeNotes(replica.summary.id)];
  const structured: Record<string, unknown> = {
    ...fit.body,
    freshness: answerFreshness(service.replicas.freshnessOf(replica, notice)),
    ...(notices.length ? { notices } : {}),
    ...pulled?.fields,
  };
  if (state.readOnly) structured.read_only = state.readOnlyReason();
  const size = JSON.stringify(structured).length;
  if (size > state.config.maxResultChars) {
    throw new OutputTooLargeError(
      `the answer is ${size} characters, over the limit of ${state.config.maxResultChars}; narrow the question (fewer days, a shorter period, filters)`,
    );
  }
  await pulled?.commit();
  return { body: structured };
}

/** A task tool: a write through the write pipeline (its handler plans it), or a read of the budget's copy. */
async function taskAnswer(def: TaskTool, target: Target, state: ServerState, confirm: ConfirmInput): Promise<Outcome> {
  const setting = await writeSetting(state);
  const call = { tool: def.name, budgetId: target.budgetId!, args: target.args };
  if ('read' in def.task) {
    const task = def.task;
    const read = await readTask(setting, { ...call, task });
    // The journal's list, too large for one answer, holds fewer changes and says how many are left.
    const fit = await fitPage(
      async (limit) => (limit ? (await readTask(setting, { ...call, args: { ...call.args, limit }, task })).body : read.body),
      state.config.maxResultChars - ENVELOPE - 400,
    );
    const notices = [...(read.notice ? [read.notice] : []), ...(fit.notice ? [fit.notice] : [])];
    return { body: { ...fit.body, freshness: answerFreshness(read.freshness), ...(notices.length ? { notices } : {}) } };
  }
  return ended(await runTask(setting, { ...call, task: def.task, kinds: def.kinds }, confirm));
}

/**
 * Runs `fn`, which answers from the copy of `budget` without writing; when a copy read from a saved
 * one makes it throw, the copy is dropped (sync/manager.ts dropBroken) and `fn` runs once more, on
 * a full sync, its answer saying why: a broken copy never answers "Internal error" twice.
 */
async function fromCopy<T>(state: ServerState, budget: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!budget || !(await (await state.service()).replicas.dropBroken(budget, e))) throw e;
    return fn();
  }
}

/** Reads: what can be answered again after a broken copy was dropped, since nothing was written. */
const reads = (def: ToolDefinition) => def.kind === 'insight' || (def.kind === 'api' ? def.op.access !== 'write' : 'read' in def.task);

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
export async function answer(
  def: ToolDefinition,
  rawArgs: Record<string, unknown>,
  state: ServerState,
  confirm: ConfirmInput = NO_CONFIRM,
  /** The client asking, for the alerts it pulls (pull-alerts.ts). */
  caller?: string,
): Promise<Answer> {
  // The token is the gate's business, not an argument of the request (nor part of what it binds).
  const { confirm_token: token, ...args } = rawArgs;
  // Resolving names writes nothing, whatever the tool.
  const target = await fromCopy(state, typeof args.budget_id === 'string' ? args.budget_id : state.config.defaultBudget, () => resolveTarget(def, args, state));
  const asked = { ...confirm, token: typeof token === 'string' ? token : confirm.token };
  const run = () =>
    def.kind === 'api'
      ? apiAnswer(def, target, state, asked)
      : def.kind === 'task'
        ? taskAnswer(def, target, state, asked)
        : insightAnswer(def, target, state, caller);
  const result = reads(def) ? await fromCopy(state, target.budgetId, run) : await run();
  if ('input' in result) return { structured: {}, userText: false, input: result.input };
  const built = 'answer' in result ? result.answer : result.body;
  // The call that took the session's default budget says which (resolve.ts).
  // Names taken as people say them: the answer says which each was taken as (names.ts).
  const told = [...(target.notice ? [target.notice] : []), ...(target.taken ?? [])];
  const body = told.length ? { ...built, notices: [...told, ...((built.notices as string[] | undefined) ?? [])] } : built;
  const budget = await budgetNamed(state, target);
  // A budget's name is text its owner typed: an answer that names the budget is marked too.
  const userText = budget !== undefined || def.kind !== 'api' || (!NO_USER_TEXT.has(def.shape.kind) && def.shape.member !== 'transaction_ids');
  // A rehearsal says so first, on every answer (docs/rehearsal.md).
  const rehearsal = state.config.rehearsal ? { rehearsal: rehearsalNotice(state.config.rehearsal) } : {};
  const marked = { ...rehearsal, ...(budget ? { budget } : {}), ...body, ...(userText ? { data_notice: USER_DATA_NOTICE } : {}) };
  const service = await state.service();
  const held = target.budgetId ? service.replicas.peek(target.budgetId) : undefined;
  return {
    structured: sanitize(marked, (text) => service.client.scrub(text)),
    userText,
    budgetId: held?.summary.id ?? target.budgetId,
    format: held?.summary.currency_format ?? null,
  };
}
