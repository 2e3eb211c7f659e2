/**
 * Scheduled transactions: future-dated (at most five years ahead), optionally recurring.
 * Creating a split is not supported by the service; splits made in the apps are kept as they are.
 */
import type { z } from 'zod';
import { addYears } from '../../api/dates.js';
import type * as B from '../../api/schemas/bodies.js';
import { payeeNamed } from '../domain/payees.js';
import { insertScheduled, scheduledCategory } from '../domain/scheduled.js';
import { badRequest, resourceNotFound } from '../errors.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { ScheduledTransactionRec } from '../store/records.js';
import * as V from '../store/views.js';
import { sinceKnowledge, visible } from './common.js';
import type { Handler } from './context.js';

type Input = B.SaveScheduledTransaction;

function requireScheduled(b: BudgetStore, id: string): ScheduledTransactionRec {
  const s = b.rec.scheduled_transactions.get(id);
  if (!s || s.deleted) throw resourceNotFound(`scheduled transaction ${JSON.stringify(id)} was not found in this budget`);
  return s;
}

/** Checks a scheduled transaction write; returns the fields to store (payee name resolved on apply). */
function check(b: BudgetStore, input: Input) {
  const account = b.account(input.account_id);
  if (!account) throw badRequest(`scheduled_transaction.account_id ${input.account_id} does not exist in this budget`);
  const today = b.today();
  const latest = addYears(today, 5);
  if (input.date <= today || input.date > latest) {
    throw badRequest(
      `scheduled_transaction.date must be a future date no more than 5 years ahead (after ${today} and on or before ${latest}), got ${input.date}`,
    );
  }
  let transferAccountId: string | null = null;
  if (input.payee_id) {
    const payee = b.payee(input.payee_id);
    if (!payee) throw badRequest(`scheduled_transaction.payee_id ${input.payee_id} does not exist in this budget`);
    if (payee.transfer_account_id === account.id)
      throw badRequest("scheduled_transaction.payee_id is this account's own transfer payee: a transfer needs another account");
    transferAccountId = payee.transfer_account_id;
  }
  let categoryId = input.category_id ?? null;
  if (categoryId) {
    const c = b.category(categoryId);
    if (!c) throw badRequest(`scheduled_transaction.category_id ${categoryId} does not exist in this budget`);
    if (c.role === 'credit_card_payment') throw badRequest('Credit Card Payment categories are not permitted on scheduled transactions');
    categoryId = c.role === 'uncategorized' ? null : scheduledCategory(account, transferAccountId ? b.account(transferAccountId) : undefined, categoryId);
  }
  return {
    account_id: account.id,
    date_first: input.date,
    frequency: input.frequency ?? 'never',
    amount: input.amount ?? 0,
    memo: input.memo ?? null,
    flag_color: input.flag_color ?? null,
    payee_id: input.payee_id ?? null,
    payee_name: input.payee_id ? null : (input.payee_name ?? null),
    category_id: categoryId,
    transfer_account_id: transferAccountId,
  };
}

function apply(b: BudgetStore, target: ScheduledTransactionRec, fields: ReturnType<typeof check>) {
  const { payee_name, ...rest } = fields;
  const split = target.subtransactions.some((x) => !x.deleted);
  Object.assign(target, rest, split ? { amount: target.amount, category_id: null } : {});
  if (!fields.payee_id && payee_name) target.payee_id = payeeNamed(b, payee_name).id;
  b.stamp(target);
}

export const scheduledHandlers: Record<string, Handler> = {
  getScheduledTransactions: (ctx) => {
    const b = ctx.budget;
    b.derived();
    const since = sinceKnowledge(ctx);
    const list = [...b.rec.scheduled_transactions.values()].filter((s) => visible(b.knowledgeOf(`scheduled:${s.id}`, s.knowledge), s.deleted, since));
    return { data: { scheduled_transactions: list.map((s) => V.scheduledDetail(b, s)), server_knowledge: b.knowledge } };
  },

  getScheduledTransactionById: (ctx) => ({
    data: { scheduled_transaction: V.scheduledDetail(ctx.budget, requireScheduled(ctx.budget, ctx.params.scheduled_transaction_id!)) },
  }),

  createScheduledTransaction: (ctx) => {
    const b = ctx.budget;
    const { scheduled_transaction: input } = ctx.body as z.infer<typeof B.PostScheduledTransactionWrapper>;
    const fields = check(b, input);
    const created = b.change(() => {
      const { payee_name, transfer_account_id: _derived, ...rest } = fields;
      return insertScheduled(b, { ...rest, payee_id: fields.payee_id ?? (payee_name ? payeeNamed(b, payee_name).id : null) });
    });
    return { status: 201, data: { scheduled_transaction: V.scheduledDetail(b, created) } };
  },

  updateScheduledTransaction: (ctx) => {
    const b = ctx.budget;
    const s = requireScheduled(b, ctx.params.scheduled_transaction_id!);
    const { scheduled_transaction: input } = ctx.body as z.infer<typeof B.PutScheduledTransactionWrapper>;
    const fields = check(b, input);
    b.change(() => apply(b, s, fields));
    return { data: { scheduled_transaction: V.scheduledDetail(b, s) } };
  },

  deleteScheduledTransaction: (ctx) => {
    const b = ctx.budget;
    const s = requireScheduled(b, ctx.params.scheduled_transaction_id!);
    b.change(() => {
      s.deleted = true;
      for (const x of s.subtransactions) x.deleted = true;
      b.stamp(s);
    });
    return { data: { scheduled_transaction: V.scheduledDetail(b, s) } };
  },
};
