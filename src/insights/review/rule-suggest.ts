/**
 * The house rules (src/rules/) as a source of category suggestions: a transaction a rule files
 * gets that rule's category, with high confidence and `basis: "rule <id>"`, before anything the
 * history suggests (suggest.ts); review_transactions asks it first.
 */
import type * as E from '../../api/schemas/entities.js';
import { compileRules, outcomeFor, subjectOf } from '../../rules/match.js';
import type { Rule } from '../../rules/types.js';
import type { Suggestion } from './suggest.js';
import type { BudgetView } from '../core/view.js';

/** Built once per answer: the category a rule gives a transaction, as a suggestion; undefined without rules. */
export function ruleSuggester(view: BudgetView, rules: readonly Rule[] | undefined): ((t: E.TransactionSummaryBase) => Suggestion | undefined) | undefined {
  if (!rules?.length) return undefined;
  const r = view.replica;
  const compiled = compileRules([...rules]);
  return (t) => {
    const payee = t.payee_id ? (r.payees.get(t.payee_id)?.name ?? null) : null;
    const set = outcomeFor(compiled, subjectOf({ ...t, payee_name: payee })).category_id;
    const c = set?.value ? r.categories.get(set.value) : undefined;
    if (!c || c.deleted) return undefined;
    return { category_id: c.id, category: c.name, confidence: 'high', basis: `rule ${set!.rule_id}` };
  };
}
