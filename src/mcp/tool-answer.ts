/**
 * The answer to a tool call, as tools and resources both give it. One path for every tool:
 * arguments → the budget and names resolved (resolve.ts) → for an API tool, the request →
 * (a write: its plan through the gate, guard.ts: a preview, or on) → the service (replica,
 * cache or API) → the one output builder, and a write journaled for undo; for an insight tool,
 * its compute function over the budget's local copy; for a task tool, its plan through the same
 * gate, then its apply (tools/tasks.ts) → structured content that names the budget
 * when it was not given by id, says how fresh it is, and carries a data notice when it holds
 * text typed by people, every string scrubbed of secrets and with control characters escaped
 * (output/sanitize.ts: the one place budget text enters answers). Tools add their text mirror
 * and error results (tools/run.ts); resources serve the same text (resources.ts, both through
 * output/untrusted.ts), so a resource and the tool it mirrors can never disagree.
 */
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import { checkCallArguments } from '../api/argument-check.js';
import type { CallArgs } from '../api/client/client.js';
import type { OperationId } from '../api/operations/index.js';
import type { CurrencyFormat } from '../api/schemas/common.js';
import { BudgetView } from '../insights/view.js';
import { moneyWriter } from '../insights/format.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { ServiceResult } from '../sync/service.js';
import { closedAccountNotices } from '../writes/checks.js';
import { currentState, shownBy } from '../writes/entities.js';
import { duplicateCandidates } from '../writes/duplicates.js';
import { apiWriteKinds, draftApiWrite, planApiWrite } from '../writes/api-plans.js';
import { canHold, mustConfirm } from '../writes/policy.js';
import { StepError, Writer } from '../writes/steps.js';
import { followUp } from './after-write.js';
import { gate, recordChange, NO_CONFIRM, type ConfirmInput } from './guard.js';
import { budgetList, resolveTarget, type Target } from './resolve.js';
import { leaveOutCategories } from './output/categories.js';
import { buildOutput, OutputTooLargeError } from './output/builder.js';
import type { CompactContext, Names } from './output/compact.js';
import { MAX_LIMIT, queryKey } from '../shared/paging.js';
import { sanitize } from './output/sanitize.js';
import { USER_DATA_NOTICE } from './output/untrusted.js';
import type { ServerState } from './state.js';
import type { ApiTool, InsightTool, TaskTool, ToolDefinition } from './tools/definitions.js';
import { apiToolArgs, type ApiToolArgs } from './tools/args.js';
import { txnRow, type TaskContext } from '../writes/task.js';

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
  /** A held write asks the user in the client's dialog (guard.ts) instead of answering. */
  input?: InputRequiredResult;
}

/** A write's early end: a preview, a held duplicate, or the client's dialog. */
type Stop = { answer: Record<string, unknown> } | { input: InputRequiredResult };
/** What a kind of tool answers: its body, or where a write stopped. */
type Outcome = { body: Record<string, unknown> } | Stop;

/**
 * How old a copy a write's plan may read: a confirm is checked against YNAB now (the entities must
 * not have changed since the preview); a write that may be held, against a copy synced within the
 * last second (its preview must show YNAB's state); any other, as reads are.
 */
function planAge(confirm: ConfirmInput, holdable: boolean): number | undefined {
  if (confirm.token || confirm.dialog) return 0;
  return holdable ? 1000 : undefined;
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

/**
 * Before an API write: the duplicate guard (creates), then its plan through the gate. Returns the
 * plan to journal once applied, or where the call stops (a preview, held duplicates, a dialog).
 */
async function beforeApiWrite(
  def: ApiTool,
  target: Target,
  call: CallArgs,
  state: ServerState,
  confirm: ConfirmInput,
): Promise<{ plan?: ReturnType<typeof planApiWrite>; replica?: BudgetReplica } | Stop> {
  if (!def.op.id || def.op.scope !== 'budget' || !target.budgetId) return {};
  // What can never be sent (half a character, "." as an id) is refused before anything is planned.
  checkCallArguments(def.op, call);
  const service = await state.service();
  const id = def.op.id as OperationId;
  const holdable = mustConfirm(state.config.writes, apiWriteKinds(id, call));
  // A direct write reads the entities it changes from the copy as our writes left it (no request
  // before each of a run of writes); a held one, from YNAB now.
  const { replica } = await service.replicas.fresh(target.budgetId, planAge(confirm, holdable), { dirtyOk: !holdable && !confirm.token && !confirm.dialog });
  const shown = shownBy(replica);
  if (def.op.write?.duplicateGuard && target.args.allow_duplicate !== true) {
    // A transaction with an import_id is kept unique by YNAB itself (per account and import_id).
    const all = (call.body as { transactions: Record<string, any>[] }).transactions;
    const items = all.filter((t) => !t.import_id);
    const dup = duplicateCandidates(replica, items as never).map((d) => ({ ...d, index: all.indexOf(items[d.index]!) }));
    if (dup.length) {
      return {
        answer: {
          held: 'duplicate',
          duplicate_candidates: dup.map((d) => ({
            index: d.index,
            candidates: d.candidates.map((t) => txnRow(shown, t.id, transactionStateOf(replica, t.id))),
          })),
          message: `Nothing was created: ${dup.length === 1 && all.length === 1 ? 'the account already has' : `${dup.length} of the ${all.length} transactions look like ones their account already has:`} a transaction with the same amount within 3 days and the same or a similar payee. Show the user the candidates; if they mean a new one, call again with allow_duplicate: true.`,
        },
      };
    }
  }
  const plan = planApiWrite(def.name, id, call, target.budgetId, replica, shown);
  const g = await gate(state, plan, confirm, replica);
  if ('go' in g) return { plan, replica };
  return g;
}

function transactionStateOf(r: BudgetReplica, id: string) {
  return currentState(r, 'transaction', id)!;
}

/** An API tool: the request through the service, then the output builder. */
async function apiAnswer(def: ApiTool, target: Target, state: ServerState, confirm: ConfirmInput): Promise<Outcome> {
  const write = def.op.access === 'write';
  const args = apiToolArgs(target.args);
  const service = await state.service();
  const format = target.replica?.summary.currency_format;
  const call = def.args.toCall(args, { budget: target.budgetId ?? state.config.defaultBudget, decimalDigits: format ? format.decimal_digits : undefined });
  const before = write ? await beforeApiWrite(def, target, call, state, confirm) : {};
  if ('answer' in before || 'input' in before) return before;
  // Lists come lazily where they can: only the page shown is built.
  const res = await service.call(def.op.id as OperationId, call, { lazyLists: true });
  const recorded =
    before.plan && before.replica
      ? await recordChange(state, before.plan.budgetId, def.name, draftApiWrite(def.op.id as OperationId, call, before.plan, res.data, shownBy(before.replica)))
      : {};
  const after = write ? await followUp(state, def.op.id as OperationId, target.budgetId, res.data, call.params) : {};
  const data = after.data ?? res.data;
  const needNames = def.shape.kind === 'money_movement' || def.shape.kind === 'payee_location';
  const ctx = await compactContext(state, call.params.budget_id, needNames);
  const extras: Record<string, unknown> = {};
  if (data.transaction_ids && def.shape.member !== 'transaction_ids') extras.transaction_ids = data.transaction_ids;
  if (data.duplicate_import_ids) extras.duplicate_import_ids = data.duplicate_import_ids;
  if (data.not_applied) extras.not_applied = data.not_applied;
  Object.assign(extras, after.extras);
  if (recorded.change_id) extras.change_id = recorded.change_id;
  if (res.freshness) extras.freshness = answerFreshness(res.freshness);
  const notices = [...noticesFor(def, args, res), ...(before.plan?.notices ?? []), ...(after.notices ?? []), ...(recorded.notice ? [recorded.notice] : [])];
  if (Array.isArray(data.duplicate_import_ids) && data.duplicate_import_ids.length) {
    notices.push(
      `${data.duplicate_import_ids.length} transaction(s) already existed (same import_id on the same account) and were not created again: ${data.duplicate_import_ids.join(', ')}.`,
    );
  }
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
async function insightAnswer(def: InsightTool, target: Target, state: ServerState): Promise<Outcome> {
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
  const structured: Record<string, unknown> = {
    ...result.structured,
    freshness: answerFreshness(service.replicas.freshnessOf(replica, notice)),
    ...(notices.length ? { notices } : {}),
  };
  if (state.readOnly) structured.read_only = state.readOnlyReason();
  const size = JSON.stringify(structured).length;
  if (size > state.config.maxResultChars) {
    throw new OutputTooLargeError(
      `the answer is ${size} characters, over the limit of ${state.config.maxResultChars}; narrow the question (fewer days, a shorter period, filters)`,
    );
  }
  return { body: structured };
}

/**
 * A task tool: its plan over the budget's copy (read nearly now, since what it computes, such as
 * a month's assignments, must be YNAB's), through the gate, then applied and journaled.
 */
async function taskAnswer(def: TaskTool, target: Target, state: ServerState, confirm: ConfirmInput): Promise<Outcome> {
  const service = await state.service();
  const write = def.access === 'write';
  // A task that computes from YNAB's figures (a month's assignments), or whose preview the user
  // may see, reads the budget as it is now; any other reads the copy as our writes left it.
  const nearNow = write && (def.spec.needsNow === true || canHold(state.config.writes, def.kinds) || !!confirm.token || !!confirm.dialog);
  const { replica, notice } = await service.replicas.fresh(target.budgetId!, nearNow ? planAge(confirm, true) : undefined, { dirtyOk: write && !nearNow });
  const format = replica.summary.currency_format ?? null;
  const ctx: TaskContext = {
    changes: (await state.ready()).changes,
    service,
    budgetId: replica.summary.id,
    replica,
    view: BudgetView.of(replica),
    shown: shownBy(replica),
    digits: format?.decimal_digits,
    today: new Date().toISOString().slice(0, 10),
    tool: def.name,
  };
  const freshness = answerFreshness(service.replicas.freshnessOf(replica, notice));
  if (!write) return { body: { ...(await def.spec.read!(ctx, target.args)), freshness, ...(notice ? { notices: [notice] } : {}) } };
  const plan = await def.spec.plan!(ctx, target.args);
  const closed = closedAccountNotices(replica, plan.entities);
  if (closed.length) plan.notices = [...(plan.notices ?? []), ...closed];
  if (plan.answer) return { answer: { ...plan.answer, ...(plan.notices?.length ? { notices: plan.notices } : {}) } };
  const g = await gate(state, plan, confirm, replica);
  if (!('go' in g)) return g;
  const writer = new Writer(service, ctx.budgetId);
  const applied = await plan.apply(writer).catch(async (e: unknown) => {
    // A task that failed halfway and could not put back what it had done: journal that part,
    // so that list_recent_changes shows it and undo_change can put it back.
    if (!(e instanceof StepError) || !e.partial) throw e;
    const kept = await recordChange(state, ctx.budgetId, def.name, e.partial);
    if (!kept.change_id) throw new StepError(e.message);
    throw new StepError(
      `${e.message}. What was done is recorded as change ${kept.change_id}${e.partial.not_undoable ? ' (list_recent_changes shows it; there is nothing for undo_change to put back)' : ': undo_change puts it back'}`,
    );
  });
  const recorded = applied.draft ? await recordChange(state, ctx.budgetId, def.name, applied.draft) : {};
  // An undo marks the change it undid, so that it is not undone twice (its claim ends here).
  if (applied.draft?.undoes)
    await ctx.changes.settle(ctx.budgetId, applied.draft.undoes, recorded.change_id ?? 'an undo whose record could not be kept').catch(() => undefined);
  const notices = [...(plan.notices ?? []), ...writer.notices, ...(applied.notices ?? []), ...(recorded.notice ? [recorded.notice] : [])];
  return { body: { ...applied.structured, ...(recorded.change_id ? { change_id: recorded.change_id } : {}), ...(notices.length ? { notices } : {}) } };
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
export async function answer(def: ToolDefinition, rawArgs: Record<string, unknown>, state: ServerState, confirm: ConfirmInput = NO_CONFIRM): Promise<Answer> {
  // The token is the gate's business, not an argument of the request (nor part of what it binds).
  const { confirm_token: token, ...args } = rawArgs;
  const target = await resolveTarget(def, args, state);
  const asked = { ...confirm, token: typeof token === 'string' ? token : confirm.token };
  const result =
    def.kind === 'api'
      ? await apiAnswer(def, target, state, asked)
      : def.kind === 'task'
        ? await taskAnswer(def, target, state, asked)
        : await insightAnswer(def, target, state);
  if ('input' in result) return { structured: {}, userText: false, input: result.input };
  const body = 'answer' in result ? result.answer : result.body;
  const budget = await budgetNamed(state, target);
  // A budget's name is text its owner typed: an answer that names the budget is marked too.
  const userText = budget !== undefined || def.kind !== 'api' || (!NO_USER_TEXT.has(def.shape.kind) && def.shape.member !== 'transaction_ids');
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
