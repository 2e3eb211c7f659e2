/**
 * reconcile_account: an account against a statement's ending balance, as YNAB's reconcile does.
 * The preview (always first: kind 'statement', policy.ts) gives the cleared balance as of the
 * statement date, the statement's balance and the difference. At zero: the transactions that
 * would become reconciled, with count and total. Otherwise the explanations
 * (reconcile-explain.ts), each with its effect on the cleared balance: with a statement file, the
 * uncleared transactions it lists (booked at the bank), its rows missing from YNAB, YNAB's
 * transactions missing from it, and amounts that differ; then uncleared transactions whose sum is
 * exactly what is left. What they add up to is explained, and difference − explained is not
 * (reconcile-verdict.ts). Applying (with the preview's confirm_token): the uncleared
 * transactions the explanations name are cleared, and every cleared transaction dated on or
 * before the statement date becomes reconciled (one request); with create_adjustment, what
 * nothing explains is one "Reconciliation Balance Adjustment", in Ready to Assign as YNAB makes
 * it. Explanations only the user can act on (rows to import, amounts to fix, transactions the
 * bank never had) are never hidden by an adjustment: nothing is reconciled until they are fixed.
 * A difference left without create_adjustment is not reconciled: the answer says what to do.
 * One change; undo puts every transaction's cleared state back and deletes the adjustment.
 * YNAB's API cannot set the account's last_reconciled_at: every answer says so. This server
 * records when it reconciled the account (src/sync/reconciled.ts), and needs_attention, the
 * alerts and the digest count the later of the two; the answer says YNAB's app keeps its own.
 */
import * as z from 'zod';
import { MILLIUNITS_DOC } from '../../shared/field-docs.js';
import { IsoDate } from '../../api/schemas/common.js';
import type * as E from '../../api/schemas/entities.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { requiredMoney } from '../../shared/money-args.js';
import { STATEMENT_FILE_ARGS } from '../../statements/args.js';
import { accountStart } from '../statement/account-start.js';
import { currentState, transactionState, type EntityChange } from '../pipeline/entities.js';
import type { Applied, PlanContext } from '../pipeline/pipeline.js';
import { clearedByApplying, explain, type Explanation } from './reconcile-explain.js';
import { verdict } from './reconcile-verdict.js';
import { unclearedTwinNotices } from './reconcile-duplicates.js';
import { accountTransactions } from '../statement/statement-match.js';
import { fileBinding, readStatement, type FileArgs } from '../statement/statement-rows.js';
import { StepError, type Writer } from '../pipeline/steps.js';
import { accountOf, taskWrite, type TaskPlan } from '../pipeline/task.js';
import { moneyOf } from '../pipeline/after-state.js';

// A statement file as import_statement takes it, less CSV columns (the spec's content, path, format;
// a CSV the presets do not read is imported first): every byte of a tool's definition is paid for.
const { columns: _columns, ...FILE_ARGS } = STATEMENT_FILE_ARGS;

const INPUT = {
  account_id: NameOrId,
  statement_balance: z.number().optional().describe('In currency units.'),
  statement_balance_milliunits: z.int().optional().describe(MILLIUNITS_DOC),
  statement_date: IsoDate.optional().describe('YYYY-MM-DD; default today.'),
  ...FILE_ARGS,
  create_adjustment: z.boolean().optional().describe('Adjust any difference left.'),
};

type Args = z.infer<z.ZodObject<typeof INPUT>>;

/** Said in every answer: the API has no way to set it, so nothing here claims to. */
export const LAST_RECONCILED_NOTE =
  "YNAB's API cannot set the account's last_reconciled_at: YNAB keeps showing the previous reconciliation date, though the transactions are reconciled.";

/** The applied answer's line: the date recorded here, and what YNAB's app will still show. */
const recordedNote = (at: string, ynab: string | null | undefined) =>
  `Recorded here as reconciled on ${at.slice(0, 10)}: needs_attention, the alerts and the digest count it. YNAB's own app will still show ${ynab ? `its previous date, ${ynab.slice(0, 10)}` : 'the account as never reconciled'}: its API cannot set last_reconciled_at.`;

/** Records the reconcile as this server's; a store that fails costs the answer a line, never the reconcile. */
async function recordReconciled(ctx: PlanContext, accountId: string): Promise<Record<string, unknown>> {
  if (!ctx.reconciled) return { note: LAST_RECONCILED_NOTE };
  const at = new Date().toISOString();
  try {
    await ctx.reconciled.record(ctx.budgetId, accountId, at);
  } catch (e) {
    return {
      note: `${LAST_RECONCILED_NOTE} This reconcile could not be recorded here (${(e as Error).message}), so needs_attention may still count the account as not reconciled.`,
    };
  }
  return { last_reconciled_on: at.slice(0, 10), note: recordedNote(at, ctx.replica.accounts.get(accountId)?.last_reconciled_at) };
}

export const ADJUSTMENT_PAYEE = 'Reconciliation Balance Adjustment';

const UPDATE_CHUNK = 1000;

/** A transaction as reconcile's answers list it. */
export function txnShown(ctx: PlanContext, t: E.TransactionSummaryBase): Record<string, unknown> {
  const named = (t as { payee_name?: string | null }).payee_name ?? null;
  return { id: t.id, date: t.date, payee: ctx.shown.payee(t.payee_id) ?? named, ...moneyOf(ctx.shown, 'amount', t.amount), cleared: t.cleared };
}

const money = (ctx: PlanContext, name: string, m: number) => moneyOf(ctx.shown, name, m);

/** An explanation as the answer lists it: its ids left out (its transactions name them), its effect beside its text. */
const explanationShown = (ctx: PlanContext, e: Explanation) => {
  const { ids: _, ...shown } = e as Explanation & { ids?: string[] };
  return { ...shown, effect_formatted: ctx.shown.money(e.effect) };
};

/** What applying reconciles: how many, their total, the last 20 listed. */
const toReconcileShown = (ctx: PlanContext, list: readonly E.TransactionSummaryBase[]) => ({
  count: list.length,
  ...money(
    ctx,
    'total',
    list.reduce((n, t) => n + t.amount, 0),
  ),
  transactions: list.slice(-20).map((t) => txnShown(ctx, t)),
});

async function planReconcile(ctx: PlanContext, a: Args): Promise<TaskPlan> {
  const r = ctx.replica;
  const account = accountOf(r, a.account_id, 'account_id');
  const statement = requiredMoney(a, 'statement_balance', { digits: ctx.digits });
  const date = a.statement_date ?? ctx.today;
  if (date > ctx.today) throw new ArgumentError(`statement_date ${date} is in the future; give the date the statement ends (today at the latest)`);
  const file = a as FileArgs;
  const read = await readStatement(file, ctx.localFiles, true, account);
  const upTo = accountTransactions(r, account.id).filter((t) => t.date <= date);
  const cleared = upTo.filter((t) => t.cleared !== 'uncleared').reduce((n, t) => n + t.amount, 0);
  const difference = statement - cleared;
  const explanations: Explanation[] =
    difference === 0 ? [] : explain(ctx, account.id, upTo, difference, date, read ? { rows: read.parsed.rows, from: read.parsed.period?.from } : undefined);
  const start = accountStart(r, account.id);
  const v = verdict(difference, explanations, a.create_adjustment === true, ctx.shown.money, start ? { date: start, statementDate: date } : undefined);
  // What applying clears: what the statement shows booked, and the set of uncleared transactions
  // adding up to what is left; what nothing explains is the adjustment (reconcile-verdict.ts).
  const clears = new Set(clearedByApplying(explanations));
  const left = v.adjustment;
  const adjust = left !== 0;
  const toReconcile = upTo.filter((t) => t.cleared === 'cleared' || clears.has(t.id));
  const entities: EntityChange[] = toReconcile.map((t) => {
    const before = currentState(r, 'transaction', t.id)!;
    return { kind: 'transaction', id: t.id, action: 'update', before, after: { ...before, cleared: 'reconciled' } };
  });
  const adjustment = adjust
    ? {
        account_id: account.id,
        date,
        amount: left,
        payee_name: ADJUSTMENT_PAYEE,
        category_id: account.on_budget ? ctx.view.readyToAssignId : null,
        memo: null,
        cleared: 'reconciled',
        approved: true,
      }
    : undefined;
  if (adjustment) entities.push({ kind: 'transaction', id: 'new-adjustment', action: 'create', before: null, after: transactionState(adjustment) });
  const details = {
    account: account.name,
    statement_date: date,
    ...money(ctx, 'statement_balance', statement),
    ...money(ctx, 'cleared_balance', cleared),
    ...money(ctx, 'difference', difference),
    ...(difference !== 0
      ? {
          explanations: explanations.map((e) => explanationShown(ctx, e)),
          ...money(ctx, 'explained', v.explained),
          ...money(ctx, 'unexplained', v.unexplained),
          arithmetic: v.arithmetic,
        }
      : {}),
    ...(clears.size ? { to_clear: clears.size } : {}),
    to_reconcile: toReconcileShown(ctx, toReconcile),
    ...(adjustment ? { adjustment: { ...money(ctx, 'amount', left), arithmetic: v.arithmetic } } : {}),
    note: LAST_RECONCILED_NOTE,
  };
  const notices = [
    ...unclearedTwinNotices(ctx, upTo),
    ...(toReconcile.length > 20 ? [`The last 20 of ${toReconcile.length} transactions to reconcile are listed.`] : []),
    ...(v.notice ? [v.notice] : []),
  ];
  const summary = `Reconcile ${JSON.stringify(account.name)} at ${ctx.shown.money(statement)} as of ${date}: ${toReconcile.length} transaction${toReconcile.length === 1 ? '' : 's'}${clears.size ? ` (clearing ${clears.size})` : ''}${adjustment ? `, and an adjustment of ${ctx.shown.money(left)} (difference - explained: ${v.arithmetic})` : ''}`;
  const base = {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: {
      account_id: account.id,
      statement_balance: statement,
      statement_date: date,
      create_adjustment: a.create_adjustment === true,
      ...(read ? fileBinding(file, read) : {}),
    },
    summary,
    kinds: ['statement' as const],
    entities,
    details,
    listed: 0,
    notices,
  };
  if (v.stop) return { ...base, answer: { ...details, reconciled: 0, message: v.stop }, apply: async () => ({ result: {} }) };
  if (!entities.length) {
    // The statement agrees and nothing is left to mark: the reconcile is done as it is answered (no confirm), so it counts as one.
    return {
      ...base,
      answer: {
        ...details,
        reconciled: 0,
        message: `Nothing to change: the cleared balance matches and every cleared transaction up to ${date} is reconciled already.`,
        ...(await recordReconciled(ctx, account.id)),
      },
      apply: async () => ({ result: {} }),
    };
  }
  return { ...base, apply: (w) => applyReconcile(w, ctx, summary, entities, adjustment, { ...details, account_id: account.id, statement }) };
}

async function applyReconcile(
  w: Writer,
  ctx: PlanContext,
  summary: string,
  entities: EntityChange[],
  adjustment: Record<string, unknown> | undefined,
  details: Record<string, unknown>,
): Promise<Applied<Record<string, unknown>>> {
  const done: EntityChange[] = [];
  const updates = entities.filter((e) => e.action === 'update');
  const byId = new Map(updates.map((e) => [e.id, e]));
  let made: E.TransactionDetail | undefined;
  try {
    await w.updateTransactions(
      updates.map((e) => ({ id: e.id, cleared: 'reconciled' })),
      (answered) => {
        for (const t of answered) if (byId.has(t.id)) done.push({ ...byId.get(t.id)!, after: transactionState(t) });
      },
      UPDATE_CHUNK,
    );
    if (adjustment) {
      made = (await w.createTransactions([adjustment])).created[0];
      if (made) done.push({ kind: 'transaction', id: made.id, action: 'create', before: null, after: transactionState(made) });
    }
  } catch (e) {
    if (done.length) throw new StepError(`${(e as Error).message}. ${done.length} of the ${entities.length} changes were made`, { summary, entities: done });
    throw e;
  }
  const cleared = done.filter((e) => e.before?.cleared === 'uncleared').length;
  // The state after: the account's balances as YNAB shows them, from the copy the writes landed in.
  const txns = accountTransactions(ctx.replica, details.account_id as string);
  const clearedNow = txns.filter((t) => t.cleared !== 'uncleared');
  const asOf = clearedNow.filter((t) => t.date <= (details.statement_date as string)).reduce((n, t) => n + t.amount, 0);
  return {
    result: {
      account: details.account,
      statement_date: details.statement_date,
      ...money(ctx, 'statement_balance', details.statement_balance as number),
      ...money(
        ctx,
        'cleared_balance',
        clearedNow.reduce((n, t) => n + t.amount, 0),
      ),
      ...money(
        ctx,
        'working_balance',
        txns.reduce((n, t) => n + t.amount, 0),
      ),
      ...money(ctx, 'difference', (details.statement as number) - asOf),
      ...money(ctx, 'difference_before', details.difference as number),
      reconciled: done.filter((e) => e.action === 'update').length + (made ? 1 : 0),
      cleared,
      ...(made ? { adjustment: txnShown(ctx, made) } : {}),
      ...(await recordReconciled(ctx, details.account_id as string)),
    },
    draft: { summary: summary.replace(/^Reconcile/, 'Reconciled'), entities: done },
  };
}

export const RECONCILE_ACCOUNT = taskWrite({ input: INPUT, plan: planReconcile });
