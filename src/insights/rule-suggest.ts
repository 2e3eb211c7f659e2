/**
 * The house rules (src/rules/) as a source of category suggestions: a transaction a rule files
 * gets that rule's category, with high confidence and `basis: "rule <id>"`, before anything the
 * history suggests (suggest.ts); review_transactions asks it first. Also how a transaction of the
 * copy reads to the matcher, which the writes that apply rules share (src/writes/rule-changes.ts).
 */
import type * as E from '../api/schemas/entities.js';
import { compileRules, outcomeFor } from '../rules/match.js';
import type { Rule, RuleSubject } from '../rules/types.js';
import type { BudgetReplica } from '../sync/replica.js';
import type { Suggestion } from './suggest.js';
import type { BudgetView } from './view.js';

/** A transaction of the copy as the matcher reads it: its bank text (as YNAB keeps it), payee, account and amount. */
export function subjectOf(r: BudgetReplica, t: E.TransactionSummaryBase): RuleSubject {
  return {
    text: t.import_payee_name_original || t.import_payee_name || null,
    payee_id: t.payee_id ?? null,
    payee_name: t.payee_id ? (r.payees.get(t.payee_id)?.name ?? null) : null,
    account_id: t.account_id,
    amount: t.amount,
  };
}

/** Built once per answer: the category a rule gives a transaction, as a suggestion; undefined without rules. */
export function ruleSuggester(view: BudgetView, rules: readonly Rule[] | undefined): ((t: E.TransactionSummaryBase) => Suggestion | undefined) | undefined {
  if (!rules?.length) return undefined;
  const r = view.replica;
  const compiled = compileRules([...rules]);
  return (t) => {
    const set = outcomeFor(compiled, subjectOf(r, t)).category_id;
    const c = set?.value ? r.categories.get(set.value) : undefined;
    if (!c || c.deleted) return undefined;
    return { category_id: c.id, category: c.name, confidence: 'high', basis: `rule ${set!.rule_id}` };
  };
}
