/**
 * import_statement: a bank statement file into an account. Its rows are matched to the account's
 * transactions in the budget's copy (statement-match.ts); the preview lists each row's status,
 * totals and, where the file states one, its balance against YNAB's cleared balance
 * (statement-balance.ts); a row in conflict goes in only as the user decides it (`conflicts`,
 * statement-conflicts.ts), never by default; nothing is written before
 * the confirm_token (every mode: kind 'statement', policy.ts). Applying:
 *  - creates the new rows in one request, as YNAB's own imports arrive: cleared, unapproved (so
 *    they show for review), with YNAB's import id `YNAB:<milliunits>:<date>:<occurrence>` (so a
 *    later import by YNAB or by this tool recognises them), and the suggested category only when
 *    the suggestion is of high confidence (src/insights/review/suggest.ts), or a house rule's payee and
 *    category before both (statement-rules.ts, the preview names the rule); the preview shows the others
 *    as `suggestion` with their confidence, for the user to decide; with the payee the budget
 *    knows for the bank's text, else a new payee of its cleaned name (statement-payees.ts), the
 *    bank's text kept in the memo; the preview shows each new row's `payee` beside its `bank_text`;
 *  - marks the matched transactions that are uncleared cleared (and gives a conflict decided
 *    `same` the bank's amount), in one request;
 *  - is one change: undo deletes what was created and puts back what was cleared.
 * Creates go the exactly-once way (an import id is YNAB's own proof of identity), so a lost answer
 * neither doubles nor loses a row. Cost: one delta (the plan's read), one create, one update.
 */
import * as z from 'zod';
import { IsoDate } from '../../api/schemas/common.js';
import type * as E from '../../api/schemas/entities.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { STATEMENT_FILE_ARGS } from '../../statements/args.js';
import { currentState, transactionState, type EntityChange, type State } from '../pipeline/entities.js';
import type { Applied, PlanContext } from '../pipeline/pipeline.js';
import { accountTransactions, matchStatement, type RowMatch } from './statement-match.js';
import type { RowPayee } from './statement-payees.js';
import { newRowChoices } from './statement-choices.js';
import { holdBeforeStart } from './statement-start.js';
import { balanceCheck } from './statement-balance.js';
import { CONFLICT_CHOICES, conflictChoices, conflictNotice, conflictShown, decideConflicts, matchedUpdates } from './statement-conflicts.js';
import type { RowRuled } from './statement-rules.js';
import { fileBinding, readStatement, rowsShown, statusCounts, type FileArgs } from './statement-rows.js';
import { StepError, type Writer } from '../pipeline/steps.js';
import { accountOf, taskWrite, type TaskPlan } from '../pipeline/task.js';
import { moneyOf } from '../pipeline/after-state.js';

const INPUT = {
  account_id: NameOrId,
  ...STATEMENT_FILE_ARGS,
  since_date: IsoDate.optional().describe('YYYY-MM-DD: skip earlier rows.'),
  include_before_start: z.boolean().optional().describe("Import rows before the account's start."),
  conflicts: CONFLICT_CHOICES,
};

type Args = z.infer<z.ZodObject<typeof INPUT>>;

/** Updates sent in one request: a 500-row file's in one. */
const UPDATE_CHUNK = 1000;

/**
 * The memo of a new row: the row's own, and the bank's text where the payee is named otherwise
 * (a create cannot set YNAB's import_payee_name_original, so the memo keeps what the bank said).
 */
function memoOf(m: RowMatch, payee: RowPayee | undefined): string | null {
  const text = m.row.payee.trim();
  const own = m.row.memo?.trim() ?? '';
  const bank = payee && text && payee.name !== text && !own.includes(text) ? text.slice(0, 200) : '';
  if (!bank) return own ? own.slice(0, 500) : null;
  return own ? `${own.slice(0, 497 - bank.length)} · ${bank}` : bank;
}

/** The create of a new row: as YNAB's own import makes it, with the payee the budget knows for its text (statement-payees.ts). */
function newItem(accountId: string, m: RowMatch, payee: RowPayee | undefined, categoryId: string | null): Record<string, unknown> {
  return {
    account_id: accountId,
    date: m.row.date,
    amount: m.row.amount,
    ...(payee?.id ? { payee_id: payee.id } : payee ? { payee_name: payee.name } : {}),
    category_id: categoryId,
    memo: memoOf(m, payee),
    cleared: 'cleared',
    approved: false,
    ...(m.importIdDropped ? {} : { import_id: m.importId }),
  };
}

async function planImport(ctx: PlanContext, a: Args): Promise<TaskPlan> {
  const r = ctx.replica;
  const account = accountOf(r, a.account_id, 'account_id');
  const file = a as FileArgs;
  const read = (await readStatement(file, ctx.localFiles, false, account))!;
  const { parsed } = read;
  const matches = matchStatement(r, account.id, parsed.rows, { today: ctx.today, since: a.since_date });
  const decided = decideConflicts(r, matches, conflictChoices(a.conflicts));
  const early = holdBeforeStart(ctx, account.id, account.on_budget, matches, a.include_before_start === true);
  const fresh = matches.filter((m) => m.status === 'new');
  const { payees, byRule, categories, suggested } = await newRowChoices(ctx, account, fresh);
  const items = fresh.map((m) => newItem(account.id, m, payees.get(m), categories.get(m)?.id ?? null));
  const updates = matchedUpdates(r, matches);
  const toClear = [...updates.keys()];
  const entities: EntityChange[] = [
    ...items.map((item, i) => ({
      kind: 'transaction' as const,
      id: `new-line-${fresh[i]!.row.line}`,
      action: 'create' as const,
      before: null,
      after: transactionState(item),
    })),
    ...toClear.map((m) => {
      const before = currentState(r, 'transaction', m.id!)!;
      return { kind: 'transaction' as const, id: m.id!, action: 'update' as const, before, after: { ...before, ...updates.get(m)! } };
    }),
  ];
  const counts = statusCounts(matches);
  const shown = rowsShown(ctx.shown, matches, (m) => ({
    ...payeeShown(m, payees.get(m)),
    ...matchedShown(ctx, m),
    ...conflictShown(r, ctx.shown, m),
    ...(categories.get(m) ? { category: categories.get(m)!.name } : suggested.has(m) ? { suggestion: suggested.get(m) } : {}),
    ...(byRule.has(m) ? { rules: byRule.get(m) } : {}),
  }));
  const balance = balanceCheck(ctx, account.id, parsed.balance, { created: fresh, updates, conflicts: matches.filter((m) => m.status === 'conflict') });
  const details = {
    account: account.name,
    format: parsed.format,
    ...(parsed.preset ? { preset: parsed.preset } : {}),
    totals: {
      rows: matches.length,
      ...counts,
      to_clear: toClear.length,
      ...moneyOf(
        ctx.shown,
        'new_net',
        fresh.reduce((n, m) => n + m.row.amount, 0),
      ),
    },
    ...(balance ? { balance } : {}),
    ...(early ? { before_start: early } : {}),
    rows: shown.rows,
    ...(parsed.decisions.length ? { decisions: parsed.decisions } : {}),
  };
  const notices = [
    ...(early
      ? [
          `${early.count} row(s) are dated before the account's start or the budget's first month: ${early.imported ? 'imported' : 'not imported (include_before_start: true imports them)'}. ${early.effect as string}`,
        ]
      : []),
    ...(shown.notice ? [shown.notice] : []),
    ...decided,
    ...conflictNotice(counts.conflict),
  ];
  const summary = `Import ${items.length} new transaction${items.length === 1 ? '' : 's'} into ${JSON.stringify(account.name)}${toClear.length ? ` and mark ${toClear.length} matched one${toClear.length === 1 ? '' : 's'} cleared` : ''}`;
  const base = {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: {
      account_id: account.id,
      ...fileBinding(file, read),
      since_date: a.since_date ?? null,
      include_before_start: a.include_before_start === true,
      conflicts: a.conflicts ?? {},
    },
    summary,
    kinds: ['statement' as const],
    entities,
    details,
    listed: 0,
    notices,
  };
  if (!entities.length) {
    return {
      ...base,
      answer: {
        ...details,
        created: 0,
        cleared: 0,
        message: `Nothing to import: ${counts.matched} row(s) already in YNAB${counts.skipped ? `, ${counts.skipped} skipped` : ''}${counts.conflict ? `, ${counts.conflict} in conflict` : ''}.`,
      },
      apply: async () => ({ result: {} }),
    };
  }
  return { ...base, apply: (w) => applyImport(w, ctx, { accountId: account.id, summary, fresh, items, toClear, updates, entities, details, payees, byRule }) };
}

interface ImportPlan {
  accountId: string;
  summary: string;
  fresh: RowMatch[];
  items: Record<string, unknown>[];
  toClear: RowMatch[];
  /** What each matched row's transaction takes: cleared, the bank's amount where chosen so. */
  updates: Map<RowMatch, Record<string, unknown>>;
  entities: EntityChange[];
  details: Record<string, unknown>;
  payees: Map<RowMatch, RowPayee>;
  /** The rules that gave a new row its payee or category. */
  byRule: Map<RowMatch, RowRuled['by']>;
}

/** A matched row's transaction as the budget has it: its date, payee and amount, not only its id. */
function matchedShown(ctx: PlanContext, m: RowMatch): Record<string, unknown> {
  const t = m.status === 'matched' && m.id ? ctx.replica.transactions.get(m.id) : undefined;
  return t ? { matched: { date: t.date, payee: ctx.shown.payee(t.payee_id), ...moneyOf(ctx.shown, 'amount', t.amount) } } : {};
}

/** A new row's payee beside the bank's text: the payee it is created with, and what that rests on. */
function payeeShown(m: RowMatch, p: RowPayee | undefined): Record<string, unknown> {
  if (!p) return {};
  return { payee: p.name, ...(p.id ? { payee_id: p.id } : {}), bank_text: m.row.payee, payee_basis: p.basis };
}

/** Which created transaction each new row became: by import id, else by date and amount in order. */
function madeFor(fresh: RowMatch[], created: E.TransactionDetail[]): Map<RowMatch, E.TransactionDetail> {
  const out = new Map<RowMatch, E.TransactionDetail>();
  const left = [...created];
  for (const m of fresh) {
    const i = left.findIndex((t) => (m.importIdDropped ? !t.import_id && t.date === m.row.date && t.amount === m.row.amount : t.import_id === m.importId));
    if (i >= 0) out.set(m, left.splice(i, 1)[0]!);
  }
  return out;
}

async function applyImport(w: Writer, ctx: PlanContext, p: ImportPlan): Promise<Applied<Record<string, unknown>>> {
  const r = ctx.replica;
  const done: EntityChange[] = [];
  const notices: string[] = [];
  let made = new Map<RowMatch, E.TransactionDetail>();
  // Payees the creates made (a new name): undo cannot delete them, so the journal keeps which.
  const payeesCreated = new Set<string>();
  if (p.items.length) {
    // What YNAB could merge a new row into, as it is before the create (the copy takes the answer in).
    const amounts = new Set(p.fresh.map((m) => m.row.amount));
    const existing = new Map(
      accountTransactions(r, p.accountId)
        .filter((t) => amounts.has(t.amount))
        .map((t) => [t.id, currentState(r, 'transaction', t.id)]),
    );
    const known = new Set(r.payees.keys());
    const { created, duplicateImportIds } = await w.createTransactions(p.items);
    for (const t of created) if (t.payee_id && !known.has(t.payee_id)) payeesCreated.add(t.payee_id);
    made = madeFor(p.fresh, created);
    for (const t of created) {
      // YNAB merged the import into a transaction already there (entered by hand since the preview):
      // it was changed, not created, and undo must put it back rather than delete it.
      const was: State | null = existing.get(t.id) ?? null;
      done.push({ kind: 'transaction', id: t.id, action: was ? 'update' : 'create', before: was, after: transactionState(t) });
      if (was) notices.push(`YNAB matched the import of ${t.date} ${ctx.shown.money(t.amount)} to transaction ${t.id}, already in the budget.`);
    }
    if (duplicateImportIds.length)
      notices.push(`${duplicateImportIds.length} row(s) were already in YNAB by import id (imported since the preview) and were not created again.`);
  }
  const byId = new Map(p.entities.map((e) => [e.id, e]));
  try {
    if (p.toClear.length) {
      await w.updateTransactions(
        p.toClear.map((m) => ({ id: m.id!, ...p.updates.get(m)! })),
        (answered) => {
          for (const t of answered) if (byId.has(t.id)) done.push({ ...byId.get(t.id)!, after: transactionState(t) });
        },
        UPDATE_CHUNK,
      );
    }
  } catch (e) {
    // The creates stand: journaled, so undo_change can take them back.
    if (done.length)
      throw new StepError(`${(e as Error).message}. The new rows were created, the matched ones not all marked cleared`, {
        summary: p.summary,
        entities: done,
        ...(payeesCreated.size ? { payees_created: [...payeesCreated] } : {}),
      });
    throw e;
  }
  const cleared = done.filter((e) => e.action === 'update' && e.before?.cleared !== e.after?.cleared).length;
  const counted = await (
    await import('../rules/apply-rules-run.js')
  ).countApplied(
    ctx,
    p.fresh.filter((m) => made.has(m) && p.byRule.has(m)).map((m) => p.byRule.get(m)!),
  );
  if (counted) notices.push(counted);
  const shown = rowsShown(
    ctx.shown,
    p.fresh.filter((m) => made.has(m)),
    (m) => {
      const t = made.get(m)!;
      return { ...payeeShown(m, p.payees.get(m)), ...(t.category_id ? { category: ctx.shown.category(t.category_id) } : {}), id: t.id };
    },
  );
  return {
    result: {
      account: p.details.account,
      created: made.size,
      cleared,
      totals: p.details.totals,
      ...(p.details.balance ? { balance: p.details.balance } : {}),
      created_rows: shown.rows,
    },
    draft: { summary: p.summary.replace(/^Import/, 'Imported'), entities: done, ...(payeesCreated.size ? { payees_created: [...payeesCreated] } : {}) },
    notices: [...notices, ...(shown.notice ? [shown.notice] : [])],
  };
}

export const IMPORT_STATEMENT = taskWrite({ input: INPUT, plan: planImport });
