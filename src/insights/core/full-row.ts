/**
 * A transaction row in full detail: every field the API gives a transaction (as get_transaction
 * does), so that a model needs no further call for a row. The amount is named as the answer
 * vocabulary names it (src/mcp/output/vocabulary.ts: `amount`, with `amount_formatted` beside it),
 * never as the float `_currency` companion; null fields stay, since full detail says what is empty too.
 */
import type * as E from '../../api/schemas/entities.js';
import { transactionDetail } from '../../api/read/transactions.js';
import type { Money } from './format.js';
import type { InsightContext } from './types.js';
import type { Line } from './view.js';

/** An amount as a transaction row names it: milliunits as `amount`, and `amount_formatted` beside. */
function amountOf(money: Money, milliunits: number): Record<string, number | string> {
  return { amount: milliunits, amount_formatted: money('amount', milliunits).amount_formatted! };
}

/** A whole transaction with its split lines, as the API gives it. */
export function fullTransaction(ctx: Pick<InsightContext, 'view' | 'money'>, t: E.TransactionSummaryBase): Record<string, unknown> {
  const r = ctx.view.replica;
  const live = r.linesOf(t.id).filter((x) => !x.deleted);
  const { amount, amount_formatted: _f, amount_currency: _c, subtransactions, ...rest } = transactionDetail(r.lookup(), t, live);
  const { id, date, ...others } = rest;
  return {
    id,
    date,
    ...amountOf(ctx.money, amount),
    ...others,
    subtransactions: subtransactions.map(({ amount: a, amount_formatted: _lf, amount_currency: _lc, ...line }) => ({ ...line, ...amountOf(ctx.money, a) })),
  };
}

/**
 * A line of search_transactions in full detail: its transaction's fields, with the line's own
 * where it is a split's line (its id, amount, payee, category, memo, transfer), and `transaction_id`
 * naming the split. The split's other lines are rows of their own, so a row lists no lines.
 */
export function fullLine(ctx: InsightContext, l: Line): Record<string, unknown> {
  const { subtransactions: _s, ...whole } = fullTransaction(ctx, l.transaction);
  const line = l.parent_id ? ctx.view.replica.linesOf(l.parent_id).find((x) => x.id === l.id) : undefined;
  return {
    ...whole,
    id: l.id,
    transaction_id: l.parent_id,
    ...amountOf(ctx.money, l.amount),
    memo: l.memo,
    payee_id: l.payee_id,
    payee_name: ctx.view.payeeName(l.payee_id),
    category_id: l.category_id,
    category_name: ctx.view.categoryName(l),
    transfer_account_id: l.transfer_account_id,
    transfer_transaction_id: line ? (line.transfer_transaction_id ?? null) : (l.transaction.transfer_transaction_id ?? null),
  };
}
