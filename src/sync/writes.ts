/**
 * Writes exactly once. When a write's answer is lost (the connection drops or times out after
 * the request was sent, or the service answers 500/503), the write may or may not have happened.
 * Sending it again blindly could create a transaction twice; giving up could lose it. So:
 *  - creates: recovered by identity through the budget's create records (see creates.ts): only
 *    what no call of ours accounts for can be this call's, and when that cannot be told, the
 *    result says so and names the candidates;
 *  - updates: re-read and compare; send again only if the change is not there (they are
 *    idempotent, so a second send cannot double anything);
 *  - deletes: if it is gone, it is done.
 * Every write answer's knowledge goes to the create records, so later creates start from it.
 * The caller is told what happened, truthfully: created, found after a lost answer, or refused.
 */
import { ApiError, NetworkError, UncertainWriteError } from '../api/client/errors.js';
import type { CallArgs, CallResult, YnabClient } from '../api/client/client.js';
import { operation, type ExactlyOnce, type OperationId } from '../api/operations/index.js';
import { foldText } from '../shared/text.js';
import { transactionDetail } from '../api/read/transactions.js';
import type * as B from '../api/schemas/bodies.js';
import type * as E from '../api/schemas/entities.js';
import { type AfterWrite, ambiguous, Creates, MAX_ATTEMPTS, type WriteResult } from './creates.js';
import type { CreateRecords } from './create-records.js';
import type { ReplicaManager } from './manager.js';

export type { AfterWrite, WriteResult } from './creates.js';

/** A change to one transaction, as an update's body holds it (the schema checked it). */
type Change = B.SaveTransactionWithIdOrImportId;

/** The budget's id and knowledge before the write. */
type Baseline = { id: string; knowledge: number };

/**
 * Fields of an update that the entity must show for the update to count as applied. A payee_name
 * (sent without a payee_id: it names the payee, made if new) counts when the payee has that name;
 * otherwise an update that only renames (apply_rules) would look applied before it was.
 */
function applied(change: Change, current: E.TransactionSummaryBase | undefined, payeeName: (id: string) => string | undefined): boolean {
  if (!current) return false;
  const shown: Record<string, unknown> = { ...current };
  const named = (v: unknown) =>
    change.payee_id != null || typeof v !== 'string' || (!!current.payee_id && foldText(payeeName(current.payee_id) ?? '').trim() === foldText(v).trim());
  return Object.entries(change).every(
    ([k, v]) => k === 'subtransactions' || k === 'id' || k === 'import_id' || (k === 'payee_name' ? named(v) : shown[k] === v),
  );
}

export class WriteCoordinator {
  private readonly creates: Creates;

  constructor(
    private readonly client: YnabClient,
    private readonly replicas: ReplicaManager,
    private readonly createRecords: CreateRecords,
    /** Waits before attempt `n + 1`. */
    private readonly pause: (attempt: number) => Promise<void> = (attempt) => new Promise((r) => setTimeout(r, 100 * attempt)),
    private readonly log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
  ) {
    this.creates = new Creates({
      client,
      replicas,
      createRecords,
      pause: (attempt) => this.pause(attempt),
      changes: (budgetId, knowledge, cause) => this.changes(budgetId, knowledge, cause),
      log: this.log,
    });
  }

  /** The paths of the writes that are not creates, by the row's `write.exactlyOnce`. */
  private readonly paths: Record<
    Exclude<ExactlyOnce, 'identity' | 'identity-list'>,
    (id: OperationId, base: Baseline, args: CallArgs) => Promise<WriteResult>
  > = {
    compare: (id, base, args) => this.updateTransactions(id, base, args),
    gone: (id, base, args) => this.deleteOnce(id, base, args),
    // Other updates set values (a name, an assigned amount), and an import imports what waits: sending them again is harmless.
    resend: (id, _base, args) => this.retrying(id, args),
  };

  /** `after`: what runs once YNAB has answered, beside the write's records, and who awaits them (creates.ts AfterWrite). */
  async write(id: OperationId, args: CallArgs, after: AfterWrite = {}): Promise<WriteResult> {
    const op = operation(id);
    const budget = args.params?.budget_id;
    if (!op.write || !budget || op.scope !== 'budget') {
      const res = await this.client.call(id, args);
      await after.applied?.();
      return { ...res, notices: [] };
    }
    const base = await this.replicas.baseline(budget);
    const once = op.write.exactlyOnce;
    // Creates keep their own create records (creates.ts).
    if (once === 'identity-list') return this.creates.transactions(id, base.id, args, after);
    if (once === 'identity') return this.creates.one(id, base.id, args, after);
    const result = await this.paths[once](id, base, args);
    const knowledge = result.data.server_knowledge;
    const records = Promise.all([
      typeof knowledge === 'number' &&
        this.createRecords
          .record(base.id, knowledge)
          .catch((e: unknown) => this.log(`ynab-mcp: could not record a write in the create records: ${(e as Error).message}`)),
      after.applied?.(),
    ]).then(() => undefined);
    if (after.settle) after.settle(records);
    else await records;
    return result;
  }

  /**
   * Sends a write until it gets a clear answer. After a failure that leaves the outcome open,
   * `recover` looks at YNAB: it returns the result when the write turns out to have happened, or
   * undefined to send it again.
   */
  private async untilClear(
    send: () => Promise<CallResult>,
    recover: (e: unknown, attempt: number) => Promise<CallResult | undefined>,
    notices: string[],
  ): Promise<WriteResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { ...(await send()), notices };
      } catch (e) {
        if (!ambiguous(e) || attempt >= MAX_ATTEMPTS) throw e;
        const known = await recover(e, attempt);
        if (known) return { ...known, notices };
        await this.pause(attempt);
      }
    }
  }

  private retrying(id: OperationId, args: CallArgs): Promise<WriteResult> {
    const notices: string[] = [];
    return this.untilClear(
      () => this.client.call(id, args),
      async (e, attempt) => {
        notices.push(`Attempt ${attempt} got no clear answer (${(e as Error).message}); the change sets a value, so it was sent again.`);
        return undefined;
      },
      notices,
    );
  }

  /**
   * Fetches what changed since `knowledge`, retrying while the service is flaky. If that fails
   * too, the outcome of the write cannot be known: say so rather than guess.
   */
  private async changes(budgetId: string, knowledge: number, cause: unknown): Promise<{ delta: E.BudgetDetail; knowledge: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A replica behind the baseline first catches up (one more delta), so that every name
        // and entity a candidate refers to is known when it is compared with what was sent.
        const held = this.replicas.peek(budgetId);
        if (held && held.knowledge < knowledge) await this.replicas.changesSince(budgetId, held.knowledge);
        return await this.replicas.changesSince(budgetId, knowledge);
      } catch (e) {
        if ((ambiguous(e) || e instanceof NetworkError) && attempt < MAX_ATTEMPTS) {
          await this.pause(attempt);
          continue;
        }
        throw new UncertainWriteError(
          `the change was sent but its answer was lost (${(cause as Error).message}), and YNAB could not be checked afterwards (${(e as Error).message}); it may or may not have been applied: look before trying again`,
        );
      }
    }
  }

  /** Updates of transactions: re-read and compared after a lost answer (one named by its path, or a list). */
  private updateTransactions(id: OperationId, base: Baseline, args: CallArgs): Promise<WriteResult> {
    const one = operation(id).params.includes('transaction_id');
    const notices: string[] = [];
    return this.untilClear(
      () => this.client.call(id, args),
      async (e, attempt) => {
        await this.changes(base.id, base.knowledge, e);
        const replica = this.replicas.peek(base.id);
        const body = args.body as { transaction?: B.ExistingTransaction; transactions?: Change[] };
        const wanted: [string | undefined, Change][] = one
          ? [[args.params?.transaction_id, body.transaction ?? {}]]
          : (body.transactions ?? []).map((t) => [t.id ?? [...(replica?.transactions.values() ?? [])].find((x) => x.import_id === t.import_id)?.id, t]);
        const payeeName = (pid: string) => replica?.payees.get(pid)?.name;
        const done = wanted.every(([tid, change]) => tid && applied(change, replica?.transactions.get(tid), payeeName));
        if (!done || !replica) {
          notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); the change was not found in YNAB, so it was sent again.`);
          return undefined;
        }
        notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); the change was found applied in YNAB, so it was not sent again.`);
        const lookup = replica.lookup();
        const details = wanted.map(([tid]) => transactionDetail(lookup, replica.transactions.get(tid!)!, replica.linesOf(tid!)));
        const data = one
          ? { transaction: details[0], server_knowledge: replica.knowledge }
          : { transactions: details, transaction_ids: details.map((d) => d.id), server_knowledge: replica.knowledge };
        return { status: 200, data };
      },
      notices,
    );
  }

  /** Deletes: done when the entity (named by the path's one id, answered as the row's member) is gone. */
  private deleteOnce(id: OperationId, base: Baseline, args: CallArgs): Promise<WriteResult> {
    const op = operation(id);
    const notices: string[] = [];
    let lost: unknown;
    const send = async (): Promise<CallResult> => {
      try {
        return await this.client.call(id, args);
      } catch (e) {
        if (!(lost && e instanceof ApiError && e.status === 404)) throw e;
        // Gone now: the attempt whose answer was lost had deleted it.
        const { delta } = await this.changes(base.id, base.knowledge, lost);
        const target = args.params?.[op.params[0]!];
        const tomb = [...(delta.transactions ?? []), ...(delta.scheduled_transactions ?? [])].find((x) => x.id === target);
        notices.push("The first attempt's answer was lost; it had already deleted it.");
        return { status: 200, data: { [op.member]: tomb ?? { id: target, deleted: true } } };
      }
    };
    return this.untilClear(
      send,
      async (e, attempt) => {
        lost = e;
        notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); checking whether it was deleted.`);
        return undefined;
      },
      notices,
    );
  }
}
