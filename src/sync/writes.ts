/**
 * Writes exactly once. When a write's answer is lost (the connection drops or times out after
 * the request was sent, or the service answers 500/503), the write may or may not have happened.
 * Sending it again blindly could create a transaction twice; giving up could lose it. So:
 *  - creates: fetch everything changed since just before the attempt and look for what was sent
 *    (same account, date, amount, payee and memo; same import_id when it has one); only what is
 *    not found is sent again;
 *  - updates: re-read and compare; send again only if the change is not there (they are
 *    idempotent, so a second send cannot double anything);
 *  - deletes: if it is gone, it is done.
 * The caller is told what happened, truthfully: created, found after a lost answer, or refused.
 */
import { ApiError, NetworkError, UncertainWriteError } from '../api/client/errors.js';
import type { CallArgs, CallResult, YnabClient } from '../api/client/client.js';
import { operation, type OperationId } from '../api/operations/index.js';
import * as R from '../api/read/entities.js';
import { transactionDetail } from '../api/read/transactions.js';
import type * as E from '../api/schemas/entities.js';
import { answerFromReplica } from './answer.js';
import type { ReplicaManager } from './manager.js';

/** How many times a write is attempted in all, and the delta fetched while recovering. */
const MAX_ATTEMPTS = 6;

export interface WriteResult extends CallResult {
  /** What happened on the way, when it was not a plain success. */
  notices: string[];
}

/** A failure after which the write may have been applied. */
function ambiguous(e: unknown): boolean {
  if (e instanceof NetworkError) return e.sent;
  return e instanceof ApiError && (e.status === 500 || e.status === 503);
}

type Item = Record<string, any>;

function sameTransaction(item: Item, t: E.TransactionSummaryBase, payeeName: (id: string | null | undefined) => string | null): boolean {
  if (t.deleted || t.account_id !== item.account_id || t.date !== item.date || t.amount !== item.amount) return false;
  if ((item.memo ?? null) !== (t.memo ?? null)) return false;
  if (item.import_id) return t.import_id === item.import_id;
  if (item.payee_id) return t.payee_id === item.payee_id;
  if (item.payee_name) return (payeeName(t.payee_id) ?? '').toLowerCase() === String(item.payee_name).trim().toLowerCase();
  return !t.payee_id;
}

/** Fields of an update that the entity must show for the update to count as applied. */
function applied(change: Item, current: Record<string, any> | undefined): boolean {
  if (!current) return false;
  return Object.entries(change).every(([k, v]) => k === 'subtransactions' || k === 'payee_name' || k === 'id' || k === 'import_id' || current[k] === v);
}

export class WriteCoordinator {
  constructor(
    private readonly client: YnabClient,
    private readonly replicas: ReplicaManager,
    /** Waits before attempt `n + 1`. */
    private readonly pause: (attempt: number) => Promise<void> = (attempt) => new Promise((r) => setTimeout(r, 100 * attempt)),
  ) {}

  async write(id: OperationId, args: CallArgs): Promise<WriteResult> {
    const op = operation(id);
    const budget = args.params?.budget_id;
    if (!budget || op.scope !== 'budget') return { ...(await this.client.call(id, args)), notices: [] };
    const base = await this.replicas.baseline(budget);
    if (id === 'createTransaction') return this.createTransactions(base, args);
    if (op.method === 'DELETE') return this.deleteOnce(id, base, args);
    if (id === 'updateTransaction' || id === 'updateTransactions') return this.updateTransactions(id, base, args);
    if (op.method === 'POST' && id !== 'importTransactions') return this.createOne(id, base, args);
    // Other updates set values (a name, an assigned amount): sending them again is harmless.
    return this.retrying(id, args);
  }

  /**
   * Sends a write until it gets a clear answer. After a failure that leaves the outcome open,
   * `recover` looks at YNAB: it returns the result when the write turns out to have happened, or
   * undefined to send it again.
   */
  private async untilClear(send: () => Promise<CallResult>, recover: (e: unknown, attempt: number) => Promise<CallResult | undefined>, notices: string[]): Promise<WriteResult> {
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
   * Fetches what changed since the baseline, retrying while the service is flaky. If that fails
   * too, the outcome of the write cannot be known: say so rather than guess.
   */
  private async changes(base: { id: string; knowledge: number }, cause: unknown): Promise<E.BudgetDetail> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.replicas.changesSince(base.id, base.knowledge);
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

  private async createTransactions(base: { id: string; knowledge: number }, args: CallArgs): Promise<WriteResult> {
    const body = args.body as { transactions?: Item[]; transaction?: Item };
    const items: Item[] = body.transactions ?? (body.transaction ? [body.transaction] : []);
    const single = !body.transactions;
    const found = new Map<number, E.TransactionDetail>();
    const duplicates: string[] = [];
    let pending = items.map((_, i) => i);
    const notices: string[] = [];
    let knowledge = 0;
    for (let attempt = 1; pending.length; attempt++) {
      try {
        const res = await this.client.call('createTransaction', { ...args, body: single ? { transaction: items[pending[0]!] } : { transactions: pending.map((i) => items[i]) } });
        knowledge = res.data.server_knowledge;
        const created: E.TransactionDetail[] = res.data.transactions ?? (res.data.transaction ? [res.data.transaction] : []);
        const claimed = new Set<string>();
        for (const i of pending) {
          const t = created.find((c) => !claimed.has(c.id) && sameTransaction(items[i]!, c, () => c.payee_name ?? null));
          if (t) {
            claimed.add(t.id);
            found.set(i, t);
          }
        }
        duplicates.push(...(res.data.duplicate_import_ids ?? []));
        break;
      } catch (e) {
        if (!ambiguous(e) || attempt >= MAX_ATTEMPTS) {
          if (found.size && !(ambiguous(e))) notices.push(`${found.size} of the transactions had been created before this error.`);
          throw e;
        }
        // The answer was lost: find what already arrived, send only the rest.
        const delta = await this.changes(base, e);
        const replica = this.replicas.peek(base.id);
        const lookup = replica?.lookup();
        const claimed = new Set([...found.values()].map((t) => t.id));
        const before = pending.length;
        pending = pending.filter((i) => {
          const t = (delta.transactions ?? []).find((x) => !claimed.has(x.id) && sameTransaction(items[i]!, x, (id) => lookup?.payeeName(id ?? null) ?? null));
          if (!t || !lookup || !replica) return true;
          claimed.add(t.id);
          found.set(i, transactionDetail(lookup, t, replica.linesOf(t.id)));
          return false;
        });
        const recovered = before - pending.length;
        notices.push(
          `Attempt ${attempt} got no answer (${(e as Error).message}). ${recovered ? `${recovered} transaction(s) had been created anyway and were not sent again. ` : ''}${pending.length ? `Sending the ${pending.length} not found in YNAB again.` : ''}`.trim(),
        );
      }
    }
    const ordered = items.map((_, i) => found.get(i)).filter((t): t is E.TransactionDetail => t !== undefined);
    const data: Record<string, unknown> = {
      transaction_ids: ordered.map((t) => t.id),
      ...(single && ordered[0] ? { transaction: ordered[0] } : { transactions: ordered }),
      duplicate_import_ids: duplicates,
      server_knowledge: knowledge || this.replicas.peek(base.id)?.knowledge || 0,
    };
    this.replicas.applyWrite(base.id, data);
    return { status: 201, data, notices };
  }

  private updateTransactions(id: 'updateTransaction' | 'updateTransactions', base: { id: string; knowledge: number }, args: CallArgs): Promise<WriteResult> {
    const notices: string[] = [];
    return this.untilClear(
      () => this.client.call(id, args),
      async (e, attempt) => {
        await this.changes(base, e);
        const replica = this.replicas.peek(base.id);
        const body = args.body as { transaction?: Item; transactions?: Item[] };
        const wanted: [string | undefined, Item][] =
          id === 'updateTransaction'
            ? [[args.params?.transaction_id, body.transaction ?? {}]]
            : (body.transactions ?? []).map((t) => [t.id ?? [...(replica?.transactions.values() ?? [])].find((x) => x.import_id === t.import_id)?.id, t]);
        const done = wanted.every(([tid, change]) => tid && applied(change, replica?.transactions.get(tid)));
        if (!done || !replica) {
          notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); the change was not found in YNAB, so it was sent again.`);
          return undefined;
        }
        notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); the change was found applied in YNAB, so it was not sent again.`);
        const lookup = replica.lookup();
        const details = wanted.map(([tid]) => transactionDetail(lookup, replica.transactions.get(tid!)!, replica.linesOf(tid!)));
        const data =
          id === 'updateTransaction'
            ? { transaction: details[0], server_knowledge: replica.knowledge }
            : { transactions: details, transaction_ids: details.map((d) => d.id), server_knowledge: replica.knowledge };
        return { status: 200, data };
      },
      notices,
    );
  }

  private deleteOnce(id: OperationId, base: { id: string; knowledge: number }, args: CallArgs): Promise<WriteResult> {
    const notices: string[] = [];
    let lost: unknown;
    const send = async (): Promise<CallResult> => {
      try {
        return await this.client.call(id, args);
      } catch (e) {
        if (!(lost && e instanceof ApiError && e.status === 404)) throw e;
        // Gone now: the attempt whose answer was lost had deleted it.
        const delta = await this.changes(base, lost);
        const key = id === 'deleteTransaction' ? 'transaction_id' : 'scheduled_transaction_id';
        const target = args.params?.[key];
        const tomb = [...(delta.transactions ?? []), ...(delta.scheduled_transactions ?? [])].find((x) => x.id === target);
        notices.push('The first attempt\'s answer was lost; it had already deleted it.');
        return { status: 200, data: { [id === 'deleteTransaction' ? 'transaction' : 'scheduled_transaction']: tomb ?? { id: target, deleted: true } } };
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

  /** Creates of payees, categories, groups, accounts and scheduled transactions: found by what was sent. */
  private createOne(id: OperationId, base: { id: string; knowledge: number }, args: CallArgs): Promise<WriteResult> {
    const op = operation(id);
    const sent = (args.body as Record<string, Item>)[op.bodyMembers![0]!]!;
    const notices: string[] = [];
    return this.untilClear(
      () => this.client.call(id, args),
      async (e, attempt) => {
        const delta = await this.changes(base, e);
        const match = findCreated(id, sent, delta);
        const replica = this.replicas.peek(base.id);
        if (!match || !replica) {
          notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); it was not found in YNAB, so it was sent again.`);
          return undefined;
        }
        notices.push(`Attempt ${attempt} got no answer (${(e as Error).message}); it had been created anyway and was not sent again.`);
        // Answered from the replica, which the delta just brought up to date: no extra request.
        const data =
          id === 'createCategoryGroup'
            ? { category_group: R.categoryGroup(match as E.CategoryGroup) }
            : answerFromReplica(replica, readBack(id), { budget_id: base.id, ...readBackParams(id, match.id) }, {}, new Date());
        return { status: op.status, data: { ...data, ...(op.data.shape.server_knowledge ? { server_knowledge: replica.knowledge } : {}) } };
      },
      notices,
    );
  }
}

function findCreated(id: OperationId, sent: Item, d: E.BudgetDetail): { id: string } | undefined {
  // Names compare as the service compares them: trimmed, case-insensitive.
  const same = (a: unknown, b: unknown) => String(a ?? '').trim().toLowerCase() === String(b ?? '').trim().toLowerCase();
  switch (id) {
    case 'createPayee':
      return d.payees?.find((p) => !p.deleted && same(p.name, sent.name));
    case 'createCategoryGroup':
      return d.category_groups?.find((g) => !g.deleted && same(g.name, sent.name));
    case 'createCategory':
      return d.categories?.find((c) => !c.deleted && same(c.name, sent.name) && c.category_group_id === sent.category_group_id);
    case 'createAccount':
      return d.accounts?.find((a) => !a.deleted && same(a.name, sent.name) && a.type === sent.type);
    case 'createScheduledTransaction':
      return d.scheduled_transactions?.find(
        (s) => !s.deleted && s.account_id === sent.account_id && s.date_first === sent.date && s.amount === (sent.amount ?? 0) && (s.memo ?? null) === (sent.memo ?? null),
      );
    default:
      return undefined;
  }
}

function readBack(id: OperationId): OperationId {
  return ({ createPayee: 'getPayeeById', createCategory: 'getCategoryById', createAccount: 'getAccountById', createScheduledTransaction: 'getScheduledTransactionById' } as Record<string, OperationId>)[id]!;
}

function readBackParams(id: OperationId, entity: string): Record<string, string> {
  return ({ createPayee: { payee_id: entity }, createCategory: { category_id: entity }, createAccount: { account_id: entity }, createScheduledTransaction: { scheduled_transaction_id: entity } } as Record<string, Record<string, string>>)[id] ?? {};
}
