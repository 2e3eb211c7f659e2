/**
 * The rules store: a budget's house rules, in order, as one small JSON value in the state store
 * (`rules/<identity>/<budget>.json`: a file for a local user, a Redis key in hosted mode, under
 * the user's identity like the replicas and the undo journal, so one user's rules are never
 * another's). Every change is one atomic read-modify-write of that value (StateStore.update), so
 * two processes or hosted instances setting rules at once both land. Rules hold budget text
 * (payee names, memos), so the stack seals the value with the key that seals the budget copies
 * and the undo journal (a Sealer of src/sync/seal.ts, given as the RuleSealing this layer
 * declares); the export is the plain JSON.
 *
 * The value: `{ "next": 8, "rules": [ …Rule ] }`; `next` numbers new ids (`r8`), never reused.
 */
import { ArgumentError } from '../shared/argument-error.js';
import { rulesKey } from '../storage/keys.js';
import { jsonBytes, parseJsonBytes, type StateStore } from '../storage/store.js';
import { MAX_RULES, type Rule } from './types.js';
import { checkRule, ruleOf, RULE_ID, type RuleInput } from './validate.js';

/** Sealing inside an atomic update: the key fetched first, then sealing and opening without waiting (src/sync/seal.ts's Sealer). */
export interface RuleSealing {
  key(): Promise<Buffer>;
  sealSync(key: Buffer, plain: Uint8Array, aad: string): Uint8Array;
  openSync(key: Buffer, bytes: Uint8Array, aad: string): Uint8Array;
}

/** What a sealed rules value starts with (its kind and format version). */
export const RULES_MAGIC = Buffer.from('YMCPR1\n');

interface Stored {
  next: number;
  rules: Rule[];
}

/** What put takes: a rule's match and set, and the id of the rule it edits. */
export type RulePut = Omit<Rule, 'id' | 'created_at' | 'applied_count'> & { id?: string };

export interface PutOptions {
  /** Where the rule goes, 1 = first (default: a new rule last, an edited one where it was). */
  position?: number;
}

const idNumber = (id: string): number => Number(id.slice(1));

export class RuleStore {
  private readonly identity: () => Promise<string>;

  constructor(
    private readonly store: StateStore,
    identity: string | (() => Promise<string>),
    private readonly now: () => number = Date.now,
    private readonly sealing?: RuleSealing,
  ) {
    this.identity = typeof identity === 'string' ? async () => identity : identity;
  }

  private async key(budgetId: string): Promise<string> {
    return rulesKey(await this.identity(), budgetId);
  }

  private decode(key: string, bytes: Uint8Array | undefined, sealKey: Buffer | undefined): Stored {
    if (bytes === undefined) return { next: 1, rules: [] };
    let plain: Uint8Array | undefined = bytes;
    if (sealKey && this.sealing) {
      try {
        plain = this.sealing.openSync(sealKey, bytes, key);
      } catch {
        plain = undefined;
      }
    }
    const value = parseJsonBytes(plain) as Partial<Stored> | undefined;
    if (!value || !Array.isArray(value.rules) || typeof value.next !== 'number') {
      // Never overwrite rules that cannot be read: a person may want them back.
      throw new ArgumentError(
        `the rules kept in ${this.store.describe(key)} cannot be read (not what this server writes, or sealed with another key); restore or remove it`,
      );
    }
    return { next: value.next, rules: value.rules };
  }

  /** One atomic change of the budget's rules. */
  private async change<T>(budgetId: string, fn: (s: Stored) => { next?: Stored; result: T }): Promise<T> {
    const key = await this.key(budgetId);
    const sealKey = await this.sealing?.key();
    return this.store.update(key, (bytes) => {
      const { next, result } = fn(this.decode(key, bytes, sealKey));
      if (!next) return { value: undefined, result };
      const plain = jsonBytes(next);
      return { value: sealKey && this.sealing ? this.sealing.sealSync(sealKey, plain, key) : plain, result };
    });
  }

  async list(budgetId: string): Promise<Rule[]> {
    const key = await this.key(budgetId);
    const sealKey = await this.sealing?.key();
    return this.decode(key, await this.store.get(key), sealKey).rules;
  }

  /** Creates a rule, or edits the rule `rule.id` (its match and set replaced, its history kept). */
  async put(budgetId: string, rule: RulePut, opts: PutOptions = {}): Promise<Rule> {
    const input = checkRule({ id: rule.id, match: rule.match, set: rule.set });
    const at = new Date(this.now()).toISOString();
    return this.change(budgetId, (s) => {
      const rules = [...s.rules];
      let next = s.next;
      let index = input.id === undefined ? -1 : rules.findIndex((r) => r.id === input.id);
      let kept: Rule;
      if (input.id !== undefined && index < 0) {
        throw new ArgumentError(`there is no rule ${input.id} in this budget; list_rules shows the rules, or leave id out to create one`);
      }
      if (index >= 0) {
        const old = rules[index]!;
        kept = ruleOf(input, old.id, old.created_at, old.applied_count);
        rules.splice(index, 1);
      } else {
        if (rules.length >= MAX_RULES) throw new ArgumentError(`this budget has ${rules.length} rules, the most it may have (${MAX_RULES}); delete one first`);
        kept = ruleOf(input, `r${next++}`, at, 0);
        index = rules.length;
      }
      const at0 = opts.position === undefined ? index : Math.min(Math.max(Math.trunc(opts.position) - 1, 0), rules.length);
      rules.splice(at0, 0, kept);
      return { next: { next, rules }, result: kept };
    });
  }

  /** Deletes a rule; false when there was none by that id. */
  async remove(budgetId: string, id: string): Promise<boolean> {
    return this.change(budgetId, (s) => {
      const rules = s.rules.filter((r) => r.id !== id);
      return rules.length === s.rules.length ? { result: false } : { next: { next: s.next, rules }, result: true };
    });
  }

  /** Adds to rules' applied counts (rule id → transactions changed); ids no longer there are passed over. */
  async countApplied(budgetId: string, counts: Record<string, number>): Promise<void> {
    const wanted = Object.entries(counts).filter(([, n]) => Number.isInteger(n) && n > 0);
    if (!wanted.length) return;
    await this.change(budgetId, (s) => {
      const by = new Map(wanted);
      if (!s.rules.some((r) => by.has(r.id))) return { result: undefined };
      const rules = s.rules.map((r) => (by.has(r.id) ? { ...r, applied_count: r.applied_count + by.get(r.id)! } : r));
      return { next: { next: s.next, rules }, result: undefined };
    });
  }

  /** The budget's rules as JSON (`{"rules":[…]}`), to keep or to import elsewhere. */
  async exportJson(budgetId: string): Promise<string> {
    return JSON.stringify({ rules: await this.list(budgetId) });
  }

  /**
   * Imports rules from JSON (an export, or a bare list). `replace` makes them the budget's rules;
   * `merge` edits the rules whose id is already there and adds the others after. Every rule is
   * checked before anything is kept: one bad rule imports none.
   */
  async importJson(budgetId: string, json: string | unknown[], mode: 'merge' | 'replace'): Promise<Rule[]> {
    const inputs = parseImport(json);
    const at = new Date(this.now()).toISOString();
    return this.change(budgetId, (s) => {
      const rules = mode === 'replace' ? [] : [...s.rules];
      // A replace keeps the given ids (an export's) and numbers past them; a merge edits by id.
      let next = mode === 'replace' ? 1 : s.next;
      for (const input of inputs) if (input.id) next = Math.max(next, idNumber(input.id) + 1);
      const taken = new Set<string>();
      for (const input of inputs) {
        const index = input.id && mode === 'merge' ? rules.findIndex((r) => r.id === input.id) : -1;
        const id = input.id && !taken.has(input.id) && (mode === 'replace' || index >= 0) ? input.id : `r${next++}`;
        taken.add(id);
        const old = index >= 0 ? rules[index] : undefined;
        const rule = ruleOf(input, id, old?.created_at ?? input.created_at ?? at, old?.applied_count ?? input.applied_count ?? 0);
        if (index >= 0) rules[index] = rule;
        else rules.push(rule);
      }
      if (rules.length > MAX_RULES) throw new ArgumentError(`the import would leave ${rules.length} rules; a budget may have at most ${MAX_RULES}`);
      return { next: { next, rules }, result: rules };
    });
  }
}

/** The rules in an import: `{"rules":[…]}` or `[…]`, as text or already parsed; each checked. */
function parseImport(json: string | unknown[]): RuleInput[] {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new ArgumentError(`the rules to import are not JSON (${(e as Error).message}); give the JSON list_rules or the rules resource exports`);
    }
  }
  const list = Array.isArray(value) ? value : (value as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new ArgumentError('the rules to import must be a list of rules, or {"rules": [...]} as exported');
  if (list.length > MAX_RULES) throw new ArgumentError(`${list.length} rules to import; a budget may have at most ${MAX_RULES}`);
  const inputs = list.map((r, i) => checkRule(r, `rule ${i + 1}: `));
  const seen = new Set<string>();
  for (const input of inputs) {
    if (!input.id) continue;
    if (!RULE_ID.test(input.id) || seen.has(input.id)) throw new ArgumentError(`rule id ${input.id} appears twice in the import`);
    seen.add(input.id);
  }
  return inputs;
}
