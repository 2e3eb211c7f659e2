/**
 * Creates happen exactly once, by identity. A create whose answer is lost may or may not have
 * reached the service; what it made is recognised only among entities no call of ours has
 * accounted for, in a delta that starts after everything our earlier calls made:
 *  1. an intent is opened in the budget's create records (src/sync/create-records.ts): it waits while an
 *     identical create of ours (any process sharing the state) is unresolved, and its baseline is
 *     the latest knowledge any of our answers carried;
 *  2. the create is sent; its answer's ids and knowledge go to the create records;
 *  3. when the answer is lost: the delta since the baseline is read, and for each group of
 *     identical items the matching entities that no call of ours claimed and that did not exist
 *     before are counted (create-match.ts `decide`): none → sent again; exactly as many as
 *     missing → they are this call's when the request is proven to have arrived (its 2xx status
 *     line came) or twins are not something anyone makes; otherwise, and for any other number,
 *     the outcome cannot be known, and the result says so and names the candidates instead of
 *     claiming one.
 * A result never names an id another call created or reported.
 */
import { ApiError, NetworkError, PartialWriteError, UncertainWriteError } from '../api/client/errors.js';
import type { CallArgs, CallResult, YnabClient } from '../api/client/client.js';
import { operation, type OperationId, type SingleCreateId } from '../api/operations/index.js';
import * as R from '../api/read/entities.js';
import { transactionDetail } from '../api/read/transactions.js';
import type * as E from '../api/schemas/entities.js';
import { answerFromReplica } from './replica-reads.js';
import { createKindOf, type CreateKind, decide, type Entity, type Item, preexisting } from './create-match.js';
import type { OpenIntent, CreateRecords } from './create-records.js';
import type { ReplicaManager } from './manager.js';
import type { BudgetReplica } from './replica.js';

/** How many times a create is attempted in all. */
export const MAX_ATTEMPTS = 6;

/** An intent open after longer than this waited for another: its request's slot, taken ahead, is not used (it would be dated too early). */
const SLOT_AHEAD_MS = 1_000;
type Ahead = ReturnType<YnabClient['slotAhead']>;

export interface WriteResult extends CallResult {
  /** What happened on the way, when it was not a plain success. */
  notices: string[];
}

/**
 * What runs once YNAB has answered a write, beside its records: `applied` (the caller's cached
 * answers forgotten). `settle`: the records and `applied` are handed to it instead of awaited, so
 * that the caller's next writes to the store go in the same round trip; it awaits them before the
 * write's answer goes (src/writes/pipeline/pipeline.ts).
 */
export interface AfterWrite {
  applied?: () => Promise<void>;
  settle?: (records: Promise<void>) => void;
}

export interface CreateDeps {
  client: YnabClient;
  replicas: ReplicaManager;
  createRecords: CreateRecords;
  /** Waits before attempt `n + 1`. */
  pause(attempt: number): Promise<void>;
  /** The delta since `knowledge`, merged into the replica; an UncertainWriteError when it cannot be had. */
  changes(budgetId: string, knowledge: number, cause: unknown): Promise<{ delta: E.BudgetDetail; knowledge: number }>;
  log(line: string): void;
}

/** A failure after which the write may have been applied (a refusal whose details were cut off was not). */
export function ambiguous(e: unknown): boolean {
  if (e instanceof NetworkError) return e.sent && !e.refused;
  return e instanceof ApiError && (e.status === 500 || e.status === 503);
}

/** Proof that a request whose answer was lost reached the service and was applied: its 2xx status line came. */
export function arrived(e: unknown): boolean {
  return e instanceof NetworkError && e.applied;
}

const WHICH_CANNOT_BE_TOLD =
  "Some may be this call's and others made elsewhere (the YNAB app, another tool), and which is which cannot be told: " +
  'none was claimed and nothing was sent again, to avoid a duplicate. Check them in YNAB (and delete any extra) before trying again';

/** Said of candidates that are as many as the items: most likely theirs, but not provably. */
function mostLikelyOurs(n: number): string {
  const [they, are, ones] = n === 1 ? ['it', 'is', 'an identical one'] : ['they', 'are', 'identical ones'];
  return (
    `Most likely ${they} ${are} this call's, but nothing proves that its request arrived, and ${ones} entered elsewhere (the YNAB app, another tool) ` +
    `while the answer was missing would look the same: not claimed, and nothing was sent again, to avoid a duplicate. ` +
    'Check in YNAB that each purchase meant is there once before trying again'
  );
}

/** Items of one call whose outcome cannot be known, with their candidates as named to the user (create-match.ts Decision). */
type Undecided = { items: number[]; candidates: string[]; likely: boolean };

/** What the user is told about one group of items whose outcome cannot be known. */
function unknownGroup(u: Undecided, label: string): string {
  const them = u.items.length === 1 ? 'it' : 'them';
  if (!u.candidates.length) return `${label}: YNAB answered that it was created, yet nothing like ${them} that no other call of this server made is there`;
  return `${label}: YNAB now holds ${u.candidates.length} like ${them} that no other call of this server made: ${u.candidates.join('; ')}. ${u.likely ? mostLikelyOurs(u.candidates.length) : WHICH_CANNOT_BE_TOLD}`;
}

const ids = (entities: Iterable<{ id: string }>) => [...entities].map((e) => e.id);

export class Creates {
  constructor(private readonly deps: CreateDeps) {}

  /**
   * Opens the intent; the caller must end it. The request's slot in the ledger is taken beside it
   * (one round trip to the store): both are kept before the request is sent. An intent that waited
   * for another's leaves its slot (still counted) and the request takes one when it is sent.
   */
  private async open(id: OperationId, kind: CreateKind, budgetId: string, items: Item[]): Promise<{ intent: OpenIntent; before: Set<string>; ahead?: Ahead }> {
    const replica = this.deps.replicas.peek(budgetId);
    const ahead = this.deps.client.slotAhead(id);
    const started = Date.now();
    const intent = await this.deps.createRecords
      .open(budgetId, [...new Set(items.map((i) => kind.fingerprint(i)))], replica?.knowledge ?? 0)
      .catch(async (e: unknown) => {
        await ahead.drop();
        throw e;
      });
    const waited = Date.now() - started > SLOT_AHEAD_MS;
    if (waited) await ahead.drop();
    // Read after the intent opened: whatever the replica holds now existed before this create.
    return { intent, before: preexisting(kind, items, this.deps.replicas.peek(budgetId)), ...(waited ? {} : { ahead }) };
  }

  /**
   * Ends the intent; `after.applied` (writes.ts) runs beside it, in the same round trip. Awaited here,
   * or handed to `after.settle`, whose caller awaits it before the write's answer goes (writes.ts).
   */
  private async end(intent: OpenIntent, knowledge: number | undefined, made: string[], after: AfterWrite): Promise<void> {
    const ending = Promise.all([
      intent.end(knowledge, made).catch((e: unknown) => this.deps.log(`ynab-mcp: could not record a create in the create records: ${(e as Error).message}`)),
      after.applied?.(),
    ]).then(() => undefined);
    if (after.settle) after.settle(ending);
    else await ending;
  }

  /** Transactions, one or a batch (the row's `write.exactlyOnce`: identity-list): only what did not arrive is sent again. */
  async transactions(id: OperationId, budgetId: string, args: CallArgs, after: AfterWrite = {}): Promise<WriteResult> {
    const kind = createKindOf(id);
    const body = args.body as { transactions?: Item[]; transaction?: Item };
    const items: Item[] = body.transactions ?? (body.transaction ? [body.transaction] : []);
    const single = !body.transactions;
    const found = new Map<number, E.TransactionDetail>();
    const unknown: Undecided[] = [];
    const duplicates: string[] = [];
    const notices: string[] = [];
    let pending = items.map((_, i) => i);
    let knowledge: number | undefined;
    // A failure after part of the batch was found made: reported with what was made, not dropped.
    let failure: unknown;
    const { intent, before, ahead } = await this.open(id, kind, budgetId, items);
    try {
      for (let attempt = 1; pending.length; attempt++) {
        try {
          const sent = single ? { transaction: items[pending[0]!] } : { transactions: pending.map((i) => items[i]) };
          const res = await this.deps.client.call(id, { ...args, body: sent }, ahead);
          knowledge = res.data.server_knowledge;
          const created: E.TransactionDetail[] = res.data.transactions ?? (res.data.transaction ? [res.data.transaction] : []);
          const taken = new Set<string>();
          const unmatched: number[] = [];
          for (const i of pending) {
            // The answer lists what this request made; match by content within it.
            const t = created.find((c) => !taken.has(c.id) && sameAnswered(items[i]!, c));
            if (t) {
              taken.add(t.id);
              found.set(i, t);
            } else unmatched.push(i);
          }
          // What the service changed on the way (a payee name it normalised) still belongs to this
          // request: when nothing was skipped as a duplicate, the rest pair up in order.
          const rest = created.filter((c) => !taken.has(c.id));
          if (!res.data.duplicate_import_ids?.length && rest.length === unmatched.length) unmatched.forEach((i, n) => found.set(i, rest[n]!));
          duplicates.push(...(res.data.duplicate_import_ids ?? []));
          break;
        } catch (e) {
          if (!ambiguous(e) || attempt >= MAX_ATTEMPTS) {
            if (!found.size && !unknown.length) throw e;
            failure = e;
            break;
          }
          // The answer was lost: find what arrived among what no call of ours accounts for.
          const { delta, knowledge: seen } = await this.deps.changes(budgetId, intent.baseline, e);
          const replica = this.deps.replicas.peek(budgetId);
          const excluded = new Set([...(await intent.claimed()), ...before, ...ids(found.values())]);
          const decision = decide(kind, items, pending, kind.entities(delta), excluded, replica, arrived(e));
          for (const [i, t] of decision.found)
            found.set(i, replica ? transactionDetail(replica.lookup(), t as E.TransactionSummaryBase, replica.linesOf(t.id)) : (t as E.TransactionDetail));
          for (const u of decision.unknown) unknown.push({ items: u.items, candidates: u.candidates.map((c) => kind.describe(c, replica)), likely: u.likely });
          await intent.record(seen, [...ids(decision.found.values()), ...decision.unknown.flatMap((u) => ids(u.candidates))]);
          pending = decision.resend;
          const recovered = decision.found.size;
          const undecided = decision.unknown.reduce((n, u) => n + u.items.length, 0);
          notices.push(
            [
              `Attempt ${attempt} got no answer (${(e as Error).message}).`,
              recovered ? `${recovered} transaction(s) had been created anyway and were not sent again.` : '',
              undecided ? `${undecided} could not be told apart from identical transactions made elsewhere and were not sent again.` : '',
              pending.length ? `Sending the ${pending.length} not found in YNAB again.` : '',
            ]
              .filter(Boolean)
              .join(' '),
          );
          if (pending.length) await this.deps.pause(attempt);
        }
      }
    } finally {
      await ahead?.drop();
      await this.end(intent, knowledge, ids(found.values()), after);
    }
    const ordered = items.map((_, i) => found.get(i)).filter((t): t is E.TransactionDetail => t !== undefined);
    if (failure !== undefined) {
      // What was found made stays in the copy (it is in YNAB), and the answer names it.
      if (ordered.length)
        this.deps.replicas.applyWrite(budgetId, { transactions: ordered, server_knowledge: knowledge ?? this.deps.replicas.peek(budgetId)?.knowledge ?? 0 });
      throw partlyMade(failure, items.length, found, pending, unknown);
    }
    if (unknown.length) throw new UncertainWriteError(uncertainMessage(unknown, ordered, items.length));
    const data: Record<string, unknown> = {
      transaction_ids: ordered.map((t) => t.id),
      ...(single && ordered[0] ? { transaction: ordered[0] } : { transactions: ordered }),
      duplicate_import_ids: duplicates,
      server_knowledge: knowledge ?? this.deps.replicas.peek(budgetId)?.knowledge ?? 0,
    };
    this.deps.replicas.applyWrite(budgetId, data);
    return { status: 201, data, notices };
  }

  /** Payees, category groups, categories, accounts and scheduled transactions (`write.exactlyOnce`: identity): one entity per call. */
  async one(id: OperationId, budgetId: string, args: CallArgs, after: AfterWrite = {}): Promise<WriteResult> {
    const kind = createKindOf(id);
    const op = operation(id);
    const sent = (args.body as Record<string, Item>)[op.bodyMembers![0]!]!;
    const notices: string[] = [];
    let knowledge: number | undefined;
    let made: string[] = [];
    const { intent, before, ahead } = await this.open(id, kind, budgetId, [sent]);
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const res = await this.deps.client.call(id, args, ahead);
          knowledge = typeof res.data.server_knowledge === 'number' ? res.data.server_knowledge : undefined;
          made = Object.values(res.data).flatMap((v) =>
            v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' ? [(v as { id: string }).id] : [],
          );
          return { ...res, notices };
        } catch (e) {
          if (!ambiguous(e) || attempt >= MAX_ATTEMPTS) throw e;
          const { delta, knowledge: seen } = await this.deps.changes(budgetId, intent.baseline, e);
          const replica = this.deps.replicas.peek(budgetId);
          const excluded = new Set([...(await intent.claimed()), ...before]);
          const decision = decide(kind, [sent], [0], kind.entities(delta), excluded, replica, arrived(e));
          const reported = decision.unknown.flatMap((u) => u.candidates);
          await intent.record(seen, [...ids(decision.found.values()), ...ids(reported)]);
          const match = decision.found.get(0);
          const undecided = decision.unknown[0];
          if (undecided) {
            const group: Undecided = { items: [0], candidates: undecided.candidates.map((c) => kind.describe(c, replica)), likely: undecided.likely };
            throw new UncertainWriteError(`the answer was lost (${(e as Error).message}); ${unknownGroup(group, 'what was sent')}`);
          }
          if (!match || !replica) {
            notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); it was not found in YNAB, so it was sent again.`);
            await this.deps.pause(attempt);
            continue;
          }
          notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); it had been created anyway and was not sent again.`);
          made = [match.id];
          // Answered from the replica, which the delta just brought up to date: no extra request.
          const data = foundAnswer(id, replica, match);
          return { status: op.status, data: { ...data, ...(op.data.shape.server_knowledge ? { server_knowledge: replica.knowledge } : {}) }, notices };
        }
      }
    } finally {
      await ahead?.drop();
      await this.end(intent, knowledge, made, after);
    }
  }
}

/** A created transaction in an answer matches what was sent (the answer names the payee). */
function sameAnswered(item: Item, t: E.TransactionDetail): boolean {
  if (t.account_id !== item.account_id) return false;
  if (item.import_id) return t.import_id === item.import_id;
  if (t.date !== item.date || t.amount !== item.amount || (item.memo ?? null) !== (t.memo ?? null)) return false;
  if (item.payee_id) return t.payee_id === item.payee_id;
  if (item.payee_name)
    return (
      String(t.payee_name ?? '')
        .trim()
        .toLowerCase() === String(item.payee_name).trim().toLowerCase()
    );
  return !t.payee_id;
}

function uncertainMessage(unknown: Undecided[], created: E.TransactionDetail[], total: number): string {
  const undecided = unknown.reduce((n, u) => n + u.items.length, 0);
  const parts = unknown.map((u) =>
    unknownGroup(u, u.items.length === 1 ? `transaction ${u.items[0]! + 1}` : `transactions ${u.items.map((i) => i + 1).join(', ')}`),
  );
  return (
    `the answer was lost, and for ${undecided} of the ${total} transaction(s) it cannot be known whether this call created ${undecided === 1 ? 'it' : 'them'}: ` +
    `${parts.join('. ')}` +
    (created.length ? `. Created by this call: ${created.map((t) => t.id).join(', ')}` : '')
  );
}

/**
 * What a create of one entity answers with when its answer was lost and the entity was found made:
 * the entity as the read of it answers from the replica. One for every row whose
 * `write.exactlyOnce` is identity (a missing one is a compile error).
 */
const FOUND_ANSWERS: Record<SingleCreateId, (r: BudgetReplica, e: Entity) => Record<string, unknown>> = {
  createPayee: (r, e) => answerFromReplica(r, 'getPayeeById', { budget_id: r.summary.id, payee_id: e.id }, {}, new Date()),
  createCategory: (r, e) => answerFromReplica(r, 'getCategoryById', { budget_id: r.summary.id, category_id: e.id }, {}, new Date()),
  createAccount: (r, e) => answerFromReplica(r, 'getAccountById', { budget_id: r.summary.id, account_id: e.id }, {}, new Date()),
  createScheduledTransaction: (r, e) =>
    answerFromReplica(r, 'getScheduledTransactionById', { budget_id: r.summary.id, scheduled_transaction_id: e.id }, {}, new Date()),
  // No operation reads one category group: the group as the delta shows it.
  createCategoryGroup: (_r, e) => ({ category_group: R.categoryGroup(e as E.CategoryGroup) }),
};

function isSingleCreate(id: OperationId): id is SingleCreateId {
  return Object.hasOwn(FOUND_ANSWERS, id);
}

function foundAnswer(id: OperationId, r: BudgetReplica, e: Entity): Record<string, unknown> {
  if (!isSingleCreate(id)) throw new Error(`${id} is not a create of one entity recognised by identity`);
  return FOUND_ANSWERS[id](r, e);
}

/** The error of a batch that failed after part of it was found made (or could not be told): what was made, and what to send again. */
function partlyMade(failure: unknown, total: number, found: Map<number, E.TransactionDetail>, pending: number[], unknown: Undecided[]): Error {
  const why = failure instanceof Error ? failure.message : String(failure);
  const made = found.size
    ? `created by this call: ${found.size} of the ${total} (${[...found.entries()]
        .sort(([a], [b]) => a - b)
        .map(([i, t]) => `transaction ${i + 1}: ${t.id}`)
        .join(', ')})`
    : `none of the ${total} was found created by this call`;
  const left = `sending the other ${pending.length} (transaction${pending.length === 1 ? '' : 's'} ${pending.map((i) => i + 1).join(', ')}) again failed: ${why}`;
  const uncertain = unknown.length ? `. ${uncertainMessage(unknown, [], total)}` : '';
  if (ambiguous(failure))
    return new UncertainWriteError(
      `${made}; ${left}, and whether ${pending.length === 1 ? 'it' : 'they'} arrived cannot be known: check before sending ${pending.length === 1 ? 'it' : 'them'} again${uncertain}`,
    );
  return new PartialWriteError(
    `${made}; ${left}, so ${pending.length === 1 ? 'it was' : 'they were'} not created: send only ${pending.length === 1 ? 'it' : 'those'} again${uncertain}`,
  );
}
