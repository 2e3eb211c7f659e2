/**
 * A normalized copy of one budget, loaded from the full export (`GET /budgets/{id}`) and kept
 * current by delta exports (`?last_knowledge_of_server=K`): changed entities are merged by id,
 * tombstones (`deleted: true`) remove. Entities returned by writes are merged at once, but the
 * replica's knowledge only moves with a delta, so the next delta reconciles whatever a write
 * changed that its answer did not show (balances, months, a transfer's other side).
 */
import type { BudgetLookup } from '../api/read/lookup.js';
import type * as E from '../api/schemas/entities.js';
import { exportChange, LineChanges, writeChange } from './line-changes.js';
import { ReplicaMonths } from './replica-months.js';
import { LINE_SHARED, StringPool, TRANSACTION_SHARED } from './string-pool.js';

type Keyed = { id: string; deleted: boolean };

export interface ReplicaSummary {
  id: string;
  name: string;
  last_modified_on: string | null;
  first_month: string | null;
  last_month: string | null;
  date_format: E.BudgetSettings['date_format'];
  currency_format: E.BudgetSettings['currency_format'];
}

export interface ReplicaSnapshot {
  summary: ReplicaSummary;
  knowledge: number;
  syncedAt: number;
  accounts: E.AccountBase[];
  payees: E.Payee[];
  payee_locations: E.PayeeLocation[];
  category_groups: E.CategoryGroup[];
  categories: E.CategoryBase[];
  months: E.MonthDetailBase[];
  transactions: E.TransactionSummaryBase[];
  subtransactions: E.SubTransactionBase[];
  scheduled_transactions: E.ScheduledTransactionSummaryBase[];
  scheduled_subtransactions: E.ScheduledSubTransactionBase[];
}

/** Ids of entities seen deleted (tombstones of deltas and write answers), newest last, at most this many. */
const GONE_LIMIT = 10_000;

function merge<T extends Keyed>(into: Map<string, T>, items: readonly T[] | undefined, gone?: Set<string>): void {
  for (const item of items ?? []) {
    if (item.deleted) {
      into.delete(item.id);
      if (gone) {
        gone.delete(item.id);
        gone.add(item.id);
        if (gone.size > GONE_LIMIT) gone.delete(gone.values().next().value!);
      }
    } else into.set(item.id, item);
  }
}

/** Groups child lines under their parent id, merging by line id and dropping deleted lines. */
function mergeLines<T extends Keyed>(into: Map<string, Map<string, T>>, items: readonly T[] | undefined, parentOf: (x: T) => string): void {
  for (const x of items ?? []) {
    const parent = parentOf(x);
    let lines = into.get(parent);
    if (x.deleted) {
      lines?.delete(x.id);
      if (lines && !lines.size) into.delete(parent);
      continue;
    }
    if (!lines) into.set(parent, (lines = new Map()));
    lines.set(x.id, x);
  }
}

/** Approximate bytes per entity kind, for the cache's size bound. */
const SIZE = { transaction: 700, line: 400, month: 300, category: 900, other: 400 };

export class BudgetReplica {
  summary: ReplicaSummary;
  knowledge = 0;
  /** When the replica last matched the service (epoch ms). */
  syncedAt = 0;
  /** A write changed the budget after the last sync: the next read refreshes first. */
  dirty = false;
  /**
   * Rises with every merge. Answers built from the replica may be reused while it stays the same
   * (an entity's answer depends on names elsewhere, such as its payee's, which a merge can change).
   */
  version = 0;
  /**
   * Rises with every merge that may change a transaction's lines or what they are (transactions,
   * their lines, accounts, payees): what is computed over every transaction may be reused while it
   * stays (the alerts' scan after a sync that only moved money between categories, events/detect.ts).
   */
  linesVersion = 0;
  /** What the last merges changed in transactions, by lines version (line-changes.ts). */
  readonly lineChanges = new LineChanges();
  /**
   * Read from a saved copy rather than built by a full export: what it holds was not checked
   * entity by entity when it is of this build's shape (snapshot-check.ts), and a delta keeps it.
   */
  restored = false;
  private readonly built = new WeakMap<object, { version: number; value: unknown }>();
  readonly accounts = new Map<string, E.AccountBase>();
  readonly payees = new Map<string, E.Payee>();
  readonly payeeLocations = new Map<string, E.PayeeLocation>();
  readonly categoryGroups = new Map<string, E.CategoryGroup>();
  readonly categories = new Map<string, E.CategoryBase>();
  /** The months, which a saved copy may leave to be read when first asked for (replica-months.ts). */
  private readonly monthsHeld = new ReplicaMonths();
  readonly transactions = new Map<string, E.TransactionSummaryBase>();
  readonly lines = new Map<string, Map<string, E.SubTransactionBase>>();
  readonly scheduled = new Map<string, E.ScheduledTransactionSummaryBase>();
  readonly scheduledLines = new Map<string, Map<string, E.ScheduledSubTransactionBase>>();
  /**
   * Entities first seen in a write's answer. They are placed again when the next export names
   * them, so that collections keep the service's order (a write's answer does not show what
   * else it created, such as the other side of a transfer).
   */
  private readonly provisional: { map: Map<string, unknown>; id: string }[] = [];
  /**
   * Ids this copy saw deleted since it was loaded (deltas' tombstones, a delete's answer), so that
   * a write naming one can be told "already deleted" rather than "not found". Not persisted: a
   * copy loaded again knows only what it sees deleted after.
   */
  private readonly gone = new Set<string>();
  /** One copy of each repeated string value (string-pool.ts). */
  private readonly strings = new StringPool();

  constructor(summary: ReplicaSummary) {
    this.summary = summary;
  }

  static fromExport(budget: E.BudgetDetail, knowledge: number, at: number): BudgetReplica {
    const r = new BudgetReplica(summaryOf(budget));
    r.applyExport(budget, knowledge, at);
    return r;
  }

  /**
   * Merges a full or delta export and moves the knowledge to the service's. With `gap`, the
   * export starts later than this replica's knowledge (a create's baseline from the create records is ahead of
   * it): what it holds is merged, but the knowledge stays and the next read syncs first, since
   * whatever changed in between is not in it (entities first seen in write answers are kept too).
   */
  applyExport(budget: E.BudgetDetail, knowledge: number, at: number, opts: { gap?: boolean; shared?: boolean } = {}): void {
    // Entities first seen in a write's answer leave (the export places those it names again): noted while still held.
    const provisional = opts.gap ? [] : this.provisional.splice(0);
    const change = exportChange(budget, provisional, this);
    if (change) this.lineChanges.note(this.linesVersion + 1, change.whole, change.merge, this);
    for (const { map, id } of provisional) map.delete(id);
    this.summary = {
      ...summaryOf(budget),
      date_format: budget.date_format ?? this.summary.date_format,
      currency_format: budget.currency_format ?? this.summary.currency_format,
    };
    merge(this.accounts, budget.accounts, this.gone);
    merge(this.payees, budget.payees, this.gone);
    merge(this.payeeLocations, budget.payee_locations);
    merge(this.categoryGroups, budget.category_groups, this.gone);
    merge(this.categories, budget.categories, this.gone);
    this.monthsHeld.merge(budget.months);
    this.applyTransactions(budget.transactions, budget.subtransactions, opts.shared);
    merge(this.scheduled, budget.scheduled_transactions, this.gone);
    for (const s of budget.scheduled_transactions ?? []) if (s.deleted) this.scheduledLines.delete(s.id);
    mergeLines(this.scheduledLines, budget.scheduled_subtransactions, (x) => x.scheduled_transaction_id);
    this.version += 1;
    if (change) this.linesVersion += 1;
    if (opts.gap) {
      this.dirty = true;
      return;
    }
    this.knowledge = knowledge;
    this.syncedAt = at;
    this.dirty = false;
  }

  /** The budget's months by month (a saved copy's are read now if they were not yet). */
  get months(): Map<string, E.MonthDetailBase> {
    return this.monthsHeld.map;
  }

  /** Whether a saved copy's months are still unread (they are read at the first ask of `months`). */
  get monthsUnread(): boolean {
    return this.monthsHeld.pending;
  }

  /** Whether this copy saw the entity with this id deleted (see gone). */
  wasDeleted(id: string): boolean {
    return this.gone.has(id);
  }

  /** The answer built for an entity, reused until the next merge. */
  memo<T>(entity: object, build: () => T): T {
    const hit = this.built.get(entity);
    if (hit && hit.version === this.version) return hit.value as T;
    const value = build();
    this.built.set(entity, { version: this.version, value });
    return value;
  }

  /** `shared`: the rows' equal strings are one string each already (a copy read from its columnar form). */
  private applyTransactions(transactions: readonly E.TransactionSummaryBase[] | undefined, lines: readonly E.SubTransactionBase[] | undefined, shared = false) {
    if (!shared) {
      this.strings.share(transactions ?? [], TRANSACTION_SHARED);
      this.strings.share(lines ?? [], LINE_SHARED);
    }
    merge(this.transactions, transactions, this.gone);
    for (const t of transactions ?? []) if (t.deleted) this.lines.delete(t.id);
    mergeLines(this.lines, lines, (x) => x.transaction_id);
  }

  /** Merges the entities a write answered with (details carry their split lines). */
  applyWrite(data: Record<string, any>): void {
    const details: E.TransactionDetail[] = [...(data.transaction ? [data.transaction] : []), ...(Array.isArray(data.transactions) ? data.transactions : [])];
    // Noted before it is merged: the alerts' scan after the read back brings the queue and the price rises up to date from it.
    this.lineChanges.note(this.linesVersion + 1, false, writeChange(details, data, this.payees), this);
    const note = <T extends Keyed>(map: Map<string, T>, item: T) => {
      if (!map.has(item.id) && !item.deleted) this.provisional.push({ map: map as Map<string, unknown>, id: item.id });
    };
    // A write may have created payees by name; the answer names them, which is all we need until the next sync.
    const learnPayee = (id: string | null | undefined, name: string | null | undefined) => {
      if (id && name && !this.payees.has(id)) {
        const payee: E.Payee = { id, name, transfer_account_id: null, deleted: false };
        note(this.payees, payee);
        this.payees.set(id, payee);
      }
    };
    for (const t of details) {
      learnPayee(t.payee_id, t.payee_name);
      for (const x of t.subtransactions ?? []) learnPayee(x.payee_id, x.payee_name);
      note(this.transactions, t);
      // A detail lists the lines the transaction has now: replace, don't merge.
      this.lines.delete(t.id);
      this.applyTransactions([t], t.subtransactions);
    }
    for (const [member, map] of [
      ['account', this.accounts],
      ['payee', this.payees],
      ['category_group', this.categoryGroups],
    ] as const) {
      if (data[member]) {
        note(map as Map<string, Keyed>, data[member]);
        merge(map as Map<string, Keyed>, [data[member]], this.gone);
      }
    }
    // A category this budget did not have: a create's answer (names resolve to it before the next
    // sync). An answer about a known category (a month's assignment) would bring that month's
    // figures, so it waits for the sync.
    if (data.category && !this.categories.has(data.category.id)) {
      note(this.categories as Map<string, Keyed>, data.category);
      merge(this.categories as Map<string, Keyed>, [data.category]);
    }
    if (data.scheduled_transaction) {
      const s = data.scheduled_transaction as E.ScheduledTransactionDetail;
      note(this.scheduled, s);
      merge(this.scheduled, [s], this.gone);
      this.scheduledLines.delete(s.id);
      if (!s.deleted) mergeLines(this.scheduledLines, s.subtransactions, (x) => x.scheduled_transaction_id);
    }
    this.dirty = true;
    this.version += 1;
    this.linesVersion += 1;
  }

  /** A category as of a month (from that month's categories), or the current one. */
  monthCategory(month: string, id: string): E.CategoryBase | undefined {
    return this.months.get(month)?.categories.find((c) => c.id === id);
  }

  linesOf(transactionId: string): E.SubTransactionBase[] {
    return [...(this.lines.get(transactionId)?.values() ?? [])];
  }

  scheduledLinesOf(id: string): E.ScheduledSubTransactionBase[] {
    return [...(this.scheduledLines.get(id)?.values() ?? [])];
  }

  lookup(): BudgetLookup {
    const uncategorized = [...this.categories.values()].find((c) => c.internal && c.name === 'Uncategorized');
    return {
      currencyFormat: this.summary.currency_format ?? null,
      account: (id) => this.accounts.get(id),
      payeeName: (id) => (id ? (this.payees.get(id)?.name ?? null) : null),
      categoryName: (id) => (id ? (this.categories.get(id)?.name ?? null) : null),
      uncategorizedId: uncategorized?.id ?? null,
      uncategorizedName: uncategorized?.name ?? 'Uncategorized',
      groupName: (id) => this.categoryGroups.get(id)?.name,
    };
  }

  /** Approximate memory use in bytes, for the LRU bound. */
  approximateSize(): number {
    let lines = 0;
    for (const l of this.lines.values()) lines += l.size;
    return (
      this.transactions.size * SIZE.transaction +
      lines * SIZE.line +
      this.monthsHeld.count(this.summary.first_month, this.summary.last_month) * (SIZE.month + this.categories.size * SIZE.category) +
      (this.accounts.size + this.payees.size + this.payeeLocations.size + this.scheduled.size + this.categoryGroups.size) * SIZE.other +
      this.categories.size * SIZE.category
    );
  }

  /** The copy to save; its months last, so that reading it back can leave them for later (persist.ts). */
  snapshot(): ReplicaSnapshot {
    const flat = <T>(m: Map<string, Map<string, T>>) => [...m.values()].flatMap((x) => [...x.values()]);
    return {
      summary: this.summary,
      knowledge: this.knowledge,
      syncedAt: this.syncedAt,
      accounts: [...this.accounts.values()],
      payees: [...this.payees.values()],
      payee_locations: [...this.payeeLocations.values()],
      category_groups: [...this.categoryGroups.values()],
      categories: [...this.categories.values()],
      transactions: [...this.transactions.values()],
      subtransactions: flat(this.lines),
      scheduled_transactions: [...this.scheduled.values()],
      scheduled_subtransactions: flat(this.scheduledLines),
      months: [...this.months.values()],
    };
  }

  /**
   * `shared`: the snapshot's equal strings are one string each already (read from the columnar
   * form): not shared again. `months`: the months, read when first asked for (the snapshot's are
   * then left out).
   */
  static fromSnapshot(s: ReplicaSnapshot, shared = false, months?: () => E.MonthDetailBase[]): BudgetReplica {
    const r = new BudgetReplica(s.summary);
    if (months) r.monthsHeld.readLater(months);
    r.applyExport({ id: s.summary.id, name: s.summary.name, ...s } as unknown as E.BudgetDetail, s.knowledge, s.syncedAt, { shared });
    r.summary = s.summary;
    r.restored = true;
    return r;
  }
}

function summaryOf(b: E.BudgetDetail): ReplicaSummary {
  return {
    id: b.id,
    name: b.name,
    last_modified_on: b.last_modified_on ?? null,
    first_month: b.first_month ?? null,
    last_month: b.last_month ?? null,
    date_format: b.date_format ?? null,
    currency_format: b.currency_format ?? null,
  };
}
