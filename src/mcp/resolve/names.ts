/**
 * Names wherever ids go: an argument that takes the id of a budget, account, category, category
 * group or payee also takes its exact name (case-insensitive), since that is what people say and
 * what an assistant has at hand. An account, category, group or payee may also be given as people
 * say it: a word of its name or the start of one ("the Visa" for "Visa Rewards"), when that is the
 * only one it can mean; the answer then says which was used (spokenMatches). A name is never
 * guessed: an unknown name, or one that several things share, is an error listing the closest
 * candidates with their ids.
 *
 * Which arguments these are is decided by name (`account_id`, and any `…_account_id` such as a
 * transfer's `from_account_id`), so that new tools get names for free.
 */
import { checkPathParam } from '../../api/argument-check.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { escapeText } from '../output/sanitize.js';
import { closest, foldText, wordStarts } from '../../shared/text.js';

export type NamedKind = 'account' | 'category' | 'category_group' | 'payee';

/** The plain argument names of each kind (also `…_<name>` prefixed ones, see namedKindOf). */
export const NAMED_KINDS: Readonly<Record<string, NamedKind>> = {
  account_id: 'account',
  category_id: 'category',
  category_group_id: 'category_group',
  payee_id: 'payee',
};

/**
 * Arguments that map ids of something else to names of a kind: approve_transactions' `categories`
 * and `payees` (transaction id → category or payee, id or name). Their values are resolved as the plain arguments are.
 */
export const NAMED_MAPS: Readonly<Record<string, NamedKind>> = { categories: 'category', payees: 'payee' };

/** The values of a named map argument, when `value` is one (an object of strings). */
function mapValues(key: string, value: unknown): { kind: NamedKind; entries: [string, unknown][] } | undefined {
  const kind = NAMED_MAPS[key];
  if (!kind || !value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return { kind, entries: Object.entries(value) };
}

/** The kind of thing an argument names, by its name: `account_id`, `from_account_id`, … */
export function namedKindOf(key: string): NamedKind | undefined {
  for (const [arg, kind] of Object.entries(NAMED_KINDS)) if (key === arg || key.endsWith(`_${arg}`)) return kind;
  return undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function looksLikeId(value: string): boolean {
  return UUID.test(value);
}

/** One thing that can be named: its id, name, and a qualifier shown in errors (group, type). */
export interface Named {
  id: string;
  name: string;
  detail?: string;
}

/**
 * Case-insensitive, accent-preserving comparison form of a name (exact names only). Answers show
 * names escaped (`Tom \u003e Jerry`, output/sanitize.ts): the form compared is the escaped one, so
 * a name given back as it was shown finds the same entry as the name itself.
 */
export function nameKey(name: string): string {
  return escapeText(name.normalize('NFC').trim()).toLowerCase();
}

const plural = (what: string) => (what.endsWith('y') ? `${what.slice(0, -1)}ies` : `${what}s`);

const describe = (e: Named) => `${JSON.stringify(e.name)} (id ${e.id}${e.detail ? `, ${e.detail}` : ''})`;

/** Which budget was searched, for "not found" errors: a name found in another budget is no help. */
const searched = (budget: string | undefined) => (budget === undefined ? '' : ` Searched the budget ${JSON.stringify(budget)} (budget_id picks another).`);

/** Words people put before a name ("the Visa", "my checking"), left out when matching. */
const LEADING = /^(the|my|our)\s+/;

/**
 * The entries a name as people say it can mean: those whose name, or one of whose words, starts
 * with it (case and accents aside, "the"/"my"/"our" before it left out), at least 3 letters. A
 * name ending in a digit does not stop inside a number ("Shop 1" is not "Shop 12"), and a
 * transfer payee ("Transfer : Savings") is never meant by a word: paying it makes a transfer.
 * Exact names first: "Visa" is the account "Visa" when there is one, not also "Visa Rewards".
 */
export function spokenMatches(entries: readonly Named[], value: string): Named[] {
  const q = foldText(value.normalize('NFC').trim()).replace(LEADING, '').trim();
  if (q.length < 3) return [];
  const exact = entries.filter((e) => foldText(e.name.trim()) === q);
  if (exact.length) return exact;
  return entries.filter((e) => {
    const name = foldText(e.name.trim());
    if (name.startsWith('transfer : ')) return false;
    // Words start after a space or punctuation run (not inside "joe's").
    return wordStarts(name, /[\s\-:/&(),.]+/g).some((at) => name.startsWith(q, at) && !(/\d$/.test(q) && /\d/.test(name[at + q.length] ?? '')));
  });
}

/**
 * The id an argument stands for: itself when it looks like an id, else the one entry with that
 * exact name. `label` names the argument in errors (`transactions[0].category_id`), `budget` the
 * budget the entries are of.
 */
export function resolveName(entries: readonly Named[], value: string, label: string, what: string, budget?: string, used?: (note: string) => void): string {
  // What can never be an id or a name (half a character, "." or "..") is refused as such first.
  checkPathParam(label, value);
  if (looksLikeId(value)) return value;
  const key = nameKey(value);
  const matches = entries.filter((e) => nameKey(e.name) === key);
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length > 1) {
    throw new ArgumentError(
      `${label} ${JSON.stringify(value)}: ${matches.length} ${plural(what)} have that name: ${matches.slice(0, 10).map(describe).join(', ')}. Give the id of the one you mean.`,
    );
  }
  if (used) {
    const spoken = spokenMatches(entries, value);
    if (spoken.length === 1) {
      used(`${label} ${JSON.stringify(value)} taken as ${JSON.stringify(spoken[0]!.name)}.`);
      return spoken[0]!.id;
    }
    if (spoken.length > 1)
      throw new ArgumentError(
        `${label} ${JSON.stringify(value)}: ${spoken.length} ${plural(what)} have a name it starts or a word in it starts: ${spoken.slice(0, 10).map(describe).join(', ')}. Give the id or exact name of the one you mean.`,
      );
  }
  const near = closest(entries, value);
  throw new ArgumentError(
    `${label} ${JSON.stringify(value)}: no ${what} has that id or name${near.length ? `. Closest: ${near.map(describe).join(', ')}` : ''}.${searched(budget)} Give an id or an exact name.`,
  );
}

/**
 * Refuses an id (in an argument that names an account, category, group or payee, nested lines'
 * too) that the budget's copy does not hold: tools that answer from the copy would otherwise
 * answer as if nothing matched, and a write of several steps would be refused part way.
 */
export function checkIdsKnown(args: unknown, replica: BudgetReplica, path = ''): void {
  if (Array.isArray(args)) return args.forEach((x, i) => checkIdsKnown(x, replica, `${path}[${i}]`));
  if (!args || typeof args !== 'object') return;
  for (const [k, v] of Object.entries(args)) {
    const here = path ? `${path}.${k}` : k;
    const map = mapValues(k, v);
    if (map) {
      for (const [key, x] of map.entries) if (typeof x === 'string') checkIdKnown(replica, map.kind, `${here}.${key}`, x);
      continue;
    }
    const kind = namedKindOf(k);
    if (!kind || typeof v !== 'string') {
      if (v && typeof v === 'object') checkIdsKnown(v, replica, here);
      continue;
    }
    checkIdKnown(replica, kind, here, v);
  }
}

function checkIdKnown(replica: BudgetReplica, kind: NamedKind, here: string, v: string): void {
  if (!looksLikeId(v)) return;
  if (!namedIn(replica, kind).some((e) => e.id === v)) {
    const gone = replica.wasDeleted(v) ? ` (it was deleted)` : '';
    throw new ArgumentError(
      `${here} ${JSON.stringify(v)}: no ${KIND_WORD[kind]} of this budget has that id${gone}.${searched(replica.summary.name)} Give an id from this budget, or a name.`,
    );
  }
}

/** What can be named in a budget, by kind. */
export function namedIn(replica: BudgetReplica, kind: NamedKind): Named[] {
  switch (kind) {
    case 'account':
      return [...replica.accounts.values()].map((a) => ({ id: a.id, name: a.name, detail: a.closed ? `${a.type}, closed` : a.type }));
    case 'category':
      return [...replica.categories.values()].map((c) => ({
        id: c.id,
        name: c.name,
        detail: `in ${replica.categoryGroups.get(c.category_group_id)?.name ?? c.category_group_name ?? 'a group'}${c.hidden ? ', hidden' : ''}`,
      }));
    case 'category_group':
      return [...replica.categoryGroups.values()].map((g) => ({ id: g.id, name: g.name, detail: g.hidden ? 'hidden' : undefined }));
    case 'payee':
      return [...replica.payees.values()].map((p) => ({ id: p.id, name: p.name }));
  }
}

export const KIND_WORD: Record<NamedKind, string> = { account: 'account', category: 'category', category_group: 'category group', payee: 'payee' };

/** Every (path, kind, value) of named arguments whose value is a name rather than an id, nested lines included. */
export function namesIn(args: unknown, path = ''): { path: string; kind: NamedKind; value: string }[] {
  const out: { path: string; kind: NamedKind; value: string }[] = [];
  if (Array.isArray(args)) args.forEach((x, i) => out.push(...namesIn(x, `${path}[${i}]`)));
  else if (args && typeof args === 'object') {
    for (const [k, v] of Object.entries(args)) {
      const kind = namedKindOf(k);
      const here = path ? `${path}.${k}` : k;
      const map = mapValues(k, v);
      if (map) {
        for (const [key, x] of map.entries) if (typeof x === 'string' && !looksLikeId(x)) out.push({ path: `${here}.${key}`, kind: map.kind, value: x });
      } else if (kind && typeof v === 'string' && !looksLikeId(v)) out.push({ path: here, kind, value: v });
      else if (v && typeof v === 'object') out.push(...namesIn(v, here));
    }
  }
  return out;
}

/** A copy of the arguments with every name replaced by its id in the replica; `used` hears each name taken as people say it. */
export function replaceNames(args: Record<string, unknown>, replica: BudgetReplica, used?: (note: string) => void): Record<string, unknown> {
  const cache = new Map<NamedKind, Named[]>();
  const budget = replica.summary.name;
  const entries = (kind: NamedKind) => {
    let list = cache.get(kind);
    if (!list) cache.set(kind, (list = namedIn(replica, kind)));
    return list;
  };
  const walk = (node: unknown, path: string): unknown => {
    if (Array.isArray(node)) return node.map((x, i) => walk(x, `${path}[${i}]`));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      const kind = namedKindOf(k);
      const here = path ? `${path}.${k}` : k;
      const map = mapValues(k, v);
      if (map)
        out[k] = Object.fromEntries(
          map.entries.map(([key, x]) => [
            key,
            typeof x === 'string' ? resolveName(entries(map.kind), x, `${here}.${key}`, KIND_WORD[map.kind], budget, used) : x,
          ]),
        );
      else out[k] = kind && typeof v === 'string' ? resolveName(entries(kind), v, here, KIND_WORD[kind], budget, used) : walk(v, here);
    }
    return out;
  };
  return walk(args, '') as Record<string, unknown>;
}
