/**
 * What list_rules, set_rule and delete_rule do (their schemas are in rule-tasks.ts; this loads
 * with the first call). Rules live in this server's state store (src/rules/store.ts), not in
 * YNAB: setting or deleting one sends no request and is not a change of the undo journal. What
 * set_rule says it would change is counted on the budget's copy with the same function every
 * place that applies rules uses (transactionChanges), the new rule in its place among the others.
 */
import type { Rule } from '../../rules/types.js';
import { compileRules, transactionChanges, type CompiledRules } from '../../rules/match.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { ruleTransactions } from '../../insights/review/rule-subjects.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import type { TaskPlan } from '../pipeline/task.js';

/** The transactions a change is shown by in set_rule's answer, at most. */
const EXAMPLES = 3;

/** How many of the copy's transactions the rules would change, and how (a few, newest first). */
export function wouldChange(ctx: PlanContext, compiled: CompiledRules, ruleIds?: ReadonlySet<string>): { count: number; examples: string[] } {
  const found: { date: string; text: string }[] = [];
  let count = 0;
  for (const { tx, subject } of ruleTransactions(ctx.replica)) {
    const changes = Object.entries(transactionChanges(compiled, subject)).filter(([, o]) => !ruleIds || ruleIds.has(o.rule_id));
    if (!changes.length) continue;
    count++;
    const what = changes.map(([f, o]) => `${f} ${JSON.stringify(f === 'category_id' ? (ctx.shown.category(o.value) ?? o.value) : o.value)}`).join(', ');
    const label = subject.import_payee_name_original || subject.payee_name || '(no payee)';
    found.push({ date: tx.date, text: `${tx.date} ${label} ${ctx.shown.money(tx.amount)}: ${what}` });
  }
  found.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  return { count, examples: found.slice(0, EXAMPLES).map((f) => f.text) };
}

/** The names of the ids rules hold, so an answer can be read without looking them up. */
function namesOf(ctx: PlanContext, rules: readonly Rule[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const r of rules) {
    const pairs: [string | undefined, string | null][] = [
      [r.match.payee_id, ctx.shown.payee(r.match.payee_id)],
      [r.match.account_id, ctx.shown.account(r.match.account_id)],
      [r.set.category_id, ctx.shown.category(r.set.category_id)],
    ];
    for (const [id, name] of pairs) if (id && name !== null) names[id] = name;
  }
  return names;
}

export async function listRules(ctx: PlanContext): Promise<Record<string, unknown>> {
  const rules = await ctx.rules.list(ctx.budgetId);
  return { rules, count: rules.length, names: namesOf(ctx, rules) };
}

export interface SetRuleArgs {
  id?: string;
  match?: Record<string, unknown>;
  set?: Record<string, unknown>;
  position?: number;
  rules?: unknown[];
  replace?: boolean;
}

/** An import (`rules`): every rule checked first, then kept as one change of the rules. */
function planImport(ctx: PlanContext, a: SetRuleArgs & { rules: unknown[] }): TaskPlan {
  if (a.id || a.match || a.set || a.position) throw new ArgumentError('give either rules (a list to import) or one rule (id, match, set, position), not both');
  const mode = a.replace ? 'replace' : 'merge';
  return {
    ...planBase(ctx, a, `Import ${a.rules.length} rules (${mode})`),
    apply: async () => {
      const rules = await ctx.rules.importJson(ctx.budgetId, a.rules, mode);
      const change = wouldChange(ctx, compileRules(rules));
      return { result: { imported: a.rules.length, count: rules.length, would_change: change.count, examples: change.examples } };
    },
  };
}

function planBase(ctx: PlanContext, args: SetRuleArgs | { id: string }, summary: string) {
  // Nothing of YNAB's changes: no entities, no kinds of write, so nothing is held or journaled.
  return { tool: ctx.tool, budgetId: ctx.budgetId, args: args as Record<string, unknown>, summary, kinds: [], entities: [] };
}

export async function planSetRule(ctx: PlanContext, a: SetRuleArgs): Promise<TaskPlan> {
  if (a.rules) return planImport(ctx, { ...a, rules: a.rules });
  let { match, set } = a;
  if (a.id && (!match || !set)) {
    // An edit may give only what changes: the rest is the rule's as it is.
    const old = (await ctx.rules.list(ctx.budgetId)).find((r) => r.id === a.id);
    if (!old) throw new ArgumentError(`there is no rule ${a.id} in this budget; list_rules shows the rules, or leave id out to create one`);
    match ??= old.match as Record<string, unknown>;
    set ??= old.set as Record<string, unknown>;
  }
  if (!match || !set) throw new ArgumentError('a new rule needs match (what transactions it is for) and set (what it gives them); or give rules to import');
  return {
    ...planBase(ctx, a, a.id ? `Edit rule ${a.id}` : 'Add a rule'),
    apply: async () => {
      const rule = await ctx.rules.put(ctx.budgetId, { id: a.id, match: match as Rule['match'], set: set as Rule['set'] }, { position: a.position });
      const rules = await ctx.rules.list(ctx.budgetId);
      const change = wouldChange(ctx, compileRules(rules), new Set([rule.id]));
      const position = rules.findIndex((r) => r.id === rule.id) + 1;
      const notices = change.count
        ? [`apply_rules changes the ${change.count} existing transactions (one change, undoable); new ones get it where rules apply.`]
        : [];
      return { result: { rule, position, would_change: change.count, examples: change.examples, names: namesOf(ctx, [rule]) }, notices };
    },
  };
}

export async function planDeleteRule(ctx: PlanContext, a: { id: string }): Promise<TaskPlan> {
  const rules = await ctx.rules.list(ctx.budgetId);
  if (!rules.some((r) => r.id === a.id)) {
    throw new ArgumentError(`there is no rule ${a.id} in this budget${rules.length ? ` (its rules: ${rules.map((r) => r.id).join(', ')})` : ' (it has none)'}`);
  }
  return {
    ...planBase(ctx, a, `Delete rule ${a.id}`),
    apply: async () => {
      const deleted = await ctx.rules.remove(ctx.budgetId, a.id);
      if (!deleted) throw new ArgumentError(`rule ${a.id} was deleted meanwhile`);
      return { result: { deleted: a.id, count: (await ctx.rules.list(ctx.budgetId)).length } };
    },
  };
}
