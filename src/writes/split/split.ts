/**
 * split_transaction: make a transaction a split, or give a split new lines (and a new total).
 *  - Not yet a split: one update with the lines; the transaction keeps its id and everything else.
 *  - Already a split: YNAB's API cannot change a split's lines or amount, so the split is deleted
 *    and created again with the new lines. What the API lets a create set survives: account,
 *    date, payee, memo, cleared (reconciled too), approved, flag color, and the import id, unless
 *    that would make YNAB match the new split into another transaction (a transaction entered by
 *    hand on the same account, same amount, within 10 days: YNAB's import matching), or YNAB
 *    refuses the import id of a deleted transaction again (then it is created without, and says
 *    so). What no create can set is lost: the id (a new one), a flag's custom name, the link to a
 *    matched import. The preview says which is which.
 *  - If the create fails after the delete, the original is created again (with a new id), and
 *    the result says exactly what the budget holds. That restore is journaled as a change of its
 *    own (not undoable: it changed only the id), so list_recent_changes shows where the old id went.
 *    Every id the lines name is checked before anything is sent (../mcp/resolve.ts), so that a
 *    create YNAB would refuse for an unknown category or payee never follows the delete.
 *  - A line's payee_name close to a payee the budget has is held (new-payees.ts) unless
 *    allow_new_payee: true.
 */
import * as z from 'zod';
import { addYears } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { guardedString, NameOrId, signedAmount } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { optionalMoney, requiredMoney } from '../../shared/money-args.js';
import { absentText } from '../pipeline/checks.js';
import { currentState, describeEntity, transactionState, type EntityChange, type Shown, type State } from '../pipeline/entities.js';
import type { Draft } from '../pipeline/plan.js';
import { lineRows, txnRow } from '../pipeline/rows.js';
import { StepError, transactionBody, type Writer } from '../pipeline/steps.js';
import { payeeNamesIn } from '../pipeline/new-payees.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { moneyPair, taskWrite, type TaskPlan } from '../pipeline/task.js';
import { UncertainWriteError } from '../../api/client/errors.js';

interface SplitLine {
  amount: number;
  category_id: string | null;
  payee_id?: string | null;
  payee_name?: string | null;
  memo?: string | null;
}

interface SplitPlan {
  /** Delete and create (an existing split), or one update (not yet a split). */
  rewrite: boolean;
  entities: EntityChange[];
  summary: string;
  kept: string[];
  lost: string[];
  notices: string[];
  /** The create (or update) body. */
  body: Record<string, unknown>;
}

const DAY = 86_400_000;

/** A hand-entered transaction YNAB's import matching would merge a transaction with this import id into. */
function importMatch(r: BudgetReplica, t: E.TransactionSummaryBase, amount: number): E.TransactionSummaryBase | undefined {
  const day = Date.parse(t.date);
  for (const x of r.transactions.values()) {
    if (x.id === t.id || x.deleted || x.account_id !== t.account_id || x.amount !== amount || x.import_id || x.matched_transaction_id || x.transfer_account_id)
      continue;
    if (Math.abs(Date.parse(x.date) - day) <= 10 * DAY) return x;
  }
  return undefined;
}

function planSplit(r: BudgetReplica, s: Shown, id: string, lines: SplitLine[], total: number | undefined, today: string): SplitPlan {
  const t = r.transactions.get(id);
  if (!t || t.deleted) throw new ArgumentError(`transaction_id ${id}: ${absentText(r, id)}${r.wasDeleted(id) ? '' : ' (the list and search tools give ids)'}`);
  if (t.transfer_transaction_id && !r.transactions.has(t.transfer_transaction_id)) {
    throw new ArgumentError(`transaction ${id} is the other side of a transfer made by a split line; split the transaction that line belongs to instead`);
  }
  const before = currentState(r, 'transaction', id)!;
  const split = (before.subtransactions as State[]).length > 0;
  if (!split && t.transfer_account_id) {
    throw new ArgumentError(
      `transaction ${id} is a transfer; a transfer cannot be made a split (a split's lines can be transfers: give a line the other account's transfer payee)`,
    );
  }
  if (lines.length < 2) throw new ArgumentError('subtransactions: a split needs at least 2 lines');
  const amount = total ?? t.amount;
  const sum = lines.reduce((n, l) => n + l.amount, 0);
  if (sum !== amount) {
    throw new ArgumentError(
      `the lines add up to ${s.money(sum)} but the transaction's amount is ${s.money(amount)}: make them add up${total === undefined ? ', or give amount for a new total' : ''}`,
    );
  }
  if (split && t.date < addYears(today, -5))
    throw new ArgumentError(`transaction ${id} is dated ${t.date}, over 5 years ago: YNAB creates no transaction that old, so its split cannot be rewritten`);
  const sub = lines.map((l) => ({
    amount: l.amount,
    payee_id: l.payee_id ?? null,
    ...(l.payee_id ? {} : l.payee_name ? { payee_name: l.payee_name } : {}),
    category_id: l.category_id ?? null,
    memo: l.memo ?? null,
  }));
  const after: State = { ...before, amount, category_id: null, subtransactions: transactionState({ subtransactions: sub }).subtransactions };
  const notices: string[] = [];
  if (!split) {
    const body = { ...(total !== undefined && total !== t.amount ? { amount } : {}), subtransactions: sub };
    return {
      rewrite: false,
      entities: [{ kind: 'transaction', id, action: 'update', before, after }],
      summary: `Split ${describeEntity('transaction', id, before, s)} into ${lines.length} lines`,
      kept: ['id', 'date', 'payee', 'memo', 'cleared', 'approved', 'flag', ...(t.import_id ? ['import id'] : [])],
      lost: [],
      notices,
      body,
    };
  }
  const kept = ['account', 'date', 'payee', 'memo', 'cleared', 'approved', ...(t.flag_color ? ['flag color'] : [])];
  const lost = [
    'id (the split is created again with a new one)',
    ...(t.flag_name ? [`the flag's name ${JSON.stringify(t.flag_name)}`] : []),
    ...(t.matched_transaction_id ? ['the link to the matched import'] : []),
  ];
  let keepImport = !!t.import_id;
  if (t.import_id) {
    const match = importMatch(r, t, amount);
    if (match) {
      keepImport = false;
      lost.push(
        `the import id ${JSON.stringify(t.import_id)}: with it YNAB would match the new split into ${describeEntity('transaction', match.id, currentState(r, 'transaction', match.id), s)}`,
      );
    } else kept.push('import id');
  }
  const body = transactionBody({ ...after, payee_id: before.payee_id, import_id: keepImport ? before.import_id : null });
  body.subtransactions = sub;
  return {
    rewrite: true,
    entities: [
      { kind: 'transaction', id, action: 'delete', before, after: null },
      { kind: 'transaction', id: 'new', action: 'create', before: null, after: { ...after, import_id: keepImport ? before.import_id : null } },
    ],
    summary: `Rewrite the split ${describeEntity('transaction', id, before, s)} with ${lines.length} lines (deleted and created again)`,
    kept,
    lost,
    notices,
    body,
  };
}

/** Applies a split plan; the transaction as YNAB now shows it, and what to journal. */
async function applySplit(p: SplitPlan, id: string, w: Writer, s: Shown): Promise<{ transaction: E.TransactionDetail; draft: Draft; notices: string[] }> {
  const notices: string[] = [];
  if (!p.rewrite) {
    const t = await w.updateTransaction(id, p.body);
    return { transaction: t, draft: { summary: p.summary, entities: [{ ...p.entities[0]!, after: transactionState(t) }] }, notices };
  }
  const old = p.entities[0]!;
  await w.deleteTransaction(id);
  let made: E.TransactionDetail | undefined;
  try {
    const { created, duplicateImportIds } = await w.createTransactions([p.body]);
    made = created[0];
    if (!made && duplicateImportIds.length) {
      notices.push(`YNAB did not accept the import id ${JSON.stringify(p.body.import_id)} again after the delete, so the new split has none.`);
      const { import_id: _drop, ...rest } = p.body;
      made = (await w.createTransactions([rest])).created[0];
    }
    if (!made) throw new StepError('YNAB created nothing');
  } catch (e) {
    if (e instanceof UncertainWriteError) {
      throw new UncertainWriteError(
        `the split ${describeEntity('transaction', id, old.before, s)} was deleted, and creating it again with the new lines lost its answer: ${e.message}`,
      );
    }
    // Put the original back, so that the budget holds what it held.
    let back: E.TransactionDetail;
    try {
      back = await w.recreateTransaction(old.before!);
    } catch (restore) {
      throw new StepError(
        `the split was deleted, creating it with the new lines failed (${(e as Error).message}), and creating the original again failed too (${(restore as Error).message}). ` +
          `The budget no longer holds ${describeEntity('transaction', id, old.before, s)}: create it again with create_transactions`,
        { summary: `Deleted the split ${describeEntity('transaction', id, old.before, s)} (rewriting it failed)`, entities: [old] },
      );
    }
    // The budget changed all the same: the original has a new id. That is journaled as a change
    // of its own, so that list_recent_changes shows where the old id went. It cannot be undone:
    // what it changed is the id alone, and an undo (deleting the original and creating it once
    // more) would only give it yet another id.
    throw new StepError(
      `creating the new split failed (${(e as Error).message}), so the original was created again as it was, with a new id ${back.id}. The budget holds the original split; nothing else changed`,
      {
        summary: `Created the split ${describeEntity('transaction', id, old.before, s)} again as it was, with a new id ${back.id} (rewriting it failed)`,
        entities: [old, { kind: 'transaction', id: back.id, action: 'create', before: null, after: transactionState(back) }],
        not_undoable: `it put the original split back as it was, with a new id ${back.id} (YNAB gives a re-created transaction a new id); undoing it would only delete it and create it once more`,
      },
    );
  }
  return {
    transaction: made,
    draft: {
      summary: p.summary.replace(/^Rewrite/, 'Rewrote'),
      entities: [old, { kind: 'transaction', id: made.id, action: 'create', before: null, after: transactionState(made) }],
    },
    notices: [...notices, `The split was created again with a new id, ${made.id} (it replaces ${id}).`],
  };
}

const LINE = z.strictObject({
  amount: signedAmount().optional(),
  amount_milliunits: z.int().optional(),
  category_id: NameOrId.nullable().optional(),
  payee_id: NameOrId.nullable().optional(),
  payee_name: guardedString(200).optional(),
  memo: z.string().max(500).nullable().optional(),
});

const INPUT = {
  transaction_id: guardedString(100),
  subtransactions: z
    .array(LINE)
    .min(2)
    .max(100)
    .describe('The lines (amount in currency units or milliunits, category_id; payee, memo), summing to the total.'),
  ...moneyPair('New total in currency units; default the current one.', true),
  allow_new_payee: z.boolean().optional(),
};

async function planSplitTool(ctx: PlanContext, a: z.infer<z.ZodObject<typeof INPUT>>): Promise<TaskPlan> {
  const lines: SplitLine[] = a.subtransactions.map((l, i) => ({
    amount: requiredMoney(l, 'amount', { where: `subtransactions[${i}]`, digits: ctx.digits }),
    category_id: l.category_id ?? null,
    payee_id: l.payee_id ?? null,
    payee_name: l.payee_name ?? null,
    memo: l.memo ?? null,
  }));
  const total = optionalMoney(a, 'amount', { digits: ctx.digits });
  const p = planSplit(ctx.replica, ctx.shown, a.transaction_id, lines, total, ctx.today);
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { transaction_id: a.transaction_id, amount: total ?? null, subtransactions: lines },
    summary: p.summary,
    kinds: ['split'],
    entities: p.entities,
    details: { kept: p.kept, ...(p.lost.length ? { not_kept: p.lost } : {}) },
    notices: p.notices,
    ...(a.allow_new_payee ? {} : { payeeNames: payeeNamesIn(lines, 'subtransactions') }),
    apply: async (w) => {
      const done = await applySplit(p, a.transaction_id, w, ctx.shown);
      return {
        result: {
          transaction: {
            ...txnRow(ctx.shown, done.transaction.id, transactionState(done.transaction)),
            lines: lineRows(ctx.shown, done.transaction.subtransactions),
          },
          ...(p.rewrite ? { replaced: a.transaction_id } : {}),
          kept: p.kept,
          ...(p.lost.length ? { not_kept: p.lost } : {}),
        },
        draft: done.draft,
        notices: done.notices,
      };
    },
  };
}

export const SPLIT_TRANSACTION = taskWrite({ input: INPUT, plan: planSplitTool });
