/**
 * create_transfer: one create with the other account's transfer payee, so YNAB makes both sides;
 * the side on budget carries a category only where YNAB needs one (budget to tracking). Held by
 * the duplicate guard when the account already has such a transfer (duplicates.ts).
 */
import * as z from 'zod';
import { IsoDate } from '../../api/schemas/common.js';
import type * as E from '../../api/schemas/entities.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { currentState, transactionState, type EntityChange } from '../pipeline/entities.js';
import { accountBalances } from '../pipeline/after-state.js';
import { readFor } from '../pipeline/reads.js';
import { txnRow } from '../pipeline/rows.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { accountOf, moneyPair, positive, taskWrite, type TaskPlan } from '../pipeline/task.js';

const INPUT = {
  from_account_id: NameOrId,
  to_account_id: NameOrId,
  ...moneyPair('Amount moved in currency units, above zero.'),
  date: IsoDate.optional().describe('YYYY-MM-DD; default today.'),
  memo: z.string().max(500).optional(),
  category_id: NameOrId.optional().describe('Only from a budget to a tracking account.'),
  allow_duplicate: z.boolean().optional(),
};

type Args = z.infer<z.ZodObject<typeof INPUT>>;

/** Which side the transaction is made on (the one on budget carries the category), and its category. */
function sides(
  ctx: PlanContext,
  a: Args,
  from: E.AccountBase,
  to: E.AccountBase,
): { side: E.AccountBase; other: E.AccountBase; sign: number; category: string | null } {
  if (from.on_budget && !to.on_budget) {
    if (!a.category_id)
      throw new ArgumentError(
        `category_id is needed: money moving from the budget account ${JSON.stringify(from.name)} to the tracking account ${JSON.stringify(to.name)} leaves the budget, so YNAB spends it from a category`,
      );
    return { side: from, other: to, sign: -1, category: a.category_id };
  }
  if (!from.on_budget && to.on_budget) return { side: to, other: from, sign: 1, category: a.category_id ?? ctx.view.readyToAssignId };
  if (a.category_id) {
    throw new ArgumentError(
      `category_id is only taken for a transfer between a budget account and a tracking account; between ${JSON.stringify(from.name)} and ${JSON.stringify(to.name)} YNAB puts no category`,
    );
  }
  return { side: from, other: to, sign: -1, category: null };
}

async function planTransfer(ctx: PlanContext, a: Args): Promise<TaskPlan> {
  const r = ctx.replica;
  const from = accountOf(r, a.from_account_id, 'from_account_id');
  const to = accountOf(r, a.to_account_id, 'to_account_id');
  if (from.id === to.id) throw new ArgumentError('from_account_id and to_account_id are the same account; a transfer needs two');
  const amount = positive(a, ctx.digits);
  const date = a.date ?? ctx.today;
  if (date > ctx.today)
    throw new ArgumentError(`date ${date} is in the future; YNAB takes future transfers as scheduled transactions (create_scheduled_transaction)`);
  const { side, other, sign, category } = sides(ctx, a, from, to);
  if (!other.transfer_payee_id) throw new ArgumentError(`the account ${JSON.stringify(other.name)} has no transfer payee; YNAB cannot transfer to it`);
  const item = {
    account_id: side.id,
    date,
    amount: sign * amount,
    payee_id: other.transfer_payee_id,
    category_id: category,
    memo: a.memo ?? null,
    cleared: 'uncleared',
    approved: true,
  };
  const summary = `Transfer ${ctx.shown.money(amount)} from ${JSON.stringify(from.name)} to ${JSON.stringify(to.name)} on ${date}`;
  const after = transactionState(item);
  const pairAfter = transactionState({ ...item, account_id: other.id, amount: -item.amount, payee_id: side.transfer_payee_id, category_id: null });
  const entities: EntityChange[] = [
    { kind: 'transaction', id: 'new', action: 'create', before: null, after },
    { kind: 'transaction', id: 'new-other-side', action: 'create', before: null, after: pairAfter, linked: true },
  ];
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { ...item, allow_duplicate: a.allow_duplicate === true },
    summary,
    kinds: ['create'],
    entities,
    ...(a.allow_duplicate
      ? {}
      : {
          guard: {
            items: [item],
            held: (found, notices) => ({
              held: 'duplicate',
              summary,
              duplicate_candidates: found[0]!.candidates,
              message: `Nothing was created: ${JSON.stringify(side.name)} already has a transfer of this amount with ${JSON.stringify(other.name)} within 3 days. Show the user; if they mean another one, call again with allow_duplicate: true.`,
              ...(notices.length ? { notices } : {}),
            }),
          },
        }),
    apply: async (w) => {
      const { created } = await w.createTransactions([item]);
      const made = created[0]!;
      // Both sides: the answer shows the one made; the other is read back with one delta.
      const fresh = (await readFor(ctx.service.replicas, ctx.budgetId, 'read-back')).replica;
      const pairId = made.transfer_transaction_id ?? '';
      const pair = currentState(fresh, 'transaction', pairId);
      const notices = pair ? [] : [`YNAB's answer did not show the other side in ${JSON.stringify(other.name)} yet; list_account_transactions shows it.`];
      const mine = transactionState(made);
      const shown =
        sign < 0
          ? { from: txnRow(ctx.shown, made.id, mine), to: pair ? txnRow(ctx.shown, pairId, pair) : null }
          : { from: pair ? txnRow(ctx.shown, pairId, pair) : null, to: txnRow(ctx.shown, made.id, mine) };
      return {
        result: {
          transfer: shown,
          transaction_ids: [made.id, ...(pair ? [pairId] : [])],
          // Both accounts as the transfer left them (the other only when its side was read back).
          accounts: accountBalances(fresh, ctx.shown, pair ? [from.id, to.id] : [side.id]),
        },
        draft: {
          summary,
          entities: [
            { kind: 'transaction', id: made.id, action: 'create', before: null, after: mine },
            ...(pair ? [{ kind: 'transaction' as const, id: pairId, action: 'create' as const, before: null, after: pair, linked: true }] : []),
          ],
        },
        notices,
      };
    },
  };
}

export const CREATE_TRANSFER = taskWrite({ input: INPUT, plan: planTransfer });
