/**
 * The sandbox's side of building answers: records plus computed figures become base entities
 * (what the budget export holds), and the shared builders in src/api/read turn them into full
 * entities, exactly as the replica does from its copy.
 *
 * A transaction's detail is built once per change of the transaction or of the names it shows,
 * and marked reusable so its JSON text is made once too (json.ts): big lists are then mostly
 * ready text. (The full export keeps its own cache, by month: export-segments.ts.)
 */
import * as R from '../../api/read/entities.js';
import type { BudgetLookup } from '../../api/read/lookup.js';
import {
  hybridFromLine,
  hybridFromTransaction,
  subtransactionBase,
  transactionDetail as detail,
  transactionSummaryBase,
  type TransactionSource,
} from '../../api/read/transactions.js';
import type * as E from '../../api/schemas/entities.js';
import { reusable } from '../json.js';
import type { BudgetStore } from './budget-store.js';
import type { MonthFigures } from './derived.js';
import type { AccountRec, CategoryRec, ScheduledTransactionRec, TransactionRec } from './records.js';

const lookups = new WeakMap<BudgetStore, BudgetLookup>();

/** Names and formats of the budget, read live from its records. */
export function lookup(s: BudgetStore): BudgetLookup {
  let l = lookups.get(s);
  if (!l) {
    const r = s.rec;
    l = {
      get currencyFormat() {
        return r.currency_format;
      },
      account: (id) => r.accounts.get(id),
      payeeName: (id) => (id ? (r.payees.get(id)?.name ?? null) : null),
      categoryName: (id) => (id ? (r.categories.get(id)?.name ?? null) : null),
      get uncategorizedId() {
        return s.categoryByRole('uncategorized')?.id ?? null;
      },
      get uncategorizedName() {
        return s.categoryByRole('uncategorized')?.name ?? 'Uncategorized';
      },
      groupName: (id) => r.category_groups.get(id)?.name,
    };
    lookups.set(s, l);
  }
  return l;
}

export function accountBase(s: BudgetStore, a: AccountRec): E.AccountBase {
  const bal = s.derived().balances.get(a.id) ?? { balance: 0, cleared: 0, uncleared: 0 };
  return R.accountBase({ ...a, balance: bal.balance, cleared_balance: bal.cleared, uncleared_balance: bal.uncleared });
}

export function account(s: BudgetStore, a: AccountRec): E.Account {
  return R.account(lookup(s), accountBase(s, a));
}

/** A category with its figures in `month` (the current month unless given). */
export function categoryBase(s: BudgetStore, c: CategoryRec, month?: string): E.CategoryBase {
  const d = s.derived();
  const m = month ?? d.currentMonth;
  const f = d.monthIndex.get(m)?.categories.get(c.id) ?? { budgeted: 0, activity: 0, balance: 0, carry: 0 };
  const g = c.goal;
  const progress = d.goal(c, m);
  return R.categoryBase({
    id: c.id,
    category_group_id: c.category_group_id,
    category_group_name: s.rec.category_groups.get(c.category_group_id)?.name ?? '',
    name: c.name,
    hidden: c.hidden,
    internal: c.internal,
    note: c.note,
    budgeted: f.budgeted,
    activity: f.activity,
    balance: f.balance,
    goal_type: g?.type ?? null,
    goal_needs_whole_amount: g?.type === 'NEED' ? (g.needs_whole_amount ?? true) : null,
    goal_day: g?.day ?? null,
    goal_cadence: g?.cadence ?? null,
    goal_cadence_frequency: g?.cadence_frequency ?? null,
    goal_creation_month: g?.creation_month || null,
    goal_target: g?.target ?? null,
    goal_target_date: g?.target_date ?? null,
    goal_percentage_complete: progress?.percentage_complete ?? null,
    goal_months_to_budget: progress?.months_to_budget ?? null,
    goal_under_funded: progress?.under_funded ?? null,
    goal_overall_funded: progress?.overall_funded ?? null,
    goal_overall_left: progress?.overall_left ?? null,
    goal_snoozed_at: g?.snoozed_at ?? null,
    deleted: c.deleted,
  });
}

export function category(s: BudgetStore, c: CategoryRec, month?: string): E.Category {
  return R.category(lookup(s), categoryBase(s, c, month));
}

/** Categories shown inside a month: every live one, internal ones included. */
function monthCategories(s: BudgetStore): CategoryRec[] {
  return [...s.rec.categories.values()].filter((c) => !c.deleted);
}

export function monthDetailBase(s: BudgetStore, m: MonthFigures): E.MonthDetailBase {
  return { ...R.monthSummaryBase({ ...m, deleted: false }), categories: monthCategories(s).map((c) => categoryBase(s, c, m.month)) };
}

export function monthSummary(s: BudgetStore, m: MonthFigures): E.MonthSummary {
  return R.monthSummary(lookup(s), { ...m, deleted: false });
}

export function monthDetail(s: BudgetStore, m: MonthFigures): E.MonthDetail {
  return R.monthDetail(lookup(s), monthDetailBase(s, m));
}

/** Lines a transaction shows: a tombstone still lists the lines it had. */
export function linesOf(t: TransactionRec) {
  return t.deleted ? t.subtransactions : t.subtransactions.filter((x) => !x.deleted);
}

export function transactionSummary(t: TransactionRec): E.TransactionSummaryBase {
  return transactionSummaryBase(t);
}

export function subtransactions(s: BudgetStore, t: TransactionRec): E.SubTransactionBase[] {
  return linesOf(t).map((x) => subtransactionBase(lookup(s), x, t));
}

interface CachedDetail {
  knowledge: number;
  names: number;
  detail: E.TransactionDetail;
}

const details = new WeakMap<BudgetStore, Map<TransactionRec, CachedDetail>>();

/** A transaction with its split lines; kept until it or a name it shows changes. */
export function transactionDetail(s: BudgetStore, t: TransactionRec): E.TransactionDetail {
  let cache = details.get(s);
  if (!cache) details.set(s, (cache = new Map()));
  const hit = cache.get(t);
  if (hit && hit.knowledge === t.knowledge && hit.names === s.namesVersion) return hit.detail;
  const made = reusable(detail(lookup(s), t, linesOf(t)));
  cache.set(t, { knowledge: t.knowledge, names: s.namesVersion, detail: made });
  return made;
}

interface CachedRows {
  knowledge: number;
  names: number;
  /** 'w0' / 'w1': the whole transaction (not split / split); 'l' + id: one of its lines. */
  rows: Map<string, E.HybridTransaction>;
}

const hybrids = new WeakMap<BudgetStore, Map<TransactionRec, CachedRows>>();

/**
 * A hybrid row of the by-category and by-payee lists, kept and marked reusable as details are:
 * those lists otherwise built and encoded every row afresh on each request, several times the
 * cost per byte of the other lists.
 */
function cachedHybrid(s: BudgetStore, t: TransactionRec, key: string, make: () => E.HybridTransaction): E.HybridTransaction {
  let cache = hybrids.get(s);
  if (!cache) hybrids.set(s, (cache = new Map()));
  let hit = cache.get(t);
  if (!hit || hit.knowledge !== t.knowledge || hit.names !== s.namesVersion)
    cache.set(t, (hit = { knowledge: t.knowledge, names: s.namesVersion, rows: new Map() }));
  let row = hit.rows.get(key);
  if (!row) hit.rows.set(key, (row = reusable(make())));
  return row;
}

/**
 * The budget's transactions as a source for the shared list builders, with the caller's filter:
 * all of them, or the candidates the index found for the list.
 */
export function transactionSource(
  s: BudgetStore,
  include: (t: TransactionRec) => boolean,
  candidates?: Iterable<TransactionRec>,
): TransactionSource<TransactionRec> {
  return {
    transactions: candidates ?? s.rec.transactions.values(),
    linesOf,
    include,
    detail: (t) => transactionDetail(s, t),
    hybridWhole: (t, split) => cachedHybrid(s, t, split ? 'w1' : 'w0', () => hybridFromTransaction(lookup(s), t, split)),
    hybridLine: (x, t) => cachedHybrid(s, t, `l${x.id}`, () => hybridFromLine(lookup(s), x, t)),
  };
}

export function scheduledBase(s: BudgetStore, t: ScheduledTransactionRec): E.ScheduledTransactionSummaryBase {
  return R.scheduledBase({ ...t, date_next: s.derived().dateNext.get(t.id) ?? t.date_first });
}

export function scheduledSubs(s: BudgetStore, t: ScheduledTransactionRec): E.ScheduledSubTransactionBase[] {
  const lines = t.deleted ? t.subtransactions : t.subtransactions.filter((x) => !x.deleted);
  return lines.map((x) => R.scheduledSubBase(lookup(s), { ...x, scheduled_transaction_id: t.id, deleted: x.deleted || t.deleted }));
}

export function scheduledDetail(s: BudgetStore, t: ScheduledTransactionRec): E.ScheduledTransactionDetail {
  return R.scheduledDetail(lookup(s), scheduledBase(s, t), scheduledSubs(s, t));
}
