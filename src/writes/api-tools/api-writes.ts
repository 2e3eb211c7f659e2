/**
 * What each of the API's own write tools touches (create_transactions, update_transaction(s),
 * delete_transaction, import_transactions, the scheduled, category, payee and month writes), one
 * row per write operation, so that a write operation without one is a compile error: which
 * entities a request touches, their state now (from the budget's copy) and after (as the request
 * would leave them, for the preview; as the answer shows them, for the journal). The operation's
 * own row says the rest (src/api/operations: what it makes, batch, duplicate guard, follow-up);
 * api-plan.ts makes a request's plan from both.
 */
import type { CallArgs } from '../../api/client/client.js';
import { currentMonth } from '../../api/dates.js';
import type { WriteOperationId } from '../../api/operations/index.js';
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';
import {
  accountState,
  categoryState,
  currentState,
  groupState,
  monthCategoryId,
  monthCategoryState,
  payeeState,
  scheduledState,
  transactionState,
  type EntityChange,
  type EntityKind,
  type State,
} from '../pipeline/entities.js';
import { checkTargetWrite } from '../targets/target-checks.js';

/** A request's body, and the API's answer: JSON as the operations table types it. */
export type Item = Record<string, any>;

/** A change's fields applied to a state (lines replace lines; a payee given by name is shown by name). */
function predict(before: State | null, change: Item): State {
  const after: State = { ...(before ?? {}) };
  for (const [k, v] of Object.entries(change)) {
    if (v === undefined || k === 'id') continue;
    if (k === 'subtransactions') after.subtransactions = transactionState({ subtransactions: v }).subtransactions;
    else if (k === 'payee_name' && change.payee_id === undefined && v !== null) {
      after.payee_id = null;
      after.payee_name = v;
    } else if (k === 'date' && before && 'date_next' in before) after.date_next = v;
    else after[k] = v;
  }
  return after;
}

/**
 * A rename to a name another payee has: YNAB would keep both, and from then on the name no longer
 * finds one payee (names are matched ignoring case and spaces at the ends, as resolve.ts does).
 */
function nameTaken(call: CallArgs, r: BudgetReplica): void {
  const id = param(call, 'payee_id');
  const name = body(call, 'payee').name;
  if (typeof name !== 'string') return;
  const key = name.trim().toLowerCase();
  const other = [...r.payees.values()].find((p) => !p.deleted && p.id !== id && p.name.trim().toLowerCase() === key);
  if (!other) return;
  throw new ArgumentError(
    `another payee is already called ${JSON.stringify(other.name)} (${other.id}); two payees of one name would make that name ambiguous. To move this payee's transactions to it, use merge_payees; otherwise choose another name`,
  );
}

const NOT_DELETABLE = "YNAB's API cannot delete categories, category groups, payees or accounts; hide or close it in YNAB instead";

export interface ApiWrite {
  kind: EntityKind;
  /** Entities touched, with before (now) and after (predicted). */
  entities(call: CallArgs, r: BudgetReplica): EntityChange[];
  /** The entities as the answer shows them, with the before-states of the plan. */
  answered(data: Item, plan: EntityChange[], call: CallArgs): EntityChange[];
  not_undoable?: string;
  verb: string;
  /** What the plan and the journal say, where describing the entities does not serve (an import names none beforehand). */
  says?: { plan: string; done(entities: EntityChange[]): string };
  /** Throws an ArgumentError saying why, when the budget cannot take this request as it stands (before anything is sent). */
  check?(call: CallArgs, r: BudgetReplica): void;
}

const body = (call: CallArgs, member: string): Item => ((call.body ?? {}) as Item)[member] ?? {};
const param = (call: CallArgs, name: string): string => call.params?.[name] ?? '';
const monthOf = (call: CallArgs) => (param(call, 'month') === 'current' ? currentMonth() : param(call, 'month'));

/** The transaction an update item names: by id, or the one transaction with its import_id (on its account). */
function targetOf(item: Item, r: BudgetReplica): string | undefined {
  if (item.id) return item.id;
  const found = [...r.transactions.values()].filter(
    (t) => !t.deleted && t.import_id === item.import_id && (!item.account_id || t.account_id === item.account_id),
  );
  return found.length === 1 ? found[0]!.id : undefined;
}

/**
 * The transactions an update makes a split of for the first time: an item with lines whose
 * transaction is not a split yet (by the budget's copy; without one, every item with lines). Held
 * for confirmation as split_transaction holds a first split (policy.ts, kind 'split'); an existing
 * split's lines YNAB cannot update at all (src/sync/transaction-updates.ts refuses that).
 */
export function firstSplits(call: CallArgs, r?: BudgetReplica): string[] {
  const b = (call.body ?? {}) as Item;
  const items: Item[] = b.transaction ? [{ ...b.transaction, id: param(call, 'transaction_id') }] : Array.isArray(b.transactions) ? b.transactions : [];
  return items
    .filter((item) => Array.isArray(item.subtransactions) && item.subtransactions.length > 0)
    .map((item) => (r ? targetOf(item, r) : (item.id ?? item.import_id)) as string | undefined)
    .filter((id): id is string => id !== undefined && (!r || !r.linesOf(id).some((l) => !l.deleted)));
}

/** A transfer's other side, when it is a transaction of its own (not a split line's). */
export function pairOf(r: BudgetReplica, id: string): EntityChange | undefined {
  const t = r.transactions.get(id);
  const pair = t?.transfer_transaction_id ? r.transactions.get(t.transfer_transaction_id) : undefined;
  if (!pair || pair.deleted) return undefined;
  return { kind: 'transaction', id: pair.id, action: 'delete', before: transactionState(pair, r.linesOf(pair.id)), after: null, linked: true };
}

function one(kind: EntityKind, idParam: string, member: string, state: (x: Item) => State, verb: string): ApiWrite {
  return {
    kind,
    verb,
    entities: (call, r) => {
      const id = param(call, idParam);
      const before = currentState(r, kind, id);
      return [{ kind, id, action: 'update', before, after: predict(before, body(call, member)) }];
    },
    answered: (data, plan) => (data[member] ? [{ ...plan[0]!, after: state(data[member]) }] : plan),
  };
}

function created(kind: EntityKind, member: string, state: (x: Item) => State, verb: string): ApiWrite {
  return {
    kind,
    verb,
    entities: (call) => [{ kind, id: 'new', action: 'create', before: null, after: body(call, member) }],
    answered: (data) => (data[member] ? [{ kind, id: data[member].id, action: 'create', before: null, after: state(data[member]) }] : []),
    not_undoable: NOT_DELETABLE,
  };
}

const TRANSACTION_LIST = (data: Item): E.TransactionDetail[] => [
  ...(data.transaction ? [data.transaction] : []),
  ...(Array.isArray(data.transactions) ? data.transactions : []),
];

/** Updated transactions as the answer shows them, with their states before from the plan. */
const updatedTransactions = (data: Item, plan: EntityChange[]): EntityChange[] =>
  TRANSACTION_LIST(data).map((t) => ({
    kind: 'transaction',
    id: t.id,
    action: 'update',
    before: plan.find((e) => e.id === t.id)?.before ?? null,
    after: transactionState(t),
  }));

export const API_WRITES: Readonly<Record<WriteOperationId, ApiWrite>> = {
  createTransaction: {
    kind: 'transaction',
    verb: 'Create',
    entities: (call) =>
      ((call.body as Item).transactions ?? [(call.body as Item).transaction]).map((t: Item, i: number) => ({
        kind: 'transaction',
        id: `new-${i + 1}`,
        action: 'create',
        before: null,
        after: predict(null, t),
      })),
    answered: (data) => TRANSACTION_LIST(data).map((t) => ({ kind: 'transaction', id: t.id, action: 'create', before: null, after: transactionState(t) })),
  },
  updateTransaction: {
    kind: 'transaction',
    verb: 'Update',
    entities: (call, r) => {
      const id = param(call, 'transaction_id');
      const before = currentState(r, 'transaction', id);
      return [{ kind: 'transaction', id, action: 'update', before, after: predict(before, body(call, 'transaction')) }];
    },
    answered: updatedTransactions,
  },
  updateTransactions: {
    kind: 'transaction',
    verb: 'Update',
    entities: (call, r) =>
      ((call.body as Item).transactions as Item[]).map((item) => {
        const id = targetOf(item, r) ?? item.id ?? `import_id ${item.import_id}`;
        const before = currentState(r, 'transaction', id);
        const { import_id: _i, ...change } = item;
        return {
          kind: 'transaction' as const,
          id: before ? id : (item.id ?? `import_id ${item.import_id}`),
          action: 'update' as const,
          before,
          after: predict(before, change),
        };
      }),
    answered: updatedTransactions,
  },
  deleteTransaction: {
    kind: 'transaction',
    verb: 'Delete',
    entities: (call, r) => {
      const id = param(call, 'transaction_id');
      const pair = pairOf(r, id);
      return [{ kind: 'transaction', id, action: 'delete', before: currentState(r, 'transaction', id), after: null }, ...(pair ? [pair] : [])];
    },
    answered: (_data, plan) => plan,
  },
  importTransactions: {
    kind: 'transaction',
    verb: 'Import',
    entities: () => [],
    answered: (data) => ((data.transaction_ids ?? []) as string[]).map((id) => ({ kind: 'transaction', id, action: 'create', before: null, after: null })),
    not_undoable: 'imported transactions come from the bank connection; delete any of them with delete_transaction',
    says: { plan: 'Import the transactions waiting in linked accounts', done: (entities) => `Imported ${entities.length} transaction(s) from linked accounts` },
  },
  createScheduledTransaction: {
    kind: 'scheduled_transaction',
    verb: 'Create',
    entities: (call) => {
      const s = body(call, 'scheduled_transaction');
      return [
        {
          kind: 'scheduled_transaction',
          id: 'new',
          action: 'create',
          before: null,
          after: scheduledState({ ...s, date_first: s.date, date_next: s.date, amount: s.amount ?? 0 }),
        },
      ];
    },
    answered: (data) =>
      data.scheduled_transaction
        ? [
            {
              kind: 'scheduled_transaction',
              id: data.scheduled_transaction.id,
              action: 'create',
              before: null,
              after: scheduledState(data.scheduled_transaction),
            },
          ]
        : [],
  },
  updateScheduledTransaction: one('scheduled_transaction', 'scheduled_transaction_id', 'scheduled_transaction', (s) => scheduledState(s), 'Update'),
  deleteScheduledTransaction: {
    kind: 'scheduled_transaction',
    verb: 'Delete',
    entities: (call, r) => {
      const id = param(call, 'scheduled_transaction_id');
      return [{ kind: 'scheduled_transaction', id, action: 'delete', before: currentState(r, 'scheduled_transaction', id), after: null }];
    },
    answered: (_data, plan) => plan,
  },
  updateMonthCategory: {
    kind: 'month_category',
    verb: 'Assign',
    entities: (call, r) => {
      const id = monthCategoryId(monthOf(call), param(call, 'category_id'));
      const before = currentState(r, 'month_category', id);
      return [{ kind: 'month_category', id, action: 'update', before, after: predict(before, body(call, 'category')) }];
    },
    answered: (data, plan, call) => (data.category ? [{ ...plan[0]!, after: monthCategoryState(monthOf(call), data.category) }] : plan),
  },
  updateCategory: {
    ...one('category', 'category_id', 'category', categoryState, 'Update'),
    check: (call, r) => checkTargetWrite(r, body(call, 'category'), r.categories.get(param(call, 'category_id'))),
  },
  updateCategoryGroup: one('category_group', 'category_group_id', 'category_group', groupState, 'Update'),
  updatePayee: { ...one('payee', 'payee_id', 'payee', payeeState, 'Update'), check: nameTaken },
  createCategory: { ...created('category', 'category', categoryState, 'Create'), check: (call, r) => checkTargetWrite(r, body(call, 'category')) },
  createCategoryGroup: created('category_group', 'category_group', groupState, 'Create'),
  createPayee: created('payee', 'payee', payeeState, 'Create'),
  createAccount: created('account', 'account', accountState, 'Create'),
};
