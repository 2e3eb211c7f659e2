/**
 * approve_transactions and recategorize_transactions: the transactions named by id, or every
 * one matching the search_transactions filter (the shared filter of src/insights/core/filter.ts),
 * with expected_count. A count that does not hold, a filter without one, or more than 5 to change,
 * answers with a preview first (its token binds the set it previewed); what is already as asked is left alone, and what cannot be changed so (a split,
 * a transfer between budget accounts, a tracking account) is listed as skipped with the reason.
 * approve_transactions may set categories and payees too (`categories`, `payees`: transaction id →
 * category, payee): each such transaction is approved and changed in the same request, and the
 * whole call is one change. A payee is one the budget has (id or exact name), never a transfer payee.
 * Sent a hundred per request, each exactly once; a failure part way says how many were changed.
 */
import * as z from 'zod';
import type * as E from '../../api/schemas/entities.js';
import { FILTER_ARGS_AS_SEARCH, matchingTransactions, type FilterArgs } from '../../insights/core/filter.js';
import { payeesLeftOut } from '../../insights/core/payees-left-out.js';
import { guardedString, NameOrId } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { approvalQueue, byCategory } from '../pipeline/after-state.js';
import { absentText, noCategory } from '../pipeline/checks.js';
import { currentState, transactionState, type EntityChange } from '../pipeline/entities.js';
import { BULK_LIMIT, type WriteKind } from '../pipeline/policy.js';
import type { RuleChange } from '../rules/rule-changes.js';
import { txnRow } from '../pipeline/rows.js';
import type { Writer } from '../pipeline/steps.js';
import type { Applied, PlanContext } from '../pipeline/pipeline.js';
import { taskWrite, type TaskPlan } from '../pipeline/task.js';

export const MAX_SELECTED = 1000;

export const SELECTION = {
  transaction_ids: z.array(guardedString(100)).min(1).max(MAX_SELECTED).optional().describe('Or a filter, as in search_transactions.'),
  ...FILTER_ARGS_AS_SEARCH,
  expected_count: z.int().min(0).optional().describe("With a filter: search_transactions' count; else a preview."),
};

export type Selection = z.infer<z.ZodObject<typeof SELECTION>>;

type Decide = (t: E.TransactionSummaryBase, split: boolean) => { change: Record<string, unknown> } | { unchanged: string } | { skip: string };

/**
 * The transactions a call names: by id (each must be in the budget), or by the filter. `counted`
 * is what expected_count is compared with: the number of transactions given, or for a filter the
 * count search_transactions gives for it (matching lines: a split counts by its lines).
 */
export function selected(ctx: PlanContext, a: Selection): { ids: string[]; counted: number; filter: FilterArgs } {
  const r = ctx.replica;
  const { transaction_ids, expected_count: _count, ...filter } = a;
  const given = Object.entries(filter)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  if (transaction_ids && given.length) throw new ArgumentError(`give transaction_ids or a filter (${given.join(', ')}), not both`);
  if (!transaction_ids && !given.length) throw new ArgumentError('give transaction_ids, or a filter as search_transactions takes it');
  if (!transaction_ids) {
    const found = matchingTransactions(ctx.view, filter, ctx.digits);
    return { ids: found.ids, counted: found.lines, filter };
  }
  const ids = [...new Set(transaction_ids)];
  const unknown = ids.filter((id) => !r.transactions.get(id) || r.transactions.get(id)!.deleted);
  if (unknown.length) {
    const named = unknown.slice(0, 10).map((id) => `transaction ${id}: ${absentText(r, id)}`);
    throw new ArgumentError(
      `${named.join('; ')}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} (split lines are changed through their split transaction)`,
    );
  }
  return { ids, counted: ids.length, filter };
}

/** Each selected transaction: changed (an entity of the plan), already as asked, or skipped with the reason. */
function sorted(ctx: PlanContext, ids: string[], decide: Decide): { entities: EntityChange[]; unchanged: string[]; skipped: { id: string; reason: string }[] } {
  const r = ctx.replica;
  const entities: EntityChange[] = [];
  const unchanged: string[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const id of ids) {
    const d = decide(
      r.transactions.get(id)!,
      r.linesOf(id).some((x) => !x.deleted),
    );
    if ('skip' in d) skipped.push({ id, reason: d.skip });
    else if ('unchanged' in d) unchanged.push(id);
    else {
      const before = currentState(r, 'transaction', id)!;
      entities.push({ kind: 'transaction', id, action: 'update', before, after: { ...before, ...d.change } });
    }
  }
  return { entities, unchanged, skipped };
}

/** Sends the updates; a failure part way journals what was changed and says how many were. */
async function applyBulk(
  w: Writer,
  ctx: PlanContext,
  summary: string,
  entities: EntityChange[],
  details: Record<string, unknown>,
  after?: After,
): Promise<Applied<Record<string, unknown>>> {
  const done: EntityChange[] = [];
  const byId = new Map(entities.map((e) => [e.id, e]));
  const record = (answered: E.TransactionDetail[]) => {
    for (const t of answered) if (byId.has(t.id)) done.push({ ...byId.get(t.id)!, after: transactionState(t) });
  };
  try {
    await w.updateTransactions(
      entities.map((e) => ({
        id: e.id,
        ...Object.fromEntries(
          Object.keys(e.after!)
            .filter((k) => e.after![k] !== e.before![k])
            .map((k) => [k, e.after![k]]),
        ),
      })),
      record,
    );
  } catch (e) {
    if (done.length) {
      const partial = await ctx.changes
        .append(ctx.budgetId, { tool: ctx.tool, summary: `${summary} (stopped after ${done.length})`, entities: done })
        .catch(() => undefined);
      (e as Error).message =
        `${(e as Error).message}. ${done.length} of the ${entities.length} were changed before this${partial ? ` (change ${partial.id}, which undo_change can undo)` : ''}; the others were not`;
    }
    throw e;
  }
  return {
    result: { updated: done.length, ...details, ...after?.(ctx, done), transactions: done.slice(0, 50).map((e) => txnRow(ctx.shown, e.id, e.after!)) },
    draft: { summary: summary.replace(/^(\w+)e /, '$1ed '), entities: done },
    notices: done.length > 50 ? [`The first 50 of ${done.length} changed transactions are listed.`] : [],
  };
}

/** What the answer says of the budget as the write left it (after-state.ts), from the copy with the answers merged. */
type After = (ctx: PlanContext, done: EntityChange[]) => Record<string, unknown>;

function planBulk(verb: string, decide: Decide, check?: (ids: string[]) => void, after?: After) {
  return async (ctx: PlanContext, a: Selection, extra: Record<string, unknown> = {}): Promise<TaskPlan> => {
    const { ids, counted, filter } = selected(ctx, a);
    check?.(ids);
    if (ids.length > MAX_SELECTED)
      throw new ArgumentError(`${ids.length} transactions match; at most ${MAX_SELECTED} are changed in one call: narrow the filter (dates, account)`);
    const { entities, unchanged, skipped } = sorted(ctx, ids, decide);
    const expected = a.expected_count ?? counted;
    const kinds: WriteKind[] = [entities.length > BULK_LIMIT ? 'bulk' : 'update', ...(expected !== counted ? ['count' as const] : [])];
    const summary = `${verb} ${entities.length} transaction${entities.length === 1 ? '' : 's'}`;
    const details = {
      matched: ids.length,
      ...(counted !== ids.length ? { matched_lines: counted } : {}),
      ...(a.expected_count !== undefined ? { expected_count: a.expected_count } : {}),
      ...(unchanged.length ? { unchanged: unchanged.length } : {}),
      ...(skipped.length ? { skipped } : {}),
    };
    const matchedText =
      counted !== ids.length
        ? `${counted} lines match (as search_transactions counts them), in ${ids.length} transaction${ids.length === 1 ? '' : 's'}`
        : `${ids.length} transaction${ids.length === 1 ? '' : 's'} match${ids.length === 1 ? 'es' : ''}`;
    const notices = expected !== counted ? [`expected_count ${expected} does not hold: ${matchedText}. Check the list before confirming.`] : [];
    const left = a.transaction_ids ? undefined : payeesLeftOut(ctx.view, filter, ctx.digits, ctx.view.lines);
    if (left) notices.push(left);
    // A filter without expected_count is previewed (kind 'filter'); the token binds the entities it
    // showed, so a set that changed since is refused (confirm-tokens.ts), never written instead.
    const unbound = !a.transaction_ids && a.expected_count === undefined;
    if (unbound) {
      kinds.push('filter');
      notices.push(`${matchedText}; confirm_token applies to exactly these.`);
    }
    const args = { ...(a.transaction_ids ? { transaction_ids: ids } : { filter }), ...(unbound ? {} : { expected_count: expected }), ...extra };
    const base = { tool: ctx.tool, budgetId: ctx.budgetId, args, summary, kinds, entities, details, notices };
    if (!entities.length) {
      return {
        ...base,
        answer: {
          updated: 0,
          ...details,
          ...after?.(ctx, []),
          message: `Nothing to change: ${unchanged.length ? `${unchanged.length} already as asked` : 'no transaction matches'}${skipped.length ? `, ${skipped.length} cannot be changed (see skipped)` : ''}.`,
        },
        apply: async () => ({ result: {} }),
      };
    }
    return { ...base, apply: (w) => applyBulk(w, ctx, summary, entities, details, after) };
  };
}

const APPROVE_INPUT = {
  categories: z.record(guardedString(100), NameOrId).optional().describe('Transaction id → category.'),
  payees: z.record(guardedString(100), NameOrId).optional().describe('Transaction id → payee.'),
  apply_rules: z.boolean().optional().describe('Also apply the rules (apply_rules).'),
  ...SELECTION,
};

/**
 * approve_transactions: approval, and with `categories` and `payees` each named transaction's
 * category and payee too, in one change; with `apply_rules` what the house rules set on each
 * (rule-changes.ts), where `categories` and `payees` do not say otherwise.
 */
async function approve(ctx: PlanContext, a: z.infer<z.ZodObject<typeof APPROVE_INPUT>>): Promise<TaskPlan> {
  const r = ctx.replica;
  const { categories, payees, apply_rules, ...selection } = a;
  const wanted = new Map(Object.entries(categories ?? {}).map(([id, c]) => [id, categoryOf(r, c, `categories.${id}`)]));
  const named = new Map(Object.entries(payees ?? {}).map(([id, p]) => [id, payeeOf(r, p, `payees.${id}`)]));
  // The rules' code loads with the first call that applies them.
  const ruling = apply_rules ? await import('../rules/rule-changes.js') : undefined;
  const rules = ruling ? await ruling.rulesFor(ctx.rules, r) : undefined;
  const changer = rules ? ruling!.ruleChanger(r) : undefined;
  const ruled = new Map<string, RuleChange['by']>();
  const decide: Decide = (t, split) => {
    const want = wanted.get(t.id);
    const payee = named.get(t.id);
    const change: Record<string, unknown> = { approved: true };
    if (rules && changer) {
      // What the rules set, approval aside (approving is the call's point); the call's own categories and payees win.
      const rc = changer(t, rules.outcome(t));
      const { approved: _a, ...set } = rc.change;
      const own = (k: string) => (k === 'category_id' && want) || ((k === 'payee_id' || k === 'payee_name') && payee);
      const kept = Object.entries(set).filter(([k]) => !own(k));
      Object.assign(change, Object.fromEntries(kept));
      const by = Object.fromEntries(Object.entries(rc.by).filter(([f]) => f !== 'approved' && !own(f === 'payee_name' ? 'payee_id' : f)));
      if (Object.keys(by).length) ruled.set(t.id, by);
    }
    if (want) {
      const blocked = noCategory(r, t, split);
      if (blocked) return { skip: blocked };
      change.category_id = want;
    }
    if (payee) {
      if (t.transfer_account_id) return { skip: "a transfer: its payee is the other account's" };
      change.payee_id = payee;
    }
    const same = Object.entries(change).every(([k, v]) => (t as Record<string, unknown>)[k] === v);
    return same ? { unchanged: 'already' } : { change };
  };
  // A category or payee for a transaction the call does not select is a mistake, not something to ignore.
  const check = (ids: string[]) => {
    const selected = new Set(ids);
    for (const [arg, map] of [['categories', wanted] as const, ['payees', named] as const]) {
      const stray = [...map.keys()].filter((id) => !selected.has(id));
      if (stray.length)
        throw new ArgumentError(
          `${arg} names ${stray.length === 1 ? 'a transaction' : 'transactions'} not among those to approve: ${stray.slice(0, 10).join(', ')}. Select ${stray.length === 1 ? 'it' : 'them'} too (transaction_ids or the filter), or leave ${stray.length === 1 ? 'it' : 'them'} out of ${arg}`,
        );
    }
  };
  const extra = {
    ...(categories ? { categories: Object.fromEntries(wanted) } : {}),
    ...(payees ? { payees: Object.fromEntries(named) } : {}),
    ...(ruling ? { apply_rules: true, rules: ruling.rulesDigest(rules?.list ?? []) } : {}),
  };
  const plan = await planBulk('Approve', decide, check, (c) => approvalQueue(c.replica))(ctx, selection, extra);
  return rules ? (await import('../rules/apply-rules-run.js')).withRuleCounts(ctx, plan, ruled) : plan;
}

/** The payee an argument names (names were turned into ids before the handler); not a transfer payee, which would make a transfer. */
function payeeOf(r: PlanContext['replica'], id: string, label: string): string {
  const p = r.payees.get(id);
  if (!p || p.deleted) throw new ArgumentError(`${label} ${id}: no such payee in this budget`);
  if (p.transfer_account_id)
    throw new ArgumentError(`${label}: ${JSON.stringify(p.name)} is a transfer payee; make a transfer with update_transactions instead`);
  return p.id;
}

export const APPROVE_TRANSACTIONS = taskWrite({ input: APPROVE_INPUT, plan: approve });

/** The category an argument names (names were turned into ids before the handler). */
function categoryOf(r: PlanContext['replica'], id: string, label: string): string {
  const c = r.categories.get(id);
  if (!c || c.deleted) throw new ArgumentError(`${label} ${id}: no such category in the budget ${JSON.stringify(r.summary.name)}`);
  return c.id;
}

const RECATEGORIZE_INPUT = { new_category_id: NameOrId.describe('The category to set: id or name.'), ...SELECTION };

function recategorize(ctx: PlanContext, a: z.infer<z.ZodObject<typeof RECATEGORIZE_INPUT>>): Promise<TaskPlan> {
  const r = ctx.replica;
  const { new_category_id, ...selection } = a;
  const target = categoryOf(r, new_category_id, 'new_category_id');
  const decide: Decide = (t, split) => {
    const blocked = noCategory(r, t, split);
    if (blocked) return { skip: blocked };
    return t.category_id === target ? { unchanged: 'already' } : { change: { category_id: target } };
  };
  // Where the money was and where it is now: the changed transactions by their category before and after.
  const moved: After = (c, done) =>
    !done.length
      ? {}
      : {
          from: byCategory(
            c.shown,
            done.map((e) => ({ category_id: (e.before!.category_id as string | null) ?? null, amount: e.before!.amount as number })),
          ),
          to: byCategory(
            c.shown,
            done.map((e) => ({ category_id: (e.after!.category_id as string | null) ?? null, amount: e.after!.amount as number })),
          ),
        };
  return planBulk('Recategorize', decide, undefined, moved)(ctx, selection, { new_category_id: target });
}

export const RECATEGORIZE_TRANSACTIONS = taskWrite({ input: RECATEGORIZE_INPUT, plan: recategorize });
