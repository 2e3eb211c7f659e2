/**
 * What the house rules (src/rules/) change on an existing transaction, as an update's fields:
 * shared by apply_rules (the past, apply-rules-run.ts) and approve_transactions with `apply_rules`
 * (bulk.ts). The matcher says what differs (transactionChanges, as set_rule counts it: a
 * transfer keeps its payee and category, a split its category); this turns that into what YNAB
 * is sent, leaving out what the transaction cannot take:
 *  - a rename's payee is an existing payee of that name (by id) or, when the budget has none, a
 *    `payee_name`, which makes the payee (as YNAB does on update);
 *  - a category never in a tracking account (nor on a split or a transfer between budget
 *    accounts, again), and only one the budget still has;
 *  - memo, flag and approval as the rule sets them.
 */
import { createHash } from 'node:crypto';
import type * as E from '../../api/schemas/entities.js';
import { compileRules, transactionChanges } from '../../rules/match.js';
import type { Rule, RuleField, RuleOutcome } from '../../rules/types.js';
import { foldText } from '../../shared/text.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { noCategory } from '../pipeline/checks.js';

/** The rules a write reads and counts (the stack's RuleStore, src/rules/store.ts). */
export interface RulesAccess {
  list(budgetId: string): Promise<Rule[]>;
  countApplied(budgetId: string, counts: Record<string, number>): Promise<void>;
}

/** The payee a rename names: an existing one (not deleted, not a transfer payee) of that name, folded. */
export function payeeNamed(r: BudgetReplica): (name: string) => string | undefined {
  const byName = new Map<string, string>();
  for (const p of r.payees.values())
    if (!p.deleted && !p.transfer_account_id && !byName.has(foldText(p.name).trim())) byName.set(foldText(p.name).trim(), p.id);
  return (name) => byName.get(foldText(name).trim());
}

/** What the rules change on one transaction: the update's fields, the rule behind each field, and why a field was left. */
export interface RuleChange {
  change: Record<string, unknown>;
  /** Field (as the rule names it) → rule id, for the fields changed. */
  by: Partial<Record<RuleField, string>>;
  /** Fields a rule set that this transaction cannot take, with why. */
  left: string[];
}

/** Built once per plan: for a transaction, what the rules' outcome changes on it. */
export function ruleChanger(r: BudgetReplica): (t: E.TransactionSummaryBase, outcome: RuleOutcome) => RuleChange {
  const named = payeeNamed(r);
  return (t, o) => {
    const change: Record<string, unknown> = {};
    const by: RuleChange['by'] = {};
    const left: string[] = [];
    const set = (field: RuleField, key: string, value: unknown) => {
      change[key] = value;
      by[field] = o[field]!.rule_id;
    };
    if (o.payee_name?.value) {
      const id = named(o.payee_name.value);
      if (t.transfer_account_id) left.push(`payee (rule ${o.payee_name.rule_id}): a transfer's payee is the other account`);
      else if (id) {
        if (id !== t.payee_id) set('payee_name', 'payee_id', id);
      } else set('payee_name', 'payee_name', o.payee_name.value);
    }
    if (o.category_id?.value) {
      const c = r.categories.get(o.category_id.value);
      const blocked = noCategory(
        r,
        t,
        r.linesOf(t.id).some((x) => !x.deleted),
      );
      if (!c || c.deleted) left.push(`category (rule ${o.category_id.rule_id}): its category is no longer in the budget`);
      else if (blocked) left.push(`category (rule ${o.category_id.rule_id}): ${blocked}`);
      else if (c.id !== t.category_id) set('category_id', 'category_id', c.id);
    }
    if (o.memo && o.memo.value !== undefined && (o.memo.value ?? null) !== (t.memo ?? null)) set('memo', 'memo', o.memo.value);
    if (o.flag_color && o.flag_color.value !== undefined && (o.flag_color.value ?? null) !== (t.flag_color || null))
      set('flag_color', 'flag_color', o.flag_color.value);
    if (o.approved && typeof o.approved.value === 'boolean' && o.approved.value !== t.approved) set('approved', 'approved', o.approved.value);
    return { change, by, left };
  };
}

/** The budget's rules, compiled, with what they would change on one transaction of the copy; undefined without rules. */
export async function rulesFor(
  rules: RulesAccess | undefined,
  r: BudgetReplica,
): Promise<{ list: Rule[]; outcome: (t: E.TransactionSummaryBase) => RuleOutcome } | undefined> {
  const list = rules ? await rules.list(r.summary.id) : [];
  if (!list.length) return undefined;
  const compiled = compileRules(list);
  // What set_rule counts too (transactionChanges): only what differs, a transfer's payee and category and a split's category left alone.
  const payeeName = (id: string | null | undefined) => (id ? (r.payees.get(id)?.name ?? null) : null);
  return {
    list,
    outcome: (t) => transactionChanges(compiled, { ...t, payee_name: payeeName(t.payee_id), split: r.linesOf(t.id).some((x) => !x.deleted) }),
  };
}

/** How many transactions each rule changed: what RuleStore.countApplied is given. */
export function appliedCounts(changes: Iterable<RuleChange['by']>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const by of changes) for (const id of new Set(Object.values(by))) counts[id] = (counts[id] ?? 0) + 1;
  return counts;
}

/** The rules as a plan used them: what a confirm token binds besides the call's scope (counts and dates left out). */
export function rulesDigest(list: readonly Rule[]): string {
  const json = JSON.stringify(list.map((x) => [x.id, x.match, x.set]));
  return createHash('sha256').update(json).digest('hex').slice(0, 16);
}
