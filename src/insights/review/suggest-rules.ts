/**
 * suggest_rules: the rules a budget's history already follows, each with its evidence, for the
 * user to accept through set_rule (nothing here makes a rule). Two kinds:
 *  - a rename: a bank text (`import_payee_name_original`, the text YNAB kept before its own
 *    renaming) whose transactions nearly all have one payee of another name. Texts are grouped by
 *    what comes before their first store number or reference ("SHELL OIL 57442" → "SHELL OIL"),
 *    and the evidence counts every transaction the suggested rule would match, not the group;
 *  - a category: a payee filed in one category at least MIN_CATEGORY times and at least 90% of
 *    the times it was filed.
 * A suggestion that the budget's rules already give is left out. Computed from the budget's copy
 * in one pass over its transactions and a sort (bench: suggest-rules, at 100,000 transactions).
 */
import { formatMilliunits } from '../../api/money.js';
import { compileRules, foldRuleText, outcomeFor, subjectOf, type CompiledRules } from '../../rules/match.js';
import type { Rule, RuleMatch, RuleSet } from '../../rules/types.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { ruleTransactions } from './rule-subjects.js';

/** A rename is suggested from this many transactions on. */
const MIN_RENAME = 3;
/** A category is suggested from this many filed transactions on. */
const MIN_CATEGORY = 5;
/** …and when at least this share of them agree. */
const MIN_SHARE = 0.9;
const DEFAULT_LIMIT = 8;
const EXAMPLES = 2;
/** YNAB's own payees, which no rule should name. */
const INTERNAL_PAYEES = new Set(['Starting Balance', 'Manual Balance Adjustment', 'Reconciliation Balance Adjustment']);

type Tx = ReturnType<typeof ruleTransactions> extends Iterable<infer T> ? T : never;

export interface Suggestion {
  rule: { match: RuleMatch; set: RuleSet };
  why: string;
  evidence: { transactions: number; agreeing: number; examples: string[] };
  /** How many transactions of the budget it would change now. */
  would_change: number;
}

/**
 * The part of a bank text before its first word holding a number or `#` (a store number, a
 * reference), as it was written: "SHELL OIL 57442" → "SHELL OIL", "AMZN MKTP US*2K4LM19" →
 * "AMZN MKTP US", "SQ *BLUE BOTTLE COFFEE" stays whole.
 */
export function stemOf(text: string): string {
  const m = /(^|[\s*])[^\s*]*[0-9#]/.exec(text);
  const kept = m ? text.slice(0, m.index + m[1]!.length) : text;
  return kept.replace(/[\s*#\-_.,:;/]+$/, '').trim();
}

function covered(existing: CompiledRules, field: 'payee_name' | 'category_id', tx: Tx): boolean {
  return existing.rules.length > 0 && outcomeFor(existing, subjectOf(tx.subject))[field] !== undefined;
}

/** Rename suggestions: bank-text stems whose matches nearly all have one payee of another name. */
function renames(r: BudgetReplica, txs: Tx[], existing: CompiledRules): Suggestion[] {
  const texted = txs
    .filter((t) => t.subject.import_payee_name_original && t.tx.payee_id && !t.tx.transfer_account_id)
    .map((t) => ({ t, folded: foldRuleText(t.subject.import_payee_name_original!) }))
    .sort((a, b) => (a.folded < b.folded ? -1 : a.folded > b.folded ? 1 : 0));
  // Each stem once, with the text it was first seen in.
  const stems = new Map<string, { stem: string; exact: boolean }>();
  for (const { t, folded } of texted) {
    const stem = stemOf(t.subject.import_payee_name_original!);
    const key = foldRuleText(stem);
    if (key.length < 3 || stems.has(key)) continue;
    stems.set(key, { stem, exact: key === folded });
  }
  const out: Suggestion[] = [];
  const taken: { key: string; payeeId: string }[] = [];
  for (const [key, { stem }] of stems) {
    // Every text the rule would match: the sorted run of texts starting with the stem.
    const run = texted.slice(lowerBound(texted, key), lowerBound(texted, `${key}\uffff`));
    const exact = run.every((x) => x.folded === key);
    const byPayee = countBy(run, (x) => x.t.tx.payee_id!);
    const [payeeId, agreeing] = top(byPayee);
    const name = r.payees.get(payeeId)?.name;
    if (run.length < MIN_RENAME || agreeing / run.length < MIN_SHARE || !name || foldRuleText(name) === key) continue;
    if (run.every((x) => foldRuleText(x.t.subject.payee_name ?? '') === x.folded)) continue;
    if (covered(existing, 'payee_name', run[0]!.t)) continue;
    // A longer stem of a text already suggested for the same payee ("SHELL OIL" after "SHELL") adds nothing.
    if (taken.some((x) => key.startsWith(x.key) && x.payeeId === payeeId)) continue;
    taken.push({ key, payeeId });
    const texts = [...new Set(run.map((x) => x.t.subject.import_payee_name_original!))];
    out.push({
      rule: { match: { text: { kind: exact ? 'exact' : 'prefix', value: stem } }, set: { payee_name: name } },
      why: `bank text ${JSON.stringify(stem)}${exact ? '' : '…'} has payee ${JSON.stringify(name)} ${agreeing} of ${run.length} times`,
      evidence: { transactions: run.length, agreeing, examples: texts.slice(0, EXAMPLES) },
      would_change: run.length - agreeing,
    });
  }
  return out;
}

/** Category suggestions: payees filed in one category nearly every time. */
function categories(r: BudgetReplica, txs: Tx[], existing: CompiledRules): Suggestion[] {
  const byPayee = new Map<string, Tx[]>();
  for (const t of txs) {
    const p = t.tx.payee_id ? r.payees.get(t.tx.payee_id) : undefined;
    if (!p || p.transfer_account_id || INTERNAL_PAYEES.has(p.name) || t.tx.transfer_account_id || t.subject.split) continue;
    let list = byPayee.get(p.id);
    if (!list) byPayee.set(p.id, (list = []));
    list.push(t);
  }
  const format = r.summary.currency_format ?? null;
  const out: Suggestion[] = [];
  for (const [payeeId, list] of byPayee) {
    const filed = list.filter((t) => t.tx.category_id && !r.categories.get(t.tx.category_id)?.deleted);
    if (filed.length < MIN_CATEGORY) continue;
    const [categoryId, agreeing] = top(countBy(filed, (t) => t.tx.category_id!));
    if (agreeing / filed.length < MIN_SHARE) continue;
    const newest = [...list].sort((a, b) => (a.tx.date < b.tx.date ? 1 : -1));
    if (covered(existing, 'category_id', newest[0]!)) continue;
    const payee = r.payees.get(payeeId)!.name;
    const category = r.categories.get(categoryId)?.name ?? categoryId;
    out.push({
      rule: { match: { payee_id: payeeId }, set: { category_id: categoryId } },
      why: `payee ${JSON.stringify(payee)} is filed in ${JSON.stringify(category)} ${agreeing} of ${filed.length} times`,
      evidence: {
        transactions: filed.length,
        agreeing,
        examples: newest.slice(0, EXAMPLES).map((t) => `${t.tx.date} ${formatMilliunits(t.tx.amount, format)}`),
      },
      would_change: list.filter((t) => t.tx.category_id !== categoryId).length,
    });
  }
  return out;
}

function countBy<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of items) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

function top(counts: Map<string, number>): [string, number] {
  let best: [string, number] = ['', 0];
  for (const e of counts) if (e[1] > best[1]) best = e;
  return best;
}

function lowerBound(sorted: readonly { folded: string }[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.folded < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The budget's suggested rules, the best evidenced first, and names for the ids they hold. */
export function suggestRules(r: BudgetReplica, rules: readonly Rule[], limit = DEFAULT_LIMIT): Record<string, unknown> {
  const txs = [...ruleTransactions(r)];
  const existing = compileRules(rules);
  const all = [...renames(r, txs, existing), ...categories(r, txs, existing)].sort(
    (a, b) => b.evidence.agreeing - a.evidence.agreeing || b.would_change - a.would_change,
  );
  const shown = all.slice(0, limit);
  const names: Record<string, string> = {};
  for (const s of shown) {
    const { payee_id } = s.rule.match;
    const { category_id } = s.rule.set;
    if (payee_id) names[payee_id] = r.payees.get(payee_id)?.name ?? payee_id;
    if (category_id) names[category_id] = r.categories.get(category_id)?.name ?? category_id;
  }
  return {
    suggestions: shown,
    names,
    count: all.length,
    returned: shown.length,
    notices: ['Suggestions only: a rule is made when set_rule is called with its match and set, once the user agrees.'],
  };
}
