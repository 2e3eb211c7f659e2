/**
 * Transaction lists and one transaction. The shared builder (src/api/read/transactions.ts)
 * applies the service's filters; the sandbox adds the delta filter, which comes after the date
 * window so that a delta never reaches outside it (reported in pragprogrammer/mcp-ynab#26: an
 * old edit fetched with last_knowledge_of_server and no since_date came back as no transactions
 * and an advanced server_knowledge; test/sandbox/transactions-lists.test.ts). Under /budgets the lists
 * answer as that era's description does (no until_date, no since_date default, a month as
 * hybrid rows).
 */
import { listTransactions, transactionWindow, type TransactionQuery, type TransactionScope } from '../../api/read/transactions.js';
import { answersFromRuns, detailRuns } from '../store/list-runs.js';
import * as V from '../store/views.js';
import { requireAccount, requireCategory, requireMonth, requirePayee, requireTransaction, sinceKnowledge, visible } from './common.js';
import type { Handler, RequestContext } from './context.js';

function list(ctx: RequestContext, scope: TransactionScope) {
  const b = ctx.budget;
  const since = sinceKnowledge(ctx);
  const query = ctx.query as TransactionQuery;
  const style = ctx.era === 'budgets' ? { sinceDateDefault: ctx.op.legacy?.sinceDateDefault, monthAsHybrid: !!ctx.op.legacy?.data } : {};
  const window = transactionWindow(query, scope, b.today(), style);
  // Full lists of details come from runs kept a day at a time (list-runs.ts).
  if (answersFromRuns(scope, query, style, since !== undefined))
    return { data: { transactions: detailRuns(b, scope, window, style), server_knowledge: b.knowledge } };
  // Only the transactions the index finds for the scope and window are read, not the whole budget.
  const l = V.lookup(b);
  const candidates = b.index.candidates(scope, window, l.uncategorizedId);
  const transactions = listTransactions(
    l,
    V.transactionSource(b, (t) => visible(t.knowledge, t.deleted, since), candidates),
    query,
    scope,
    b.today(),
    style,
  );
  return { data: { transactions, server_knowledge: b.knowledge } };
}

export const transactionReadHandlers: Record<string, Handler> = {
  getTransactions: (ctx) => list(ctx, { kind: 'all' }),
  getTransactionsByAccount: (ctx) => list(ctx, { kind: 'account', id: requireAccount(ctx.budget, ctx.params.account_id!).id }),
  getTransactionsByMonth: (ctx) => list(ctx, { kind: 'month', month: requireMonth(ctx.budget, ctx.params.month!).month }),
  getTransactionsByCategory: (ctx) => list(ctx, { kind: 'category', id: requireCategory(ctx.budget, ctx.params.category_id!).id }),
  getTransactionsByPayee: (ctx) => list(ctx, { kind: 'payee', id: requirePayee(ctx.budget, ctx.params.payee_id!).id }),
  getTransactionById: (ctx) => {
    const b = ctx.budget;
    return { data: { transaction: V.transactionDetail(b, requireTransaction(b, ctx.params.transaction_id!)), server_knowledge: b.knowledge } };
  },
};
