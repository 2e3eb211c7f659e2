/**
 * Answers read operations from a replica with the same fields and values the service returns,
 * using the same builders as the sandbox (src/api/read). Operations outside the budget export
 * (the user, the budget list, money movements) are not answered here.
 */
import { currentMonth } from '../api/dates.js';
import { ApiError } from '../api/client/errors.js';
import { OPERATIONS, type OperationId, type ReplicaOperationId } from '../api/operations/index.js';
import * as R from '../api/read/entities.js';
import { LazyList } from '../api/read/lazy-list.js';
import type { BudgetLookup } from '../api/read/lookup.js';
import {
  listTransactions,
  byDateOnly,
  selectTransactions,
  subtransactionBase,
  transactionDetail,
  transactionSummaryBase,
  type TransactionQuery,
  type TransactionScope,
} from '../api/read/transactions.js';
import type * as E from '../api/schemas/entities.js';
import type { BudgetReplica } from './replica.js';

/** Operations a replica answers (the reads whose row says `read.replica`), when no delta is asked for. */
export const REPLICA_OPERATIONS: ReadonlySet<OperationId> = new Set(OPERATIONS.filter((op) => 'read' in op && op.read.replica).map((op) => op.id));

function isReplicaRead(id: OperationId): id is ReplicaOperationId {
  return REPLICA_OPERATIONS.has(id);
}

const notFound = (what: string) => new ApiError(404, '404.2', 'resource_not_found', `${what} was not found in this budget`);

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw notFound(what);
  return value;
}

export function exportOf(r: BudgetReplica): E.BudgetDetail {
  const l = r.lookup();
  const txns = [...r.transactions.values()];
  const scheduled = [...r.scheduled.values()];
  return {
    id: r.summary.id,
    name: r.summary.name,
    last_modified_on: r.summary.last_modified_on ?? undefined,
    first_month: r.summary.first_month ?? undefined,
    last_month: r.summary.last_month ?? undefined,
    date_format: r.summary.date_format,
    currency_format: r.summary.currency_format,
    accounts: [...r.accounts.values()].map(R.accountBase),
    payees: [...r.payees.values()].map(R.payee),
    payee_locations: [...r.payeeLocations.values()].map(R.payeeLocation),
    category_groups: [...r.categoryGroups.values()].map(R.categoryGroup),
    categories: [...r.categories.values()].map(R.categoryBase),
    months: [...r.months.values()].map((m) => ({ ...R.monthSummaryBase(m), categories: m.categories.map(R.categoryBase) })),
    transactions: txns.map(transactionSummaryBase),
    subtransactions: txns.flatMap((t) => r.linesOf(t.id).map((x) => subtransactionBase(l, x, t))),
    scheduled_transactions: scheduled.map(R.scheduledBase),
    scheduled_subtransactions: scheduled.flatMap((s) => r.scheduledLinesOf(s.id).map((x) => R.scheduledSubBase(l, x))),
  };
}

function monthOf(raw: string, now: Date): string {
  return raw === 'current' ? currentMonth(now) : raw;
}

export interface ReplicaAnswerOptions {
  /** Lists of transaction details as a LazyList: rows selected now, each detail built when shown. */
  lazyLists?: boolean;
}

/** What answering one read from a replica needs. */
interface Read {
  r: BudgetReplica;
  l: BudgetLookup;
  /** The replica's server knowledge. */
  k: number;
  params: Record<string, string>;
  /** The month a path names ("current" or YYYY-MM-01), or a 404. */
  month(raw: string): E.MonthDetailBase;
  /** The transactions of a scope, filtered by the query. */
  list(scope: TransactionScope): E.TransactionDetail[] | E.HybridTransaction[] | LazyList<E.TransactionSummaryBase, E.TransactionDetail>;
}

/**
 * How a replica answers each read whose row says `read.replica`: the `data` (plans-era member
 * names) the service would answer, with the same 404s for unknown ids and months. Keyed by
 * ReplicaOperationId, so a replica-answered row without its entry here is a compile error.
 */
const REPLICA_READS: Record<ReplicaOperationId, (q: Read) => Record<string, unknown>> = {
  getPlanById: ({ r, k }) => ({ plan: exportOf(r), server_knowledge: k }),
  getPlanSettingsById: ({ r }) => ({ settings: { date_format: r.summary.date_format, currency_format: r.summary.currency_format } }),
  getAccounts: ({ r, l, k }) => ({ accounts: [...r.accounts.values()].map((a) => r.memo(a, () => R.account(l, a))), server_knowledge: k }),
  getAccountById: ({ r, l, params }) => {
    const a = need(r.accounts.get(params.account_id!), `account ${params.account_id}`);
    return { account: r.memo(a, () => R.account(l, a)) };
  },
  getCategories: ({ r, l, k }) => ({
    category_groups: [...r.categoryGroups.values()].map((g) => ({
      ...R.categoryGroup(g),
      categories: [...r.categories.values()].filter((c) => c.category_group_id === g.id).map((c) => r.memo(c, () => R.category(l, c))),
    })),
    server_knowledge: k,
  }),
  getCategoryById: ({ r, l, params }) => ({ category: R.category(l, need(r.categories.get(params.category_id!), `category ${params.category_id}`)) }),
  getMonthCategoryById: ({ l, params, month }) => {
    const m = month(params.month!);
    return {
      category: R.category(
        l,
        need(
          m.categories.find((c) => c.id === params.category_id),
          `category ${params.category_id}`,
        ),
      ),
    };
  },
  getPayees: ({ r, k }) => ({ payees: [...r.payees.values()].map(R.payee), server_knowledge: k }),
  getPayeeById: ({ r, params }) => ({ payee: R.payee(need(r.payees.get(params.payee_id!), `payee ${params.payee_id}`)) }),
  getPayeeLocations: ({ r }) => ({ payee_locations: [...r.payeeLocations.values()].map(R.payeeLocation) }),
  getPayeeLocationById: ({ r, params }) => ({
    payee_location: R.payeeLocation(need(r.payeeLocations.get(params.payee_location_id!), `payee location ${params.payee_location_id}`)),
  }),
  getPayeeLocationsByPayee: ({ r, params }) => {
    const p = need(r.payees.get(params.payee_id!), `payee ${params.payee_id}`);
    return { payee_locations: [...r.payeeLocations.values()].filter((x) => x.payee_id === p.id).map(R.payeeLocation) };
  },
  getPlanMonths: ({ r, l, k }) => ({ months: [...r.months.values()].map((m) => R.monthSummary(l, m)), server_knowledge: k }),
  getPlanMonth: ({ r, l, params, month }) => {
    const m = month(params.month!);
    return { month: r.memo(m, () => R.monthDetail(l, m)) };
  },
  getTransactions: ({ k, list }) => ({ transactions: list({ kind: 'all' }), server_knowledge: k }),
  getTransactionsByAccount: ({ r, k, params, list }) => {
    need(r.accounts.get(params.account_id!), `account ${params.account_id}`);
    return { transactions: list({ kind: 'account', id: params.account_id! }), server_knowledge: k };
  },
  getTransactionsByCategory: ({ r, k, params, list }) => {
    need(r.categories.get(params.category_id!), `category ${params.category_id}`);
    return { transactions: list({ kind: 'category', id: params.category_id! }), server_knowledge: k };
  },
  getTransactionsByPayee: ({ r, k, params, list }) => {
    need(r.payees.get(params.payee_id!), `payee ${params.payee_id}`);
    return { transactions: list({ kind: 'payee', id: params.payee_id! }), server_knowledge: k };
  },
  getTransactionsByMonth: ({ k, params, month, list }) => ({ transactions: list({ kind: 'month', month: month(params.month!).month }), server_knowledge: k }),
  getTransactionById: ({ r, l, k, params }) => {
    const t = need(r.transactions.get(params.transaction_id!), `transaction ${JSON.stringify(params.transaction_id)}`);
    return { transaction: transactionDetail(l, t, r.linesOf(t.id)), server_knowledge: k };
  },
  getScheduledTransactions: ({ r, l, k }) => ({
    scheduled_transactions: [...r.scheduled.values()].map((s) => R.scheduledDetail(l, s, r.scheduledLinesOf(s.id))),
    server_knowledge: k,
  }),
  getScheduledTransactionById: ({ r, l, params }) => {
    const s = need(r.scheduled.get(params.scheduled_transaction_id!), `scheduled transaction ${JSON.stringify(params.scheduled_transaction_id)}`);
    return { scheduled_transaction: R.scheduledDetail(l, s, r.scheduledLinesOf(s.id)) };
  },
};

/**
 * The `data` of a read operation (plans-era member names), answered from the replica.
 * Throws the same 404s the service would for unknown ids and months.
 */
export function answerFromReplica(
  r: BudgetReplica,
  id: OperationId,
  params: Record<string, string>,
  query: TransactionQuery,
  now: Date,
  opts: ReplicaAnswerOptions = {},
): Record<string, unknown> {
  if (!isReplicaRead(id)) throw new Error(`${id} is not answered from a replica`);
  const l = r.lookup();
  const today = now.toISOString().slice(0, 10);
  // Details are built for each answer, not kept: kept for every transaction listed, they cost as
  // much memory as the replica itself, and building one takes about a microsecond.
  // In date order, sorted once a merge rather than at every list (the sort is stable, so a list
  // filtered from it is the one each answer sorted for itself before).
  const byDate = () => r.memo(r.transactions, () => [...r.transactions.values()].sort(byDateOnly));
  const source = () => ({ transactions: byDate(), inDateOrder: true, linesOf: (t: E.TransactionSummaryBase) => r.linesOf(t.id), include: () => true });
  const list = (scope: TransactionScope) => {
    if (opts.lazyLists && (scope.kind === 'all' || scope.kind === 'account' || scope.kind === 'month')) {
      return new LazyList(selectTransactions(l, source(), query, scope, today), (t) => transactionDetail(l, t, r.linesOf(t.id)));
    }
    return listTransactions(l, source(), query, scope, today);
  };
  const month = (raw: string) => need(r.months.get(monthOf(raw, now)), `month ${monthOf(raw, now)}`);
  return REPLICA_READS[id]({ r, l, k: r.knowledge, params, month, list });
}
