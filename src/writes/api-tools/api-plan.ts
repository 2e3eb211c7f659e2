/**
 * An API write tool's request as one more kind of plan of the write pipeline (pipeline.ts): the
 * entities it touches (its row of api-writes.ts), the kinds of write it makes (from the
 * operation's facts, for the policy), the duplicate, new-payee and inflow guards where the operation has them, and an
 * `apply` that makes the one request through the service, journaled as the answer shows it. Its
 * answer: the API's, with what is read back after it (follow-ups.ts) and the change_id, for the
 * output builder (src/mcp/output) to shape.
 */
import { checkCallArguments } from '../../api/argument-check.js';
import type { CallArgs } from '../../api/client/client.js';
import type { Operation, WriteFacts, WriteOperationId } from '../../api/operations/index.js';
import type { ServiceResult } from '../../sync/service.js';
import { API_WRITES, firstSplits, type ApiWrite, type Item } from './api-writes.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { DuplicateGuard } from '../pipeline/duplicates.js';
import type { Renamed } from '../rules/create-rules.js';
import type { RulesAccess } from '../rules/rule-changes.js';
import { payeeNamesIn } from '../pipeline/new-payees.js';
import { inflowsIn } from '../pipeline/inflows.js';
import { describeEntity, type EntityChange, type Shown } from '../pipeline/entities.js';
import { followUp } from '../pipeline/follow-ups.js';
import type { ConfirmInput } from '../pipeline/gate.js';
import type { Draft } from '../pipeline/plan.js';
import { runWrite, type Done, type PlanContext, type WriteOutcome, type WritePlan, type WriteSetting } from '../pipeline/pipeline.js';
import { BULK_LIMIT, mustConfirm, type WriteKind } from '../pipeline/policy.js';

/** An operation that writes: its row has write facts and api-writes.ts has a row for it. */
export type WriteOperation = Operation & { id: WriteOperationId; write: WriteFacts };

export function isWriteOperation(op: Operation): op is WriteOperation {
  return op.write !== undefined && Object.hasOwn(API_WRITES, op.id);
}

/**
 * The kinds of write a request makes (policy.ts): a batch of more than 5 is a bulk update; a first
 * split is a split, as split_transaction's (by the budget's copy where it is given: firstSplits).
 */
export function writeKindsOf(facts: WriteFacts, call: CallArgs, r?: BudgetReplica): WriteKind[] {
  if (facts.makes === 'delete') return ['delete'];
  if (facts.makes !== 'update') return ['create'];
  const count: number = (call.body as Item | undefined)?.transactions?.length ?? 0;
  const split = facts.firstSplit && firstSplits(call, r).length ? (['split'] as const) : [];
  return [facts.batch && count > BULK_LIMIT ? 'bulk' : 'update', ...split];
}

/** One sentence for a write: the entity as it is before it (a plan) or as the write left it (what was done). */
function summaryOf(verb: string, entities: EntityChange[], s: Shown, done = false): string {
  const main = entities.filter((e) => !e.linked);
  const e = main[0];
  if (main.length === 1 && e) return `${verb} ${describeEntity(e.kind, e.id, done ? (e.after ?? e.before) : (e.before ?? e.after), s)}`;
  const kind = main[0]?.kind.replace('_', ' ') ?? 'entity';
  return `${verb} ${main.length} ${kind}${main.length === 1 ? '' : 's'}`;
}

/** A first split of one transaction, said as split_transaction says it; undefined for several. */
function splitSummary(entities: EntityChange[], s: Shown): string | undefined {
  const main = entities.filter((e) => !e.linked);
  const lines = (main[0]?.after?.subtransactions as unknown[] | undefined)?.length;
  if (main.length !== 1 || !lines) return undefined;
  return `Split ${describeEntity('transaction', main[0]!.id, main[0]!.before, s)} into ${lines} lines`;
}

/** What an applied API write is journaled as: the entities as its answer shows them. */
function draftOf(w: ApiWrite, call: CallArgs, planned: EntityChange[], data: Item, s: Shown): Draft {
  const entities = w.answered(data, planned, call);
  return {
    summary: w.says?.done(entities) ?? summaryOf(`${w.verb.replace(/e$/, '')}ed`, entities, s, true),
    entities,
    ...(w.not_undoable ? { not_undoable: w.not_undoable } : {}),
  };
}

/** create_transactions' guard: the transactions without an import_id (YNAB keeps those unique itself, per account and import_id). */
function duplicateGuard(call: CallArgs): DuplicateGuard {
  const all: Item[] = (call.body as Item).transactions;
  const items = all.filter((t) => !t.import_id);
  return {
    items: items.map((t) => ({ account_id: t.account_id, date: t.date, amount: t.amount, payee_id: t.payee_id, payee_name: t.payee_name })),
    held: (found) => ({
      held: 'duplicate',
      duplicate_candidates: found.map((d) => ({ index: all.indexOf(items[d.index]!), candidates: d.candidates })),
      message: `Nothing was created: ${found.length === 1 && all.length === 1 ? 'the account already has' : `${found.length} of the ${all.length} transactions look like ones their account already has:`} a transaction with the same amount within 3 days and the same or a similar payee. Show the user the candidates; if they mean a new one, call again with allow_duplicate: true.`,
    }),
  };
}

/** An API write tool's call: the operation, and the request built from the tool's arguments (names already ids). */
export interface ApiWriteCall {
  op: WriteOperation;
  tool: string;
  budgetId: string;
  call: CallArgs;
  /** allow_duplicate: true (where the operation has the duplicate guard). */
  allowDuplicate: boolean;
  /** allow_new_payee: true (where the operation takes payee names, new-payees.ts). */
  allowNewPayee?: boolean;
  /** allow_inflow: true (where the operation makes transactions from a model's amounts, inflows.ts). */
  allowInflow?: boolean;
  confirm: ConfirmInput;
}

function planOf(w: ApiWriteCall, ctx: PlanContext, renamed?: Renamed): WritePlan<ServiceResult> {
  const row = API_WRITES[w.op.id];
  // What the budget cannot take as it stands is refused before anything is sent.
  row.check?.(w.call, ctx.replica);
  const entities = row.entities(w.call, ctx.replica);
  const kinds = writeKindsOf(w.op.write, w.call, ctx.replica);
  // The request as arguments (ids, milliunits), one level flat, so that a refusal can name what differs.
  const { budget_id: _b, ...params } = w.call.params ?? {};
  const body = (w.call.body ?? {}) as Item;
  const members = Object.keys(body);
  const fields = members.length === 1 && !Array.isArray(body[members[0]!]) ? body[members[0]!] : body;
  return {
    tool: w.tool,
    budgetId: w.budgetId,
    args: { ...params, ...(w.call.query ?? {}), ...fields },
    summary: row.says?.plan ?? (kinds.includes('split') ? splitSummary(entities, ctx.shown) : undefined) ?? summaryOf(row.verb, entities, ctx.shown),
    kinds,
    entities,
    ...(w.op.write.duplicateGuard && !w.allowDuplicate ? { guard: duplicateGuard(w.call) } : {}),
    ...(w.op.write.newPayees && !w.allowNewPayee ? { payeeNames: payeeNamesIn(body) } : {}),
    ...(w.op.write.inflowGuard && !w.allowInflow ? { inflows: inflowsIn(body) } : {}),
    ...(renamed?.notices.length ? { notices: renamed.notices } : {}),
    apply: async (writer) => {
      const res = await writer.send(w.op.id, w.call);
      const counted = renamed?.by.length ? await (await import('../rules/apply-rules-run.js')).countApplied(ctx, renamed.by) : undefined;
      return { result: res, draft: draftOf(row, w.call, entities, res.data, ctx.shown), ...(counted ? { notices: [counted] } : {}) };
    },
  };
}

/** An API write's answer, for the output builder. */
export interface ApiWritten {
  /** The service's answer to the request (its notices come first in the answer). */
  res: ServiceResult;
  /** What the answer shows: the API's data, or what was read back after it (an import's transactions). */
  data: Item;
  /** Members the answer adds, in order: duplicate import ids, what was not applied, what was read back, change_id. */
  extras: Record<string, unknown>;
  notices: string[];
}

async function answerOf(s: WriteSetting, w: ApiWriteCall, done: Done<ServiceResult>): Promise<ApiWritten> {
  const res = done.applied.result;
  const after = await followUp(s.service.replicas, w.op.write.followUp, w.budgetId, res.data, w.call.params ?? {});
  const data: Item = after.data ?? res.data;
  const extras: Record<string, unknown> = {};
  if (data.duplicate_import_ids) extras.duplicate_import_ids = data.duplicate_import_ids;
  if (data.not_applied) extras.not_applied = data.not_applied;
  Object.assign(extras, after.extras);
  // What the write touched, as it left them (pipeline.ts); a follow-up's own figures come first.
  const touched = await done.after;
  for (const [k, v] of Object.entries(touched.fields)) if (!(k in extras)) extras[k] = v;
  const recorded = await done.recorded;
  if (recorded.change_id) extras.change_id = recorded.change_id;
  const notices = [
    ...(done.plan.notices ?? []),
    ...(done.applied.notices ?? []),
    ...(after.notices ?? []),
    ...touched.notices,
    ...(recorded.notice ? [recorded.notice] : []),
  ];
  if (Array.isArray(data.duplicate_import_ids) && data.duplicate_import_ids.length) {
    notices.push(
      `${data.duplicate_import_ids.length} transaction(s) already existed (same import_id on the same account) and were not created again: ${data.duplicate_import_ids.join(', ')}.`,
    );
  }
  return { res, data, extras, notices };
}

/**
 * What a create reads besides the plan's copy, asked for with it (one round trip to the store, not
 * three in a row): the create records its intent opens in (the store remembers them), and the house
 * rules its payee names are matched against (the rules, read once, for the plan).
 */
function readAhead(s: WriteSetting, w: ApiWriteCall): RulesAccess | undefined {
  const once = w.op.write.exactlyOnce;
  if (once === 'identity' || once === 'identity-list') s.service.readCreateRecords(w.budgetId);
  const body = (w.call.body ?? {}) as Item;
  const items: Item[] = body.transactions ?? (body.transaction ? [body.transaction] : []);
  if (!w.op.write.renamesByRules || !items.some((t) => typeof t?.payee_name === 'string' && !t.payee_id)) return undefined;
  const listed = s.rules.list(w.budgetId);
  listed.catch(() => undefined); // a failure is the plan's, when it reads them
  return { list: (b) => (b === w.budgetId ? listed : s.rules.list(b)), countApplied: (b, counts) => s.rules.countApplied(b, counts) };
}

/** Runs an API write tool's call through the pipeline. */
export function runApiWrite(s: WriteSetting, w: ApiWriteCall): Promise<WriteOutcome<ApiWritten>> {
  // What can never be sent (half a character, "." as an id) is refused before anything is
  // planned; the service, which checks every call, then takes this one as checked.
  checkCallArguments(w.op, w.call);
  const rules = readAhead(s, w);
  return runWrite(s, {
    tool: w.tool,
    budgetId: w.budgetId,
    confirm: w.confirm,
    // A write the mode holds shows YNAB's state in its preview; a direct one plans from the copy as our writes left it.
    nearNow: mustConfirm(s.mode, writeKindsOf(w.op.write, w.call)),
    plan: async (ctx) => {
      // A payee_name a rename rule matches is sent as the rule's payee (create-rules.ts).
      if (!w.op.write?.renamesByRules) return planOf(w, ctx);
      // Its code loads with the first create (create-rules.ts).
      const renamed = await (await import('../rules/create-rules.js')).renameByRules(rules ?? ctx.rules, ctx.budgetId, w.call);
      return planOf({ ...w, call: renamed.call }, ctx, renamed);
    },
    answer: (done) => answerOf(s, w, done),
  });
}
