/**
 * Telling what a create made from what else is in a budget, declared once per kind of entity:
 * what the intent is serialised by (its fingerprint), what counts as "the same" entity in a delta,
 * and how a candidate is named to the user. The recovery rule (`decide`) is the same for all.
 */
import { formatMilliunits } from '../api/money.js';
import type { IdentityCreateId, OperationId } from '../api/operations/index.js';
import type * as E from '../api/schemas/entities.js';
import type { BudgetReplica } from './replica.js';
import { fingerprint } from './create-records.js';

/** One thing a create sent (a body's member, as the request's schema checked it). */
export type Item = Record<string, unknown>;
/** An entity of a delta or a replica, as far as telling what a create made looks at it. */
export type Entity = { id: string; deleted?: boolean } & Record<string, unknown>;

/** An id field's value: a non-empty string, or nothing. */
const idIn = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Names compare as the service compares them: trimmed, case-insensitive. */
const sameName = (a: unknown, b: unknown) =>
  String(a ?? '')
    .trim()
    .toLowerCase() ===
  String(b ?? '')
    .trim()
    .toLowerCase();

export interface CreateKind {
  /** The collection of a delta (or replica export) where created entities appear. */
  entities(d: E.BudgetDetail): Entity[];
  /** The same collection in a replica (entities that existed before the intent opened). */
  held(r: BudgetReplica): Iterable<Entity>;
  /** Serialises intents that could be confused with each other (coarse on purpose). */
  fingerprint(sent: Item): string;
  /** Whether `e` is what `sent` would have made. */
  same(sent: Item, e: Entity, r: BudgetReplica | undefined): boolean;
  /** Groups identical items of one call (a batch may hold two identical purchases). */
  contentKey(sent: Item, r: BudgetReplica | undefined): string;
  /** How a candidate is named in a result: id, date, amount, payee. */
  describe(e: Entity, r: BudgetReplica | undefined): string;
  /** A cheap first test of which held entities can match any of `items` (a budget may hold 200,000 transactions). */
  near?(items: Item[]): (e: Entity) => boolean;
  /**
   * Whether two identical ones are something people mean to make (two coffees, two identical
   * bills). Then an identical one that appeared while the answer was lost may be someone else's
   * even when it is the only one, and without proof that the request arrived it is not claimed.
   * Nobody means two payees, categories or accounts of one name, nor two transactions with one
   * import_id (the service keeps one): the one that appeared is what was wanted, whoever made it.
   */
  twinsMeant(sent: Item): boolean;
}

/**
 * A transaction is what a create sent when it has the same account, date, amount, payee and memo,
 * and no import_id of its own (one made by a bank import is not ours). With an import_id the
 * service itself keeps one transaction per account and import_id: that pair is the identity.
 */
export function sameTransaction(item: Item, t: Entity, r: BudgetReplica | undefined): boolean {
  if (t.deleted || t.account_id !== item.account_id) return false;
  if (item.import_id) return t.import_id === item.import_id;
  if (t.date !== item.date || t.amount !== item.amount || (t.import_id ?? null) !== null) return false;
  if ((item.memo ?? null) !== (t.memo ?? null)) return false;
  if (item.payee_id) return t.payee_id === item.payee_id;
  const payee = idIn(t.payee_id);
  if (item.payee_name) return sameName(payee ? r?.payees.get(payee)?.name : null, item.payee_name);
  return !t.payee_id;
}

/** The payee an item names, by id when the name is one the budget knows (a name and an id can name one payee). */
function payeeKey(item: Item, r: BudgetReplica | undefined): string | null {
  const id = idIn(item.payee_id);
  if (id) return id;
  if (!item.payee_name) return null;
  for (const p of r?.payees.values() ?? []) if (!p.deleted && sameName(p.name, item.payee_name)) return p.id;
  return `name:${String(item.payee_name).trim().toLowerCase()}`;
}

function payeeOf(e: Entity, r: BudgetReplica | undefined): string {
  const id = idIn(e.payee_id);
  const name = id ? (r?.payees.get(id)?.name ?? e.payee_name) : e.payee_name;
  return name ? JSON.stringify(name) : 'no payee';
}

function amountOf(e: Entity, r: BudgetReplica | undefined): string {
  return typeof e.amount === 'number' ? formatMilliunits(e.amount, r?.summary.currency_format ?? null) : '';
}

const transactions: CreateKind = {
  entities: (d) => d.transactions ?? [],
  held: (r) => r.transactions.values(),
  fingerprint: (t) => fingerprint('transaction', t.account_id, t.date, t.amount),
  same: sameTransaction,
  contentKey: (t, r) => JSON.stringify([t.account_id, t.date, t.amount, t.import_id ?? null, payeeKey(t, r), t.memo ?? null]),
  describe: (t, r) => `${t.id} (${t.date}, ${amountOf(t, r)}, ${payeeOf(t, r)}${t.memo ? `, memo ${JSON.stringify(t.memo)}` : ''})`,
  twinsMeant: (t) => !t.import_id,
  near: (items) => {
    // With an import_id only the account must agree; otherwise the amount too.
    const imported = new Set(items.filter((i) => i.import_id).map((i) => i.account_id));
    const keys = new Set(items.filter((i) => !i.import_id).map((i) => `${i.account_id}|${i.amount}`));
    return (e) => imported.has(e.account_id) || keys.has(`${e.account_id}|${e.amount}`);
  },
};

const byName = (
  collection: (d: E.BudgetDetail) => Entity[] | undefined,
  held: (r: BudgetReplica) => Iterable<Entity>,
  kind: string,
  extra?: (s: Item, e: Entity) => boolean,
): CreateKind => ({
  entities: (d) => collection(d) ?? [],
  held,
  fingerprint: (s) =>
    fingerprint(
      kind,
      String(s.name ?? '')
        .trim()
        .toLowerCase(),
    ),
  same: (s, e) => !e.deleted && sameName(e.name, s.name) && (extra?.(s, e) ?? true),
  contentKey: (s) =>
    JSON.stringify([
      String(s.name ?? '')
        .trim()
        .toLowerCase(),
      s.category_group_id ?? null,
      s.type ?? null,
    ]),
  describe: (e) => `${e.id} (${JSON.stringify(e.name)})`,
  twinsMeant: () => false,
});

/**
 * The kinds of create whose recovery goes by identity, by operation: one for every row whose
 * `write.exactlyOnce` says so (a missing one is a compile error).
 */
const CREATE_KINDS: Record<IdentityCreateId, CreateKind> = {
  createTransaction: transactions,
  createPayee: byName(
    (d) => d.payees,
    (r) => r.payees.values(),
    'payee',
  ),
  createCategoryGroup: byName(
    (d) => d.category_groups,
    (r) => r.categoryGroups.values(),
    'category_group',
  ),
  createCategory: byName(
    (d) => d.categories,
    (r) => r.categories.values(),
    'category',
    (s, e) => e.category_group_id === s.category_group_id,
  ),
  createAccount: byName(
    (d) => d.accounts,
    (r) => r.accounts.values(),
    'account',
    (s, e) => e.type === s.type,
  ),
  createScheduledTransaction: {
    entities: (d) => d.scheduled_transactions ?? [],
    held: (r) => r.scheduled.values(),
    fingerprint: (s) => fingerprint('scheduled', s.account_id, s.date, s.amount ?? 0),
    same: (s, e) =>
      !e.deleted && e.account_id === s.account_id && e.date_first === s.date && e.amount === (s.amount ?? 0) && (e.memo ?? null) === (s.memo ?? null),
    contentKey: (s) => JSON.stringify([s.account_id, s.date, s.amount ?? 0, s.memo ?? null]),
    describe: (e, r) => `${e.id} (from ${e.date_first}, ${amountOf(e, r)}, ${payeeOf(e, r)})`,
    twinsMeant: () => true,
  },
};

function isIdentityCreate(id: OperationId): id is IdentityCreateId {
  return Object.hasOwn(CREATE_KINDS, id);
}

/** The kind of a create recognised by identity (its row's `write.exactlyOnce`). */
export function createKindOf(id: OperationId): CreateKind {
  if (!isIdentityCreate(id)) throw new Error(`${id} is not a create recognised by identity`);
  return CREATE_KINDS[id];
}

/** Ids of entities a replica holds that match one of `items`: they existed before the intent, so none is its work. */
export function preexisting(kind: CreateKind, items: Item[], r: BudgetReplica | undefined): Set<string> {
  const out = new Set<string>();
  if (!r) return out;
  const near = kind.near?.(items) ?? (() => true);
  for (const e of kind.held(r)) if (near(e) && items.some((item) => kind.same(item, e, r))) out.add(e.id);
  return out;
}

export interface Decision {
  /** Items found made, with the entity that is theirs. */
  found: Map<number, Entity>;
  /** Items not found: they did not reach the service and may be sent again. */
  resend: number[];
  /**
   * Items whose outcome cannot be known, with the candidates that could be theirs. `likely`: as
   * many candidates as items, so most likely theirs, but nothing proves the request arrived and
   * an identical one made elsewhere meanwhile would look the same.
   */
  unknown: { items: number[]; candidates: Entity[]; likely: boolean }[];
}

/**
 * After a lost answer: for each group of identical items still pending, the candidates are the
 * matching entities of the delta since the baseline that no call of ours created or reported.
 * `arrived`: the service's status line (a 2xx) came before the connection was lost, so the
 * request was applied.
 *   none            → not arrived: send the group again (arrived: the outcome cannot be known);
 *   exactly enough  → arrived, or a kind nobody makes twins of: they are this call's, claimed;
 *                     otherwise they may be identical ones made elsewhere while this call's never
 *                     arrived: named as most likely this call's, not claimed;
 *   any other count → some come from elsewhere and which cannot be told: say so, name them.
 */
export function decide(
  kind: CreateKind,
  items: Item[],
  pending: number[],
  delta: Entity[],
  excluded: Set<string>,
  r: BudgetReplica | undefined,
  arrived = false,
): Decision {
  const groups = new Map<string, number[]>();
  for (const i of pending) {
    const key = kind.contentKey(items[i]!, r);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  const taken = new Set(excluded);
  const decision: Decision = { found: new Map(), resend: [], unknown: [] };
  for (const members of groups.values()) {
    const sample = items[members[0]!]!;
    const candidates = delta.filter((e) => !taken.has(e.id) && !e.deleted && kind.same(sample, e, r));
    for (const c of candidates) taken.add(c.id);
    const enough = candidates.length === members.length;
    if (candidates.length === 0 && !arrived) decision.resend.push(...members);
    else if (enough && (arrived || !kind.twinsMeant(sample))) members.forEach((i, n) => decision.found.set(i, candidates[n]!));
    else decision.unknown.push({ items: members, candidates, likely: enough });
  }
  decision.resend.sort((a, b) => a - b);
  return decision;
}
