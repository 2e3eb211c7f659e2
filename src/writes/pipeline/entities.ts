/**
 * The entities a write changes, as this server records them for previews, confirm tokens and the
 * undo journal: each kind's state is the fields a write can set (plus what identifies it), taken
 * the same way from the budget's local copy and from a write's answer, so that "what it was",
 * "what the change left" and "what it is now" compare field by field. Declared once per kind:
 * how to read it, which fields count when comparing, and how to show it to a person (names for
 * ids, amounts formatted in the budget's currency).
 */
import { formatMilliunits } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import type { BudgetReplica } from '../../sync/replica.js';

export type EntityKind = 'transaction' | 'scheduled_transaction' | 'month_category' | 'category' | 'category_group' | 'payee' | 'account';

/** An entity's recorded state: plain JSON (no budget text beyond what the entity holds). */
export type State = Record<string, unknown>;

export type Action = 'create' | 'update' | 'delete';

/** One entity of a change: its state before and after (null: it did not exist, or is deleted). */
export interface EntityChange {
  kind: EntityKind;
  /** The entity's id; for a month's category `<month>/<category id>`. */
  id: string;
  action: Action;
  before: State | null;
  after: State | null;
  /** Changed by the service along with another entity (a transfer's other side): shown and checked, never acted on. */
  linked?: boolean;
}

type Item = Record<string, any>;

const lineState = (x: Item): State => ({
  amount: x.amount,
  payee_id: x.payee_id ?? null,
  category_id: x.category_id ?? null,
  memo: x.memo ?? null,
  transfer_account_id: x.transfer_account_id ?? null,
});

/** Lines in a stable order, so that two reads of one split compare equal. */
function lines(items: readonly Item[] | undefined): State[] {
  return (items ?? [])
    .filter((x) => !x.deleted)
    .map(lineState)
    .sort((a, b) => JSON.stringify([a.amount, a.category_id, a.payee_id, a.memo]).localeCompare(JSON.stringify([b.amount, b.category_id, b.payee_id, b.memo])));
}

/** A transaction's state, from the copy (its lines apart) or from an answer (lines inside). */
export function transactionState(t: Item, split?: readonly Item[]): State {
  return {
    account_id: t.account_id,
    date: t.date,
    amount: t.amount,
    payee_id: t.payee_id ?? null,
    category_id: t.category_id ?? null,
    memo: t.memo ?? null,
    cleared: t.cleared,
    approved: t.approved,
    flag_color: t.flag_color || null,
    flag_name: t.flag_name ?? null,
    import_id: t.import_id ?? null,
    transfer_account_id: t.transfer_account_id ?? null,
    transfer_transaction_id: t.transfer_transaction_id ?? null,
    matched_transaction_id: t.matched_transaction_id ?? null,
    subtransactions: lines(split ?? t.subtransactions),
  };
}

export function scheduledState(s: Item, split?: readonly Item[]): State {
  return {
    account_id: s.account_id,
    date_first: s.date_first,
    date_next: s.date_next,
    frequency: s.frequency,
    amount: s.amount,
    payee_id: s.payee_id ?? null,
    category_id: s.category_id ?? null,
    memo: s.memo ?? null,
    flag_color: s.flag_color || null,
    transfer_account_id: s.transfer_account_id ?? null,
    subtransactions: lines(split ?? s.subtransactions),
  };
}

export const monthCategoryId = (month: string, categoryId: string): string => `${month}/${categoryId}`;

export function monthCategoryState(month: string, c: Item): State {
  return { month, category_id: c.id, budgeted: c.budgeted, activity: c.activity, balance: c.balance };
}

export function categoryState(c: Item): State {
  return {
    name: c.name,
    note: c.note ?? null,
    category_group_id: c.category_group_id,
    hidden: c.hidden ?? false,
    goal_target: c.goal_target ?? null,
    goal_target_date: c.goal_target_date ?? null,
  };
}

export const groupState = (g: Item): State => ({ name: g.name, hidden: g.hidden ?? false });
export const payeeState = (p: Item): State => ({ name: p.name, transfer_account_id: p.transfer_account_id ?? null });
export const accountState = (a: Item): State => ({ name: a.name, type: a.type, on_budget: a.on_budget, closed: a.closed, balance: a.balance });

/** The fields that count when two states of a kind are compared (the rest is shown, not compared). */
const COMPARED: Record<EntityKind, readonly string[]> = {
  transaction: ['account_id', 'date', 'amount', 'payee_id', 'category_id', 'memo', 'cleared', 'approved', 'flag_color', 'subtransactions'],
  scheduled_transaction: ['account_id', 'date_next', 'frequency', 'amount', 'payee_id', 'category_id', 'memo', 'flag_color', 'subtransactions'],
  month_category: ['budgeted'],
  category: ['name', 'note', 'category_group_id', 'hidden', 'goal_target', 'goal_target_date'],
  category_group: ['name', 'hidden'],
  payee: ['name'],
  account: ['name', 'closed'],
};

/** An entity's state in the budget's copy now; null when it does not exist (or was deleted). */
export function currentState(r: BudgetReplica, kind: EntityKind, id: string): State | null {
  switch (kind) {
    case 'transaction': {
      const t = r.transactions.get(id);
      return t && !t.deleted ? transactionState(t, r.linesOf(id)) : null;
    }
    case 'scheduled_transaction': {
      const s = r.scheduled.get(id);
      return s && !s.deleted ? scheduledState(s, r.scheduledLinesOf(id)) : null;
    }
    case 'month_category': {
      const [month, categoryId] = id.split('/') as [string, string];
      const c = r.monthCategory(month, categoryId);
      return c ? monthCategoryState(month, c) : null;
    }
    case 'category': {
      const c = r.categories.get(id);
      return c && !c.deleted ? categoryState(c) : null;
    }
    case 'category_group': {
      const g = r.categoryGroups.get(id);
      return g && !g.deleted ? groupState(g) : null;
    }
    case 'payee': {
      const p = r.payees.get(id);
      return p && !p.deleted ? payeeState(p) : null;
    }
    case 'account': {
      const a = r.accounts.get(id);
      return a && !a.deleted ? accountState(a) : null;
    }
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The compared fields where two states differ. */
export function changedFields(kind: EntityKind, a: State | null, b: State | null): string[] {
  if (!a || !b) return a === b ? [] : ['exists'];
  return COMPARED[kind].filter((f) => !same(a[f], b[f]));
}

/** Names and money for showing states to a person. */
export interface Shown {
  money(milliunits: number): string;
  account(id: unknown): string | null;
  payee(id: unknown): string | null;
  category(id: unknown): string | null;
  group(id: unknown): string | null;
}

export function shownBy(r: BudgetReplica): Shown {
  const format = r.summary.currency_format ?? null;
  const name = (m: Map<string, { name: string }>) => (id: unknown) => (typeof id === 'string' ? (m.get(id)?.name ?? null) : null);
  return {
    money: (m) => formatMilliunits(m, format),
    account: name(r.accounts),
    payee: name(r.payees),
    category: name(r.categories),
    group: name(r.categoryGroups),
  };
}

/** How a field's value reads: names for ids, formatted amounts, quoted text. */
export function fieldText(field: string, value: unknown, s: Shown): string {
  if (value === null || value === undefined || value === '') return 'none';
  switch (field) {
    case 'amount':
    case 'budgeted':
    case 'goal_target':
    case 'balance':
      return typeof value === 'number' ? s.money(value) : String(value);
    case 'account_id':
    case 'transfer_account_id':
      return JSON.stringify(s.account(value) ?? value);
    case 'payee_id':
      return JSON.stringify(s.payee(value) ?? value);
    case 'category_id':
      return JSON.stringify(s.category(value) ?? value);
    case 'category_group_id':
      return JSON.stringify(s.group(value) ?? value);
    case 'subtransactions':
      return (value as State[]).length
        ? (value as State[]).map((x) => `${s.money(x.amount as number)} ${JSON.stringify(s.category(x.category_id) ?? 'uncategorized')}`).join(', ')
        : 'no split lines';
    default:
      return typeof value === 'string' ? JSON.stringify(value) : String(value);
  }
}

const FIELD_WORDS: Record<string, string> = {
  account_id: 'account',
  payee_id: 'payee',
  category_id: 'category',
  category_group_id: 'group',
  subtransactions: 'split lines',
  flag_color: 'flag',
  budgeted: 'assigned',
  date_next: 'next date',
  goal_target: 'target',
  goal_target_date: 'target date',
};

export const fieldWord = (field: string): string => FIELD_WORDS[field] ?? field;

/** One line naming an entity for a person: "transaction 2025-05-03, -$52.10, "Costco", "Groceries", "Checking"". */
export function describeEntity(kind: EntityKind, id: string, state: State | null, s: Shown): string {
  if (!state) return `${kind.replace('_', ' ')} ${id}`;
  switch (kind) {
    case 'transaction': {
      const lines = (state.subtransactions as State[] | undefined)?.length;
      const category = lines
        ? `split in ${lines} lines`
        : state.transfer_account_id
          ? `transfer with ${fieldText('account_id', state.transfer_account_id, s)}`
          : fieldText('category_id', state.category_id, s);
      return `transaction ${id} (${state.date}, ${s.money(state.amount as number)}, payee ${fieldText('payee_id', state.payee_id, s)}, ${category}, account ${fieldText('account_id', state.account_id, s)}${state.memo ? `, memo ${JSON.stringify(state.memo)}` : ''})`;
    }
    case 'scheduled_transaction':
      return `scheduled transaction ${id} (${state.frequency} from ${state.date_next}, ${s.money(state.amount as number)}, payee ${fieldText('payee_id', state.payee_id, s)})`;
    case 'month_category':
      return `${JSON.stringify(s.category(state.category_id) ?? state.category_id)} in ${String(state.month).slice(0, 7)} (assigned ${s.money(state.budgeted as number)})`;
    case 'category':
      return `category ${JSON.stringify(state.name)} (${id})`;
    case 'category_group':
      return `category group ${JSON.stringify(state.name)} (${id})`;
    case 'payee':
      return `payee ${JSON.stringify(state.name)} (${id})`;
    case 'account':
      return `account ${JSON.stringify(state.name)} (${id})`;
  }
}

/** "memo is now "x" (it was "y")" for each compared field that differs. */
export function differenceText(kind: EntityKind, was: State | null, now: State | null, s: Shown, wasWord = 'it was'): string {
  if (!now) return 'it no longer exists';
  if (!was) return 'it exists now';
  return changedFields(kind, was, now)
    .map((f) => `${fieldWord(f)} is now ${fieldText(f, now[f], s)} (${wasWord} ${fieldText(f, was[f], s)})`)
    .join('; ');
}

/** A state as a person reads it in a preview: names for ids, amounts formatted; nothing empty. */
export function readable(kind: EntityKind, state: State | null, s: Shown): Record<string, unknown> | null {
  if (!state) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(state)) {
    if (v === null || v === undefined || (Array.isArray(v) && !v.length)) continue;
    if (k === 'transfer_transaction_id' || k === 'matched_transaction_id') continue;
    if (k === 'subtransactions') {
      out.subtransactions = (v as State[]).map((x) => readable('transaction', { ...x, subtransactions: [] }, s));
      continue;
    }
    if (typeof v === 'number' && /amount|budgeted|balance|activity|goal_target$/.test(k)) {
      out[k] = v;
      out[`${k}_formatted`] = s.money(v);
      continue;
    }
    // Names for people; the id only where no name is known.
    const name =
      k === 'account_id' || k === 'transfer_account_id'
        ? s.account(v)
        : k === 'payee_id'
          ? s.payee(v)
          : k === 'category_id'
            ? s.category(v)
            : k === 'category_group_id'
              ? s.group(v)
              : null;
    if (name) out[k.replace(/_id$/, '_name')] = name;
    else out[k] = v;
  }
  if (kind === 'transaction' && state.transfer_account_id) out.transfer = true;
  return out;
}

/** A transaction detail from an answer, as its state (for journaling what a write left). */
export const answeredTransaction = (t: E.TransactionDetail): State => transactionState(t);
