/**
 * apply_rules (its arguments in apply-rules.ts; this loads with the first call that applies
 * rules): the budget's house rules (src/rules/) applied to the transactions already there:
 * an account's, a date range's, or all. Always previewed first (kind 'rules', policy.ts): per
 * transaction, what changes and which rule; the confirm token binds the rules as they were
 * previewed (a rule edited in between spends it). Applied as one change, one change_id, in as few
 * requests as there are thousands of transactions to change (one PATCH /transactions each, every
 * update the exactly-once way: re-read and compared after a lost answer), so undo_change puts
 * every transaction back in one request too. Each rule's applied count grows by the transactions
 * it changed. Cost of a confirm up to 1,000 transactions: the confirm's read and one update.
 */
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { currentState, transactionState, type EntityChange } from '../pipeline/entities.js';
import type { Applied, PlanContext } from '../pipeline/pipeline.js';
import { rowsWithin } from '../pipeline/plan.js';
import { currentMonth } from '../../api/dates.js';
import { budgetEffect } from './rule-effect.js';
import { appliedCounts, ruleChanger, rulesDigest, rulesFor, type RuleChange } from './rule-changes.js';
import { txnRow } from '../pipeline/rows.js';
import { StepError, type Writer } from '../pipeline/steps.js';
import { accountOf, type TaskPlan } from '../pipeline/task.js';
import { moneyOf } from '../pipeline/after-state.js';

/** apply_rules' arguments (apply-rules.ts has their schema), names already ids. */
export interface ApplyArgs {
  account_id?: string;
  since_date?: string;
  until_date?: string;
  include_reconciled?: boolean;
}

/** Updates in one request: 1,000 (a request's count matters more than its answer's size here). */
const CHUNK = 1000;
/** Transactions one call changes at most. */
export const MAX_APPLIED = 10_000;
/** The preview's rows at most, in characters (the rest are counted). */
const ROWS_CHARS = 5000;

interface Planned {
  entity: EntityChange;
  rc: RuleChange;
}

/** The transactions in scope: not deleted, in the account, within the dates. */
function inScope(ctx: PlanContext, account: string | undefined, a: ApplyArgs): E.TransactionSummaryBase[] {
  const out: E.TransactionSummaryBase[] = [];
  for (const t of ctx.replica.transactions.values()) {
    if (t.deleted || (account && t.account_id !== account)) continue;
    if ((a.since_date && t.date < a.since_date) || (a.until_date && t.date > a.until_date)) continue;
    out.push(t);
  }
  return out.sort((x, y) => (x.date > y.date ? -1 : x.date < y.date ? 1 : x.id < y.id ? -1 : 1));
}

/** What the rules set, as a person reads it: each field's value now and after, names for ids (a cleared memo or flag shows as null). */
const WORDS: Record<string, string> = { payee_id: 'payee', payee_name: 'payee', category_id: 'category', flag_color: 'flag' };
function setShown(ctx: PlanContext, change: Record<string, unknown>, before: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const named = (k: string, v: unknown) => (k === 'payee_id' ? ctx.shown.payee(v as string) : k === 'category_id' ? ctx.shown.category(v as string) : v);
  for (const [k, v] of Object.entries(change)) {
    const field = k === 'payee_name' ? 'payee_id' : k;
    out[WORDS[k] ?? k] = { from: named(field, before[field] ?? null) ?? null, to: k === 'payee_name' ? v : named(k, v) };
  }
  return out;
}

/** A preview row: the transaction, what the rules set on it and which rule set each field. */
function row(ctx: PlanContext, p: Planned): Record<string, unknown> {
  const b = p.entity.before!;
  return {
    id: p.entity.id,
    date: b.date,
    payee: ctx.shown.payee(b.payee_id),
    amount: ctx.shown.money(b.amount as number),
    ...(b.cleared === 'reconciled' ? { reconciled: true } : {}),
    changes: setShown(ctx, p.rc.change, b),
    rules: p.rc.by,
  };
}

export async function planApply(ctx: PlanContext, a: ApplyArgs): Promise<TaskPlan> {
  const r = ctx.replica;
  if (a.since_date && a.until_date && a.since_date > a.until_date)
    throw new ArgumentError(`since_date ${a.since_date} is after until_date ${a.until_date}: give the earlier date first`);
  const account = a.account_id ? accountOf(r, a.account_id, 'account_id') : undefined;
  const rules = await rulesFor(ctx.rules, r);
  const scope = rules ? inScope(ctx, account?.id, a) : [];
  const change = ruleChanger(r);
  const planned: Planned[] = [];
  let left = 0;
  let reconciledLeft = 0;
  for (const t of scope) {
    const outcome = rules!.outcome(t);
    if (!Object.keys(outcome).length) continue;
    const rc = change(t, outcome);
    left += rc.left.length ? 1 : 0;
    if (!Object.keys(rc.change).length) continue;
    // A reconciled transaction matched a bank statement: changed only when asked.
    if (t.cleared === 'reconciled' && a.include_reconciled !== true) {
      reconciledLeft++;
      continue;
    }
    const before = currentState(r, 'transaction', t.id)!;
    const { payee_name: _n, ...fields } = rc.change;
    planned.push({ rc, entity: { kind: 'transaction', id: t.id, action: 'update', before, after: { ...before, ...fields } } });
  }
  if (planned.length > MAX_APPLIED)
    throw new ArgumentError(
      `the rules would change ${planned.length} transactions; at most ${MAX_APPLIED} are changed in one call: narrow it (account_id, since_date, until_date)`,
    );
  const byRule = appliedCounts(planned.map((p) => p.rc.by));
  const where = `${account ? ` in ${JSON.stringify(account.name)}` : ''}${a.since_date ? ` from ${a.since_date}` : ''}${a.until_date ? ` to ${a.until_date}` : ''}`;
  const summary = `Apply rules to ${planned.length} transaction${planned.length === 1 ? '' : 's'}${where}`;
  const rows = rowsWithin(
    planned.map((p) => row(ctx, p)),
    ROWS_CHARS,
  );
  const details = {
    checked: scope.length,
    by_rule: byRule,
    ...(left ? { left_alone: left } : {}),
    ...olderAndReconciled(ctx, planned, reconciledLeft),
    ...effectShown(ctx, planned),
    rows,
  };
  const notices = [
    ...(reconciledLeft
      ? [
          `${reconciledLeft} reconciled transaction(s) the rules would change are left out: they match a bank statement; include_reconciled: true changes them too.`,
        ]
      : []),
    ...(rows.length < planned.length ? [`Only the first ${rows.length} of ${planned.length} transactions are listed; all are confirmed together.`] : []),
    ...(left
      ? [`${left} transaction(s) keep a field a rule sets, which they cannot take (a category in a tracking account, or one no longer in the budget).`]
      : []),
  ];
  const base = {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: {
      account_id: account?.id ?? null,
      since_date: a.since_date ?? null,
      until_date: a.until_date ?? null,
      include_reconciled: a.include_reconciled === true,
      rules: rules ? rulesDigest(rules.list) : null,
    },
    summary,
    kinds: ['rules' as const],
    entities: planned.map((p) => p.entity),
    details,
    listed: 0,
    notices,
  };
  if (!planned.length) {
    const why = !rules ? 'the budget has no rules (set_rule makes one)' : `no rule changes any of the ${scope.length} transactions${where}`;
    return { ...base, answer: { updated: 0, checked: scope.length, message: `Nothing to change: ${why}.` }, apply: async () => ({ result: {} }) };
  }
  return { ...base, apply: (w) => applyRules(w, ctx, summary, planned) };
}

/** How many of the changes touch reconciled transactions or months already past, and the oldest; reconciled ones left out. */
function olderAndReconciled(ctx: PlanContext, planned: readonly Planned[], reconciledLeft: number): Record<string, unknown> {
  const month = currentMonth(new Date(`${ctx.today}T00:00:00Z`));
  const older = planned.filter((p) => (p.entity.before!.date as string) < month);
  const reconciled = planned.filter((p) => p.entity.before!.cleared === 'reconciled').length;
  return {
    before_this_month: older.length,
    ...(older.length ? { oldest: older.reduce((d, p) => ((p.entity.before!.date as string) < d ? (p.entity.before!.date as string) : d), month) } : {}),
    reconciled,
    ...(reconciledLeft ? { reconciled_left_out: reconciledLeft } : {}),
  };
}

/** Negative categories listed at most (the rest counted). */
const NEGATIVE_LISTED = 12;

/** The category changes' effect on Ready to Assign and on categories that would go negative, by month (rule-effect.ts). */
function effectShown(ctx: PlanContext, planned: readonly Planned[]): Record<string, unknown> {
  const moves = planned
    .filter((p) => 'category_id' in p.rc.change)
    .map((p) => {
      const b = p.entity.before!;
      return {
        date: b.date as string,
        amount: b.amount as number,
        account_id: b.account_id as string,
        from: (b.category_id as string | null) ?? null,
        to: p.rc.change.category_id as string,
      };
    });
  if (!moves.length) return {};
  const e = budgetEffect(ctx.view, moves);
  const m = (name: string, v: number) => moneyOf(ctx.shown, name, v);
  return {
    ready_to_assign: e.ready_to_assign.length
      ? e.ready_to_assign.map((x) => ({ month: x.month, ...m('before', x.before), ...m('after', x.after), ...m('change', x.after - x.before) }))
      : 'unchanged',
    going_negative: e.negative
      .slice(0, NEGATIVE_LISTED)
      .map((x) => ({ month: x.month, category: ctx.shown.category(x.category_id), ...m('before', x.before), ...m('after', x.after) })),
    ...(e.negative.length > NEGATIVE_LISTED ? { going_negative_count: e.negative.length } : {}),
  };
}

/** Sends the updates; a failure part way journals what was changed (the pipeline records it, undo_change puts it back). */
async function applyRules(w: Writer, ctx: PlanContext, summary: string, planned: Planned[]): Promise<Applied<Record<string, unknown>>> {
  const byId = new Map(planned.map((p) => [p.entity.id, p]));
  const done: EntityChange[] = [];
  const applied: RuleChange['by'][] = [];
  try {
    await w.updateTransactions(
      planned.map((p) => ({ id: p.entity.id, ...p.rc.change })),
      (answered) => {
        for (const t of answered) {
          const p = byId.get(t.id);
          if (!p) continue;
          done.push({ ...p.entity, after: transactionState(t) });
          applied.push(p.rc.by);
        }
      },
      CHUNK,
    );
  } catch (e) {
    if (!done.length) throw e;
    await countApplied(ctx, applied);
    throw new StepError(`${(e as Error).message}. ${done.length} of the ${planned.length} were changed before this; the others were not`, {
      summary: `${summary} (stopped after ${done.length})`,
      entities: done,
    });
  }
  const notice = await countApplied(ctx, applied);
  const listed = rowsWithin(
    done.map((e) => txnRow(ctx.shown, e.id, e.after!)),
    ROWS_CHARS,
  );
  return {
    result: { updated: done.length, by_rule: appliedCounts(applied), transactions: listed },
    draft: { summary: summary.replace(/^Apply/, 'Applied'), entities: done },
    notices: [
      ...(notice ? [notice] : []),
      ...(listed.length < done.length ? [`The first ${listed.length} of ${done.length} changed transactions are listed.`] : []),
    ],
  };
}

/** Adds what each rule changed to its applied count; a count that cannot be kept costs a notice, never the change. */
export async function countApplied(ctx: PlanContext, applied: RuleChange['by'][]): Promise<string | undefined> {
  if (!ctx.rules || !applied.length) return undefined;
  try {
    await ctx.rules.countApplied(ctx.budgetId, appliedCounts(applied));
    return undefined;
  } catch (e) {
    return `The rules' applied counts could not be updated (${(e as Error).message}).`;
  }
}

/**
 * A plan (approve_transactions with apply_rules) whose changes are partly the rules': its preview
 * and answer say how many transactions each rule changes, and once applied, the rules' counts grow.
 */
export function withRuleCounts(ctx: PlanContext, plan: TaskPlan, ruled: Map<string, RuleChange['by']>): TaskPlan {
  const planned = plan.entities.filter((e) => ruled.has(e.id)).map((e) => ruled.get(e.id)!);
  if (!planned.length) return plan;
  const by_rule = appliedCounts(planned);
  plan.details = { ...plan.details, by_rule };
  const apply = plan.apply;
  return {
    ...plan,
    apply: async (w) => {
      const done = await apply(w);
      const applied = (done.draft?.entities ?? []).filter((e) => ruled.has(e.id)).map((e) => ruled.get(e.id)!);
      const notice = await countApplied(ctx, applied);
      return { ...done, result: { ...done.result, by_rule: appliedCounts(applied) }, notices: [...(done.notices ?? []), ...(notice ? [notice] : [])] };
    },
  };
}
