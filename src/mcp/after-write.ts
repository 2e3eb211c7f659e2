/**
 * What a write's answer should say that the API's own answer does not, read back from the
 * budget's copy once the write is merged (one delta request, which the next read would have
 * made anyway): the transactions an import created, and the month's Ready to Assign after money
 * was assigned. When the copy cannot be synced (quota spent, YNAB unreachable) the write still
 * stands and a notice says what could not be read.
 */
import { currentMonth } from '../api/dates.js';
import { formatMilliunits } from '../api/money.js';
import { operation, type OperationId } from '../api/operations/index.js';
import { transactionDetail } from '../api/read/transactions.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { ServerState } from './state.js';

export interface WriteFollowUp {
  /** Replaces the answer's data (e.g. ids → the transactions they name). */
  data?: Record<string, unknown>;
  extras?: Record<string, unknown>;
  notices?: string[];
}

type FollowUp = (r: BudgetReplica, data: Record<string, any>, params: Record<string, string>) => WriteFollowUp;

const FOLLOW_UPS: Partial<Record<OperationId, { what: string; run: FollowUp }>> = {
  importTransactions: {
    what: 'the imported transactions',
    run: (r, data) => {
      const ids = (data.transaction_ids ?? []) as string[];
      const l = r.lookup();
      const found = ids.map((id) => r.transactions.get(id)).filter((t) => t !== undefined);
      return { data: { ...data, transactions: found.map((t) => transactionDetail(l, t, r.linesOf(t.id))) } };
    },
  },
  updateMonthCategory: {
    what: "the month's new Ready to Assign",
    run: (r, _data, params) => {
      const month = params.month === 'current' ? currentMonth() : params.month!;
      const m = r.months.get(month);
      if (!m) return {};
      const format = r.summary.currency_format ?? null;
      return { extras: { ready_to_assign: { month, to_be_budgeted: m.to_be_budgeted, to_be_budgeted_formatted: formatMilliunits(m.to_be_budgeted, format) } } };
    },
  },
};

/** Runs the follow-up of a write, if it has one. */
export async function followUp(
  state: ServerState,
  op: OperationId,
  budgetId: string | undefined,
  data: Record<string, any>,
  params: Record<string, string>,
): Promise<WriteFollowUp> {
  const step = FOLLOW_UPS[op];
  if (!step || !budgetId) return {};
  const imported = operation(op).write?.followUp === 'imported-transactions';
  if (imported && !(data.transaction_ids as unknown[] | undefined)?.length) return { data: { ...data, transactions: [] } };
  try {
    const service = await state.service();
    const { replica, notice } = await service.replicas.fresh(budgetId);
    // A copy that could not be synced predates the write: what it says would be wrong.
    if (notice) throw new Error(notice);
    return step.run(replica, data, params);
  } catch (e) {
    const empty = imported ? { data: { ...data, transactions: [] } } : {};
    return { ...empty, notices: [`The change was made, but ${step.what} could not be read back (${(e as Error).message}).`] };
  }
}
