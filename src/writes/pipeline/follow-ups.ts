/**
 * What a write's answer should say that the API's own answer does not, read back from the
 * budget's copy once the write is merged (one delta request, which the next read would have
 * made anyway), by the operation's `followUp` fact: the transactions an import created, and the
 * month's Ready to Assign after money was assigned. When the copy cannot be synced (quota spent,
 * YNAB unreachable) the write still stands and a notice says what could not be read. The answer
 * step of an API write (api-plan.ts).
 */
import { currentMonth } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import type { WriteFacts } from '../../api/operations/index.js';
import { transactionDetail } from '../../api/read/transactions.js';
import type { ReplicaManager } from '../../sync/manager.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { readFor } from './reads.js';

export interface WriteFollowUp {
  /** Replaces the answer's data (e.g. ids → the transactions they name). */
  data?: Record<string, unknown>;
  extras?: Record<string, unknown>;
  notices?: string[];
}

type Data = Record<string, unknown>;

interface FollowUp {
  /** What is read back, in words for the notice when it cannot be. */
  what: string;
  run(r: BudgetReplica, data: Data, params: Record<string, string>): WriteFollowUp;
  /** Whether there is anything to read back (an import that made nothing has not). */
  needed?(data: Data): boolean;
  /** What the answer holds when there is nothing to read back, or it could not be read (an import: no transactions). */
  empty?(data: Data): WriteFollowUp;
}

const idsOf = (data: Data): string[] => (Array.isArray(data.transaction_ids) ? data.transaction_ids.filter((id): id is string => typeof id === 'string') : []);

const FOLLOW_UPS: Readonly<Record<NonNullable<WriteFacts['followUp']>, FollowUp>> = {
  'imported-transactions': {
    what: 'the imported transactions',
    run: (r, data) => {
      const l = r.lookup();
      const found = idsOf(data)
        .map((id) => r.transactions.get(id))
        .filter((t) => t !== undefined);
      return { data: { ...data, transactions: found.map((t) => transactionDetail(l, t, r.linesOf(t.id))) } };
    },
    needed: (data) => idsOf(data).length > 0,
    empty: (data) => ({ data: { ...data, transactions: [] } }),
  },
  'ready-to-assign': {
    what: "the month's new Ready to Assign",
    run: (r, _data, params) => {
      const month = params.month === 'current' ? currentMonth() : params.month!;
      const m = r.months.get(month);
      if (!m) return {};
      const format = r.summary.currency_format ?? null;
      // The vocabulary's names (the API's to_be_budgeted is Ready to Assign), the month beside it.
      return { extras: { month, ready_to_assign: m.to_be_budgeted, ready_to_assign_formatted: formatMilliunits(m.to_be_budgeted, format) } };
    },
  },
};

/** Runs the follow-up a write operation has, if any. */
export async function followUp(
  replicas: ReplicaManager,
  kind: WriteFacts['followUp'],
  budgetId: string,
  data: Data,
  params: Record<string, string>,
): Promise<WriteFollowUp> {
  if (!kind) return {};
  const step = FOLLOW_UPS[kind];
  if (step.needed && !step.needed(data)) return step.empty?.(data) ?? {};
  try {
    const { replica, notice } = await readFor(replicas, budgetId, 'answer');
    // A copy that could not be synced predates the write: what it says would be wrong.
    if (notice) throw new Error(notice);
    return step.run(replica, data, params);
  } catch (e) {
    return { ...step.empty?.(data), notices: [`The change was made, but ${step.what} could not be read back (${(e as Error).message}).`] };
  }
}
