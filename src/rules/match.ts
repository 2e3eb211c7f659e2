/**
 * The matcher: which rules fit a transaction, and what they set. Rules are tried in their order;
 * for each field, the first rule that matches and sets it wins, so a later, broader rule fills
 * only the fields an earlier one left alone. Regular expressions are compiled once per rule list
 * (compileRules) and were checked when they were set (safety.ts); the text a pattern runs on is
 * cut to MAX_SUBJECT characters, which bounds the time any one test can take.
 */
import { foldText } from '../shared/text.js';
import { MAX_SUBJECT, PATTERN_FLAGS } from './safety.js';
import { RULE_FIELDS, type Rule, type RuleField, type RuleOutcome, type RuleSet, type RuleSubject } from './types.js';

interface CompiledRule {
  rule: Rule;
  test: (subject: RuleSubject) => boolean;
}

export interface CompiledRules {
  rules: readonly CompiledRule[];
  /** Rules whose pattern no longer compiles (kept by an older version, or edited by hand): they never match. */
  broken: string[];
}

/** Case and accents folded, runs of spaces made one, ends trimmed: how texts are compared. */
export function foldRuleText(text: string): string {
  return foldText(text).replace(/\s+/g, ' ').trim();
}

/** The text a rule's text condition looks at: the bank/import text, else the payee name. */
export function subjectText(subject: RuleSubject): string {
  const text = subject.text?.trim() ? subject.text : (subject.payee_name ?? '');
  return text.slice(0, MAX_SUBJECT);
}

function textTest(match: NonNullable<Rule['match']['text']>): ((text: string) => boolean) | undefined {
  const want = foldRuleText(match.value);
  switch (match.kind) {
    case 'exact':
      return (text) => foldRuleText(text) === want;
    case 'prefix':
      return (text) => foldRuleText(text).startsWith(want);
    case 'contains':
      return (text) => foldRuleText(text).includes(want);
    case 'regex': {
      let re: RegExp;
      try {
        re = new RegExp(match.value, PATTERN_FLAGS);
      } catch {
        return undefined;
      }
      return (text) => re.test(text);
    }
  }
}

function compileOne(rule: Rule): CompiledRule | undefined {
  const { text, payee_id, account_id, amount, direction } = rule.match;
  const checks: ((s: RuleSubject) => boolean)[] = [];
  if (text) {
    const t = textTest(text);
    if (!t) return undefined;
    checks.push((s) => t(subjectText(s)));
  }
  if (payee_id) checks.push((s) => s.payee_id === payee_id);
  if (account_id) checks.push((s) => s.account_id === account_id);
  if (amount) {
    const { min, max } = amount;
    if (min !== undefined) checks.push((s) => s.amount >= min);
    if (max !== undefined) checks.push((s) => s.amount <= max);
  }
  if (direction === 'inflow') checks.push((s) => s.amount > 0);
  if (direction === 'outflow') checks.push((s) => s.amount < 0);
  // A rule with no condition would match everything; the store refuses one, and so does this.
  if (checks.length === 0) return undefined;
  return { rule, test: (s) => checks.every((c) => c(s)) };
}

/** The rules ready to test, in order. */
export function compileRules(rules: readonly Rule[]): CompiledRules {
  const out: CompiledRule[] = [];
  const broken: string[] = [];
  for (const rule of rules) {
    const c = compileOne(rule);
    if (c) out.push(c);
    else broken.push(rule.id);
  }
  return { rules: out, broken };
}

/** Whether one rule matches a subject (the rule need not be in any list). */
export function ruleMatches(rule: Rule, subject: RuleSubject): boolean {
  return compileOne(rule)?.test(subject) ?? false;
}

/** What the rules set for a subject: per field, the first matching rule's value. */
export function outcomeFor(compiled: CompiledRules, subject: RuleSubject): RuleOutcome {
  const outcome: Record<string, { value: unknown; rule_id: string }> = {};
  let left: number = RULE_FIELDS.length;
  for (const { rule, test } of compiled.rules) {
    if (left === 0) break;
    if (!RULE_FIELDS.some((f) => rule.set[f] !== undefined && !(f in outcome))) continue;
    if (!test(subject)) continue;
    for (const f of RULE_FIELDS) {
      if (rule.set[f] === undefined || f in outcome) continue;
      outcome[f] = { value: rule.set[f], rule_id: rule.id };
      left--;
    }
  }
  return outcome as RuleOutcome;
}

/** A transaction's current values of the fields a rule can set. */
export type RuleCurrent = { [F in RuleField]?: RuleSet[F] | undefined };

/**
 * The part of an outcome that would change something: a field whose value differs from the
 * transaction's (a payee name compared folded, since YNAB matches payee names so).
 */
export function differences(outcome: RuleOutcome, current: RuleCurrent): RuleOutcome {
  const out: Record<string, unknown> = {};
  for (const f of RULE_FIELDS) {
    const o = outcome[f];
    if (!o) continue;
    const now = current[f] ?? null;
    const same = f === 'payee_name' ? typeof now === 'string' && foldRuleText(now) === foldRuleText(String(o.value)) : (o.value ?? null) === now;
    if (!same) out[f] = o;
  }
  return out as RuleOutcome;
}

/** The transaction fields the matcher and `differences` read (a replica's or the API's transaction). */
export interface RuleTransaction {
  account_id: string;
  amount: number;
  payee_id?: string | null;
  payee_name?: string | null;
  import_payee_name?: string | null;
  import_payee_name_original?: string | null;
  category_id?: string | null;
  memo?: string | null;
  flag_color?: RuleSet['flag_color'] | string;
  approved?: boolean;
}

/** A transaction as a subject: its bank text is the import payee name YNAB kept, the original first. */
export function subjectOf(tx: RuleTransaction): RuleSubject {
  return {
    text: tx.import_payee_name_original || tx.import_payee_name || null,
    payee_id: tx.payee_id ?? null,
    payee_name: tx.payee_name ?? null,
    account_id: tx.account_id,
    amount: tx.amount,
  };
}

/** A transaction's current values, for `differences`. */
export function currentOf(tx: RuleTransaction): RuleCurrent {
  return {
    payee_name: tx.payee_name ?? undefined,
    category_id: tx.category_id ?? undefined,
    memo: tx.memo ?? undefined,
    flag_color: (tx.flag_color ?? null) as RuleSet['flag_color'],
    approved: tx.approved,
  };
}

/**
 * What the rules would change on one transaction: the outcome's differences, less what must not
 * be set there. A transfer keeps its payee (the transfer payee names its other account) and gets
 * no category (YNAB gives a transfer between budget accounts none); a split keeps its category
 * (its lines hold the categories). Every place that applies rules counts and changes the same.
 */
export function transactionChanges(compiled: CompiledRules, tx: RuleTransaction & { transfer_account_id?: string | null; split?: boolean }): RuleOutcome {
  const out = differences(outcomeFor(compiled, subjectOf(tx)), currentOf(tx));
  if (tx.transfer_account_id) {
    delete out.payee_name;
    delete out.category_id;
  }
  if (tx.split) delete out.category_id;
  return out;
}
