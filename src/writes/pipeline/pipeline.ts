/**
 * The write pipeline: every write, an API tool's or a task tool's, runs this one path. A call
 * comes from src/mcp/answer/tool-answer.ts: an API write tool's through api-plan.ts (runApiWrite, which
 * checks its arguments once), a task tool's through task-run.ts (runTask).
 *
 *   1. plan    The budget's copy, read as fresh as the write needs (reads.ts), and the plan made
 *              from it: what would change, entity by entity, before and after (plan.ts). An API
 *              write's plan: api-plan.ts with the operation's row of api-writes.ts; a task's:
 *              transfer.ts, move-money.ts, bulk.ts, split.ts, undo-task.ts (task.ts types them
 *              from their schemas). Closed accounts it puts money in are noted (checks.ts);
 *              money it files under a hidden category makes it wait for confirmation
 *              (hidden-categories.ts).
 *   2. guard   A payee_name that is a near miss of a payee the budget has is held (new-payees.ts);
 *              an inflow at a payee only ever paid is held (inflows.ts); a create that looks
 *              like a transaction already there is held (duplicates.ts).
 *   3. gate    Confirmation (gate.ts): a preview and a confirm_token (plan.ts, confirm-tokens.ts),
 *              the client's dialog (asked by src/mcp/answer/dialog.ts), or go, as the mode says (policy.ts).
 *   4. apply   The plan's requests through the service, each exactly once (steps.ts, then
 *              src/sync/service.ts, src/sync/writes.ts and creates.ts, then the API client).
 *   5. record  What was done, in the undo journal (undo-journal.ts), while 6 reads back; an undo
 *              settles the change it undid. A task that failed part way journals the part it
 *              could not put back.
 *   6. answer  The write's answer: a task's result (task-run.ts), or the API's answer with what is
 *              read back after it (api-plan.ts, follow-ups.ts), which src/mcp/answer/tool-answer.ts
 *              shapes through the output builder. Every write's answer also gives the state after
 *              it of what it touched (after-state.ts, afterStateOf), made here from its entities.
 * A write that stops early answers with where it stopped (a preview, held duplicates, nothing to
 * change) or asks the client's dialog; nothing was changed then.
 */
import { BudgetView } from '../../insights/core/view.js';
import { answering } from '../../sync/after-answer.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { YnabService } from '../../sync/service.js';
import { afterStateOf, readyBefore, touchedBy } from './after-state.js';
import { closedAccountNotices } from './checks.js';
import { hiddenCategoriesOf } from './hidden-categories.js';
import type { ConfirmTokens } from './confirm-tokens.js';
import { holdDuplicates, type DuplicateGuard } from './duplicates.js';
import { holdNewPayees, type PayeeName } from './new-payees.js';
import { holdInflows, type NewInflow } from './inflows.js';
import { shownBy, type Shown } from './entities.js';
import { confirming, gate, type Ask, type ConfirmInput } from './gate.js';
import type { Draft, Plan } from './plan.js';
import type { WriteMode } from './policy.js';
import { planPurpose, readFor } from './reads.js';
import { StepError, Writer } from './steps.js';
import type { ChangeRecord, UndoJournal } from './undo-journal.js';
import type { RuleStore } from '../../rules/store.js';
import type { ReconciledDates } from '../../sync/reconciled.js';

/** What writes run on: the service, the confirm tokens and the undo journal (src/stack/stack.ts makes them), and the --writes mode. */
export interface WriteSetting {
  service: YnabService;
  confirmTokens: ConfirmTokens;
  changes: UndoJournal;
  /** The budgets' house rules (src/rules/store.ts). */
  rules: RuleStore;
  /** When this server reconciled each account (src/sync/reconciled.ts): reconcile_account records it. */
  reconciled?: ReconciledDates;
  mode: WriteMode;
  /** The server runs for one local user: a tool may read a file of theirs by path (src/mcp/state/config.ts). */
  localFiles?: boolean;
  /** The alerts tool's answers (src/events/alerts.ts, given by the protocol layer). */
  alerts?: AlertsPort;
  /** A rehearsal whose changes apply_rehearsal applies to this budget (src/writes/rehearsal/). */
  rehearsal?: RehearsalSource;
}

/** A rehearsal's journal, and when its copy was taken (declared here, below rehearsal mode). */
export interface RehearsalSource {
  /** The real budget the copy was taken of. */
  budgetId: string;
  /** The export's server_knowledge: what YNAB changed since is read as one delta. */
  knowledge: number;
  /** When the copy was taken (ISO). */
  takenAt: string;
  /** The rehearsal's undo journal: every change made in it (undone ones marked). */
  changes(): Promise<ChangeRecord[]>;
  /** The most changes that journal keeps: holding that many, it may have dropped the earliest. */
  limit: number;
  /** The copy's payees (id → name): those YNAB does not hold were made in the rehearsal, and are made by name. */
  payees?(): Promise<ReadonlyMap<string, string>>;
  /** The real budget's token's access as known: a personal token's only once YNAB refused a change (403.3). */
  scope?(): 'full' | 'read-only' | undefined;
}

/** What the alerts tool asks of the events (declared here, below them: ARCHITECTURE.md, layers). */
export interface AlertsPort {
  answer(budgetId: string, args: { cursor?: string; settings?: Record<string, unknown> }): Promise<Record<string, unknown>>;
}

/** The context a plan is made in: the budget's copy, names and money for people, the service to write through, the undo journal. */
export interface PlanContext {
  /** The undo journal. */
  changes: UndoJournal;
  /** The budgets' house rules. */
  rules: RuleStore;
  service: YnabService;
  budgetId: string;
  replica: BudgetReplica;
  /** The budget's view for the insights' filters (built when first asked for). */
  readonly view: BudgetView;
  shown: Shown;
  digits?: number;
  today: string;
  tool: string;
  /** A file may be read by path (the server runs for one local user). */
  localFiles: boolean;
  alerts?: AlertsPort;
  /** When this server reconciled each account (src/sync/reconciled.ts). */
  reconciled?: ReconciledDates;
  rehearsal?: RehearsalSource;
}

export function planContext(
  tool: string,
  replica: BudgetReplica,
  s: Pick<WriteSetting, 'changes' | 'service' | 'rules' | 'localFiles' | 'alerts' | 'reconciled' | 'rehearsal'>,
): PlanContext {
  return {
    localFiles: s.localFiles === true,
    alerts: s.alerts,
    changes: s.changes,
    rules: s.rules,
    reconciled: s.reconciled,
    rehearsal: s.rehearsal,
    service: s.service,
    budgetId: replica.summary.id,
    replica,
    get view() {
      return BudgetView.of(replica);
    },
    shown: shownBy(replica),
    digits: replica.summary.currency_format?.decimal_digits,
    today: new Date().toISOString().slice(0, 10),
    tool,
  };
}

/** What applying a plan did: its result (what the answer is made of), what to journal, and what to say. */
export interface Applied<R> {
  result: R;
  draft?: Draft;
  notices?: string[];
}

/** A write's plan: what would change (Plan), and how to make it. */
export interface WritePlan<R> extends Plan {
  /** Answered as is, nothing written (nothing to change). */
  answer?: Record<string, unknown>;
  /** Creates transactions: held when they look like ones already there (duplicates.ts). */
  guard?: DuplicateGuard;
  /** The payee names it sends, which make payees: held when one is a near miss of a payee there (new-payees.ts). */
  payeeNames?: PayeeName[];
  /** The inflows it makes from a model's amounts: held when one is at a payee only ever paid (inflows.ts). */
  inflows?: NewInflow[];
  /** Makes the change through the service, each request exactly once (steps.ts). */
  apply(w: Writer): Promise<Applied<R>>;
}

export interface WriteRequest<R, A> {
  tool: string;
  budgetId: string;
  confirm: ConfirmInput;
  /** The plan needs YNAB's state now (reads.ts 'held-write'): the mode may hold the write, or it computes from YNAB's figures. */
  nearNow: boolean;
  plan(ctx: PlanContext): Promise<WritePlan<R>>;
  answer(done: Done<R>): Promise<A>;
}

/** A change recorded in the undo journal: its id for the answer, or a notice that it could not be. */
export interface Recorded {
  change_id?: string;
  notice?: string;
}

/** A write applied and recorded, for its answer. */
export interface Done<R> {
  plan: WritePlan<R>;
  applied: Applied<R>;
  /** What the task's requests met on the way (answers lost and recovered). */
  sent: string[];
  /** The undo journal's record, kept while the answer is made (await it where the answer shows it). */
  recorded: Promise<Recorded>;
  /** The state after the write of what it touched (after-state.ts), for every answer; a notice when it could not be read. */
  after: Promise<{ fields: Record<string, unknown>; notices: string[] }>;
}

/** A write's end: its answer, where it stopped (nothing changed), or the client's dialog to ask. */
export type WriteOutcome<A> = { body: A } | { stop: Record<string, unknown> } | { ask: Ask };

export async function runWrite<R, A>(s: WriteSetting, req: WriteRequest<R, A>): Promise<WriteOutcome<A>> {
  // 1. plan
  const { replica } = await readFor(s.service.replicas, req.budgetId, planPurpose(confirming(req.confirm), req.nearNow));
  const ctx = planContext(req.tool, replica, s);
  const plan = await req.plan(ctx);
  const closed = closedAccountNotices(replica, plan.entities);
  if (closed.length) plan.notices = [...(plan.notices ?? []), ...closed];
  if (plan.answer) return { stop: { ...plan.answer, ...(plan.notices?.length ? { notices: plan.notices } : {}) } };
  // Money filed under a hidden category waits for confirmation, saying it is hidden (hidden-categories.ts).
  const hidden = hiddenCategoriesOf(replica, plan.entities);
  if (hidden.names.length)
    Object.assign(plan, {
      kinds: [...plan.kinds, 'hidden'],
      summary: `${plan.summary} (into hidden ${hidden.names.join(', ')})`,
      notices: [...(plan.notices ?? []), ...hidden.notices],
    });
  // 2. guard
  const misnamed = plan.payeeNames ? holdNewPayees(replica, plan.payeeNames) : undefined;
  if (misnamed) return { stop: misnamed };
  const inflow = plan.inflows ? holdInflows(replica, ctx.shown, plan.inflows, plan.notices ?? []) : undefined;
  if (inflow) return { stop: inflow };
  const held = plan.guard ? holdDuplicates(replica, ctx.shown, plan.guard, plan.notices ?? []) : undefined;
  if (held) return { stop: held };
  // 3. gate
  const ready = readyBefore(replica);
  const decision = await gate(s.confirmTokens, s.mode, plan, req.confirm, replica);
  if (!('go' in decision)) return decision;
  // 4. apply
  const writer = new Writer(s.service, ctx.budgetId);
  const applied = await plan.apply(writer).catch(async (e: unknown) => {
    await writer.settled();
    // A task that failed halfway and could not put back what it had done: journal that part,
    // so that list_recent_changes shows it and undo_change can put it back.
    if (!(e instanceof StepError) || !e.partial) throw e;
    const kept = await record(s.changes, plan.budgetId, req.tool, e.partial);
    if (!kept.change_id) throw new StepError(e.message);
    throw new StepError(
      `${e.message}. What was done is recorded as change ${kept.change_id}${e.partial.not_undoable ? ' (list_recent_changes shows it; there is nothing for undo_change to put back)' : ': undo_change puts it back'}`,
    );
  });
  // The requests' records (the create records, the written mark, the cached answers forgotten) are
  // still being written: the undo record and the read back start beside them, in their round trip,
  // and the answer goes once they are written.
  const settled = writer.settled();
  // 5. record, while the answer reads back what the write left (6): the journal and the budget's
  // copy are apart, and the record's round trips to the store no longer come before the read's.
  const recorded = (async (): Promise<Recorded> => {
    const kept = applied.draft ? await record(s.changes, plan.budgetId, req.tool, applied.draft) : {};
    // An undo marks the change it undid, so that it is not undone twice (its claim ends here).
    if (applied.draft?.undoes)
      await s.changes.settle(plan.budgetId, applied.draft.undoes, kept.change_id ?? 'an undo whose record could not be kept').catch(() => undefined);
    return kept;
  })();
  // 6. answer (the record never rejects: what it could not keep is a notice); it is kept before the
  // answer goes, also when making the answer failed.
  // The alerts' scan of the copy the read back syncs waits for this answer (src/sync/after-answer.ts).
  return answering(async () => {
    const after = afterStateOf(s.service.replicas, plan.budgetId, touchedBy(applied.draft?.entities ?? [], ctx.today), ready);
    try {
      const body = await req.answer({ plan, applied, sent: writer.notices, recorded, after });
      await settled;
      return { body };
    } finally {
      await Promise.all([recorded, settled]);
    }
  });
}

/** Records an applied change in the undo journal. */
async function record(changes: UndoJournal, budgetId: string, tool: string, draft: Draft): Promise<Recorded> {
  if (!draft.entities.length) return {};
  try {
    const change = await changes.append(budgetId, { tool, ...draft });
    return { change_id: change.id };
  } catch (e) {
    return { notice: `The change was made, but it could not be recorded for undo (${(e as Error).message}).` };
  }
}
