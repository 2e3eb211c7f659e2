/**
 * What list_rules, set_rule and delete_rule do (their schemas are in rule-tasks.ts; this loads
 * with the first call). Rules live in this server's state store (src/rules/store.ts), not in
 * YNAB: setting or deleting one sends no request and is not a change of the undo journal. What
 * set_rule says it would change is counted on the budget's copy as apply_rules counts it by default
 * (transactionChanges, then ruleChanger: what a transaction can take), the new rule in its place
 * among the others, so the two never give two counts: reconciled transactions, which apply_rules
 * leaves out unless asked, and those that cannot take what it sets are counted apart and named.
 */
import type { Rule, RuleField } from '../../rules/types.js';
import { compileRules, transactionChanges, type CompiledRules } from '../../rules/match.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { ruleTransactions } from '../../insights/review/rule-subjects.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import type { TaskPlan } from '../pipeline/task.js';
import { ruleChanger } from './rule-changes.js';

/** The transactions a change is shown by in set_rule's answer, at most. */
const EXAMPLES = 3;

/** What the rules would change on the copy, as apply_rules by default changes it; what it leaves out, apart. */
export interface WouldChange {
  count: number;
  examples: string[];
  /** Reconciled transactions they would change: apply_rules changes them only with include_reconciled. */
  reconciled: number;
  /** Transactions that keep a field a rule sets, which they cannot take (a category in a tracking account). */
  left: number;
}

/** How many of the copy's transactions the rules (or only `ruleIds`) would change, and how (a few, newest first). */
export function wouldChange(ctx: PlanContext, compiled: CompiledRules, ruleIds?: ReadonlySet<string>): WouldChange {
  const found: { date: string; text: string }[] = [];
  const change = ruleChanger(ctx.replica);
  const mine = (id: string) => !ruleIds || ruleIds.has(id);
  let count = 0;
  let reconciled = 0;
  let left = 0;
  for (const { tx, subject } of ruleTransactions(ctx.replica)) {
    const outcome = transactionChanges(compiled, subject);
    if (!Object.keys(outcome).length) continue;
    const rc = change(tx, outcome);
    const fields = Object.entries(rc.by).filter(([, id]) => mine(id));
    if (!fields.length) {
      if (rc.left.some((l) => Object.values(outcome).some((o) => mine(o.rule_id) && l.includes(`(rule ${o.rule_id})`)))) left++;
      continue;
    }
    if (tx.cleared === 'reconciled') {
      reconciled++;
      continue;
    }
    count++;
    const what = fields
      .map(([f]) => {
        const v = outcome[f as RuleField]!.value;
        return `${f} ${JSON.stringify(f === 'category_id' ? (ctx.shown.category(v as string) ?? v) : v)}`;
      })
      .join(', ');
    const label = subject.import_payee_name_original || subject.payee_name || '(no payee)';
    found.push({ date: tx.date, text: `${tx.date} ${label} ${ctx.shown.money(tx.amount)}: ${what}` });
  }
  found.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0));
  return { count, examples: found.slice(0, EXAMPLES).map((f) => f.text), reconciled, left };
}

/** The count's fields of an answer, and a line for each thing the count leaves out. */
function counted(change: WouldChange, it: string): { fields: Record<string, unknown>; notices: string[] } {
  const notices = [
    ...(change.count ? [`apply_rules changes the ${change.count} existing transactions (one change, undoable); new ones get ${it} where rules apply.`] : []),
    ...(change.reconciled
      ? [
          `${change.reconciled} reconciled transactions ${it === 'it' ? 'it matches' : 'they match'} are left out: apply_rules changes them with include_reconciled: true.`,
        ]
      : []),
    ...(change.left
      ? [`${change.left} transactions keep a field ${it === 'it' ? 'it sets' : 'they set'}, which they cannot take (a category in a tracking account).`]
      : []),
  ];
  return {
    fields: {
      would_change: change.count,
      ...(change.reconciled ? { reconciled_left_out: change.reconciled } : {}),
      ...(change.left ? { left_alone: change.left } : {}),
      examples: change.examples,
    },
    notices,
  };
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
      const change = counted(wouldChange(ctx, compileRules(rules)), 'them');
      return { result: { imported: a.rules.length, count: rules.length, ...change.fields }, notices: change.notices };
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
      const change = counted(wouldChange(ctx, compileRules(rules), new Set([rule.id])), 'it');
      const position = rules.findIndex((r) => r.id === rule.id) + 1;
      return { result: { rule, position, ...change.fields, names: namesOf(ctx, [rule]) }, notices: change.notices };
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
