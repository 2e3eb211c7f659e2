/**
 * House rules: how a budget's owner files things ("always file Shell as Fuel", "call
 * `AMZN MKTP US*…` Amazon"), kept by this server per budget (YNAB's API exposes none of its own
 * payee rules) and applied where transactions arrive (import, review, approval, an assistant's
 * create) and, on request, to the past (apply_rules).
 *
 * This file is the contract between the rules store and matcher (src/rules/) and the places that
 * apply rules (writes/, insights/, mcp/). Amounts are integer milliunits; text matching folds case.
 */

/** How a rule's text is compared with a transaction's bank or import text (or payee name when there is none). */
export type TextMatchKind = 'exact' | 'prefix' | 'contains' | 'regex';

export interface RuleMatch {
  /** Bank/import text: the import payee name YNAB keeps (`import_payee_name_original`, else `import_payee_name`), a statement row's text, or the payee name given. */
  text?: { kind: TextMatchKind; value: string };
  /** The transaction's payee (by id). */
  payee_id?: string;
  /** The transaction's account (by id). */
  account_id?: string;
  /** Amount range in milliunits, inclusive, signed as YNAB signs them (outflows negative). `min === max` is an exact amount. */
  amount?: { min?: number; max?: number };
  /** Money in or money out. */
  direction?: 'inflow' | 'outflow';
}

export interface RuleSet {
  /** Rename: the payee the transaction gets (by name; a name without an existing payee creates one, as YNAB does). */
  payee_name?: string;
  category_id?: string;
  memo?: string;
  flag_color?: 'red' | 'orange' | 'yellow' | 'green' | 'blue' | 'purple' | null;
  approved?: boolean;
}

/** The fields a rule can set, in the order answers list them. */
export const RULE_FIELDS = ['payee_name', 'category_id', 'memo', 'flag_color', 'approved'] as const;
export type RuleField = (typeof RULE_FIELDS)[number];

export interface Rule {
  /** Short, stable, unique within the budget (e.g. `r7`). */
  id: string;
  match: RuleMatch;
  set: RuleSet;
  /** ISO 8601 UTC. */
  created_at: string;
  /** How many transactions this rule has changed (import, review accepted, approval, apply_rules, create). */
  applied_count: number;
}

/** What the matcher is given: a transaction (or a statement row about to become one). */
export interface RuleSubject {
  /** Bank/import text, if any. */
  text?: string | null;
  payee_id?: string | null;
  payee_name?: string | null;
  account_id: string;
  /** Milliunits, signed. */
  amount: number;
}

/** What the rules say for one subject: per field, the value and the rule that set it (first matching rule wins per field). */
export type RuleOutcome = Partial<{ [F in RuleField]: { value: RuleSet[F]; rule_id: string } }>;

/** At most this many rules per budget. */
export const MAX_RULES = 500;

/*
 * The module API (src/rules/), built by the rules-core branch; other code imports only these:
 *
 *   match.ts   compileRules(rules: Rule[]): CompiledRules   (regexes compiled once; safe: see safety)
 *              outcomeFor(compiled: CompiledRules, subject: RuleSubject): RuleOutcome
 *   store.ts   class RuleStore { constructor(store: StateStore, identity: string)
 *                list(budgetId): Promise<Rule[]>
 *                put(budgetId, rule: Omit<Rule,'id'|'created_at'|'applied_count'> & { id?: string }): Promise<Rule>
 *                remove(budgetId, id): Promise<boolean>
 *                countApplied(budgetId, counts: Record<string, number>): Promise<void>
 *                exportJson(budgetId): Promise<string>; importJson(budgetId, json, mode: 'merge'|'replace'): Promise<Rule[]> }
 *   safety.ts  checkPattern(value: string): void   (throws an ArgumentError naming the runaway part)
 *
 * The RuleStore is reached from the stack (stack/) beside the undo journal, one per identity
 * (hosted: per user), and keyed `rules/<identity>/<budget>.json` in the state store.
 */
