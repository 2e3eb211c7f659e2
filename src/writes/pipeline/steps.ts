/**
 * The writes every plan is applied with (an API write tool's one request; what task-shaped tools
 * and undo are made of), each one request through the service, so each goes the exactly-once
 * way (src/sync/writes.ts: creates recovered by identity, updates re-read and compared, deletes
 * done when gone) and lands in the budget's copy: create, update and delete transactions, set a
 * month's assignment, and put any entity back to a recorded state (update it, re-create it, or
 * delete it), declared per kind.
 */
import type { CallArgs } from '../../api/client/client.js';
import type { WriteOperationId } from '../../api/operations/index.js';
import type * as E from '../../api/schemas/entities.js';
import type { ServiceResult, YnabService } from '../../sync/service.js';
import type { EntityKind, State } from './entities.js';
import type { Draft } from './plan.js';

type Item = Record<string, any>;

/** Updates sent in one request (the API takes more; this keeps each request's answer small). */
const CHUNK = 100;

/**
 * A step that cannot be made at all, for a reason the user can act on. `partial`: what the task
 * had applied before it and could not put back; it is journaled, so undo_change can.
 */
export class StepError extends Error {
  override readonly name = 'StepError';
  constructor(
    message: string,
    readonly partial?: Draft,
  ) {
    super(message);
  }
}

/** A transaction's state as a create body (its lines as split lines; a transfer payee makes the other side again). */
export function transactionBody(s: State, opts: { importId?: boolean } = {}): Item {
  const lines = (s.subtransactions as State[] | undefined) ?? [];
  return {
    account_id: s.account_id,
    date: s.date,
    amount: s.amount,
    payee_id: s.payee_id ?? null,
    ...(s.payee_id ? {} : s.payee_name ? { payee_name: s.payee_name } : {}),
    category_id: lines.length ? null : (s.category_id ?? null),
    memo: s.memo ?? null,
    cleared: s.cleared,
    approved: s.approved,
    ...(s.flag_color ? { flag_color: s.flag_color } : {}),
    ...(opts.importId !== false && s.import_id ? { import_id: s.import_id } : {}),
    ...(lines.length
      ? { subtransactions: lines.map((x) => ({ amount: x.amount, payee_id: x.payee_id ?? null, category_id: x.category_id ?? null, memo: x.memo ?? null })) }
      : {}),
  };
}

/** The fields of a transaction an update puts back (a split's lines and amount cannot be; see undo.ts). */
function transactionRestore(s: State, split: boolean): Item {
  return {
    account_id: s.account_id,
    ...(split ? {} : { date: s.date, amount: s.amount, category_id: s.category_id ?? null }),
    payee_id: s.payee_id ?? null,
    memo: s.memo ?? null,
    cleared: s.cleared,
    approved: s.approved,
    flag_color: s.flag_color ?? null,
  };
}

function scheduledBody(s: State): Item {
  return {
    account_id: s.account_id,
    date: s.date_next,
    amount: s.amount,
    payee_id: s.payee_id ?? null,
    category_id: s.category_id ?? null,
    memo: s.memo ?? null,
    ...(s.flag_color ? { flag_color: s.flag_color } : {}),
    frequency: s.frequency,
  };
}

export class Writer {
  /** What happened on the way (answers lost and recovered), for the result's notices. */
  readonly notices: string[] = [];
  /** The records of the requests made (src/sync/writes.ts), still being written: settled() awaits them. */
  private readonly settling: Promise<void>[] = [];
  private readonly late = { settle: (records: Promise<void>) => void this.settling.push(records) };

  constructor(
    private readonly service: YnabService,
    readonly budgetId: string,
  ) {}

  /**
   * Once the records of every request made are written (the create records, the written mark, the
   * cached answers forgotten): awaited before the write's answer goes (pipeline.ts), so that the
   * store writes after a request go with them. Never rejects (what could not be recorded was logged).
   */
  async settled(): Promise<void> {
    while (this.settling.length) await Promise.all(this.settling.splice(0));
  }

  private async call(id: Parameters<YnabService['call']>[0], params: Record<string, string>, body?: unknown): Promise<Item> {
    const res = await this.service.call(id, { params: { budget_id: this.budgetId, ...params }, query: {}, body }, this.late);
    this.notices.push(...(res.notices ?? []));
    return res.data;
  }

  /** An API write tool's one request, as the tool built it; what it met on the way stays with its result (the tool's answer lists it first). */
  async send(id: WriteOperationId, call: CallArgs): Promise<ServiceResult> {
    return this.service.call(id, call, this.late);
  }

  /** Creates transactions; the answer's transactions and the import ids YNAB refused as duplicates. */
  async createTransactions(items: Item[]): Promise<{ created: E.TransactionDetail[]; duplicateImportIds: string[] }> {
    const data = await this.call('createTransaction', {}, { transactions: items });
    return { created: data.transactions ?? [], duplicateImportIds: data.duplicate_import_ids ?? [] };
  }

  /**
   * Updates transactions, a hundred per request (`chunk`: more, where the request count matters
   * more than the answer's size: a statement's rows); returns what each answer showed, in order.
   */
  async updateTransactions(items: Item[], done: (updated: E.TransactionDetail[]) => void = () => {}, chunk = CHUNK): Promise<E.TransactionDetail[]> {
    const out: E.TransactionDetail[] = [];
    for (let i = 0; i < items.length; i += chunk) {
      const data = await this.call('updateTransactions', {}, { transactions: items.slice(i, i + chunk) });
      out.push(...(data.transactions ?? []));
      done(data.transactions ?? []);
    }
    return out;
  }

  /**
   * Puts transactions back to recorded states (a split's lines aside: `split` leaves out what a
   * split cannot take), in as few requests as `chunk` allows;
   * returns what the answers showed. With `from` (the state it is in now), only the fields that
   * differ are sent: the other side of a transfer a split line made refuses even an unchanged
   * account, date, amount, payee or category.
   */
  async restoreTransactions(items: { id: string; state: State; from?: State | null; split?: boolean }[], chunk = CHUNK): Promise<E.TransactionDetail[]> {
    return this.updateTransactions(
      items.map((x) => {
        const all = transactionRestore(x.state, x.split === true);
        const from = x.from;
        return { id: x.id, ...(from ? Object.fromEntries(Object.entries(all).filter(([k, v]) => (from[k] ?? null) !== (v ?? null))) : all) };
      }),
      () => {},
      chunk,
    );
  }

  async updateTransaction(id: string, change: Item): Promise<E.TransactionDetail> {
    return (await this.call('updateTransaction', { transaction_id: id }, { transaction: change })).transaction;
  }

  async deleteTransaction(id: string): Promise<void> {
    await this.call('deleteTransaction', { transaction_id: id });
  }

  /** Sets what is assigned to a category in a month; returns the category as the answer shows it. */
  async setAssigned(month: string, categoryId: string, budgeted: number): Promise<E.CategoryBase> {
    return (await this.call('updateMonthCategory', { month, category_id: categoryId }, { category: { budgeted } })).category;
  }

  /** Makes an entity as it was (an update back); returns what the answer shows. */
  async restore(kind: EntityKind, id: string, s: State, split = false): Promise<Item> {
    switch (kind) {
      case 'transaction':
        return this.updateTransaction(id, transactionRestore(s, split));
      case 'scheduled_transaction':
        return (await this.call('updateScheduledTransaction', { scheduled_transaction_id: id }, { scheduled_transaction: scheduledBody(s) }))
          .scheduled_transaction;
      case 'month_category': {
        const [month, categoryId] = id.split('/') as [string, string];
        return this.setAssigned(month, categoryId, s.budgeted as number);
      }
      case 'category':
        return (
          await this.call(
            'updateCategory',
            { category_id: id },
            {
              category: {
                name: s.name,
                note: s.note ?? null,
                category_group_id: s.category_group_id,
                goal_target: s.goal_target ?? null,
                goal_target_date: s.goal_target_date ?? null,
              },
            },
          )
        ).category;
      case 'category_group':
        return (await this.call('updateCategoryGroup', { category_group_id: id }, { category_group: { name: s.name } })).category_group;
      case 'payee':
        return (await this.call('updatePayee', { payee_id: id }, { payee: { name: s.name } })).payee;
      case 'account':
        throw new StepError("YNAB's API cannot change an account");
    }
  }

  /** Creates an entity again from its recorded state: it gets a new id. */
  async recreate(kind: EntityKind, s: State): Promise<Item> {
    if (kind === 'transaction') return this.recreateTransaction(s);
    if (kind === 'scheduled_transaction')
      return (await this.call('createScheduledTransaction', {}, { scheduled_transaction: scheduledBody(s) })).scheduled_transaction;
    throw new StepError(`YNAB's API cannot create a ${kind.replace('_', ' ')} again here`);
  }

  /** Creates a transaction again from its recorded state, without its import id when YNAB refuses that again. */
  async recreateTransaction(s: State): Promise<E.TransactionDetail> {
    const { created, duplicateImportIds } = await this.createTransactions([transactionBody(s)]);
    if (created[0]) return created[0];
    if (duplicateImportIds.length) {
      // YNAB keeps the import id of a deleted transaction: the new one goes without it.
      this.notices.push(`YNAB did not accept the import id ${JSON.stringify(s.import_id)} again, so the re-created transaction has none.`);
      const again = await this.createTransactions([transactionBody(s, { importId: false })]);
      if (again.created[0]) return again.created[0];
    }
    throw new StepError('YNAB created nothing');
  }

  /** Deletes an entity (only transactions and scheduled transactions can be). */
  async remove(kind: EntityKind, id: string): Promise<void> {
    if (kind === 'transaction') return this.deleteTransaction(id);
    if (kind === 'scheduled_transaction') {
      await this.call('deleteScheduledTransaction', { scheduled_transaction_id: id });
      return;
    }
    throw new StepError(`YNAB's API cannot delete a ${kind.replace('_', ' ')}`);
  }
}
