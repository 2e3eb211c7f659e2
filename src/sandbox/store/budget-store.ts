/**
 * One budget of the sandbox: its records, its server knowledge, and its computed figures.
 *
 * Every write runs inside `change()`: the budget's knowledge rises by exactly one, every record
 * touched is stamped with it, and the computed figures are recomputed once and compared with
 * their previous fingerprints so that computed entities whose value moved (an account balance,
 * a month, a category's available) are stamped with the same knowledge. The records a write
 * stamped also keep the transaction index current and tell answer caches when names changed.
 */
import { todayUtc } from '../../api/dates.js';
import { computeDerived, type Derived } from './derived.js';
import { FingerprintMemo } from './fingerprints.js';
import type { AccountRec, BudgetRec, CategoryRec, PayeeRec, TransactionRec, Versioned } from './records.js';
import { TransactionIndex } from './transaction-index.js';

export interface StoreEnv {
  clock: () => Date;
  newId: () => string;
  userId: string;
}

export class BudgetStore {
  private derivedCache: Derived | null = null;
  /** Each computed entity's last fingerprint, with what it was made from (fingerprints.ts). */
  private readonly fingerprints = new FingerprintMemo();
  private pending: number | null = null;
  /** Records stamped by the write in progress. */
  private stamped: Versioned[] = [];
  /** Rises whenever an account, payee, category or group changes: the names answers show. */
  namesVersion = 0;
  readonly index = new TransactionIndex(() => this.rec.transactions.values());

  constructor(
    readonly rec: BudgetRec,
    readonly env: StoreEnv,
    /**
     * Called after every change (a write, or the passing of a day moving computed figures) with
     * the records the write stamped, e.g. to log it before the answer goes out.
     */
    private readonly onCommit: (stamped: readonly Versioned[]) => void = () => {},
  ) {}

  get id(): string {
    return this.rec.id;
  }

  get knowledge(): number {
    return this.rec.knowledge;
  }

  now(): Date {
    return this.env.clock();
  }

  today(): string {
    return todayUtc(this.env.clock());
  }

  /** Runs one write. Validate before calling: the function must not fail half way. */
  change<T>(fn: (knowledge: number) => T): T {
    if (this.pending !== null) return fn(this.pending);
    const k = this.rec.knowledge + 1;
    this.rec.knowledge = k;
    this.pending = k;
    try {
      return fn(k);
    } finally {
      this.pending = null;
      const stamped = this.settle();
      this.rec.last_modified_on = this.env.clock().toISOString();
      this.refresh(k);
      this.onCommit(stamped);
    }
  }

  /** The knowledge of the write in progress; stamps a record as changed by it. */
  stamp<T extends Versioned>(record: T): T {
    if (this.pending === null) throw new Error('sandbox store: a record was changed outside change()');
    record.knowledge = this.pending;
    this.stamped.push(record);
    return record;
  }

  /** Tells the index which transactions the write changed, and the caches whether names did. */
  private settle(): Versioned[] {
    const r = this.rec;
    let names = false;
    for (const record of this.stamped) {
      const id = (record as { id?: string }).id ?? '';
      if (r.transactions.get(id) === record) this.index.touched(record as TransactionRec);
      else if (r.payees.get(id) === record || r.categories.get(id) === record || r.accounts.get(id) === record || r.category_groups.get(id) === record)
        names = true;
    }
    if (names) this.namesVersion += 1;
    const stamped = this.stamped;
    this.stamped = [];
    return stamped;
  }

  get writing(): number {
    if (this.pending === null) throw new Error('sandbox store: no write in progress');
    return this.pending;
  }

  /** Computed figures, recomputed when stale (after a write, or when the UTC day moved on). */
  derived(): Derived {
    // During a write, whatever changed is stamped with the write's knowledge, never a new one.
    if (!this.derivedCache || this.derivedCache.today !== this.today()) this.refresh(this.pending);
    return this.derivedCache!;
  }

  /** The knowledge of an entity: its record's, or later if its computed value changed since. */
  knowledgeOf(key: string, recordKnowledge = 0): number {
    return Math.max(recordKnowledge, this.rec.derived_state.get(key)?.knowledge ?? 0);
  }

  private refresh(writeKnowledge: number | null): void {
    const d = computeDerived(this.rec, this.env.clock());
    this.derivedCache = d;
    const state = this.rec.derived_state;
    const changed: string[] = [];
    const seen = new Set<string>();
    for (const [key, fp] of this.fingerprints.of(this.rec, d)) {
      seen.add(key);
      const prior = state.get(key);
      if (!prior) state.set(key, { fp, knowledge: writeKnowledge ?? this.rec.knowledge });
      else if (prior.fp !== fp) {
        prior.fp = fp;
        changed.push(key);
      }
    }
    for (const key of state.keys()) if (!seen.has(key)) state.delete(key);
    if (!changed.length) return;
    // Outside a write, only the passing of time changed these values: that is a change too.
    const k = writeKnowledge ?? ++this.rec.knowledge;
    for (const key of changed) state.get(key)!.knowledge = k;
    if (writeKnowledge === null) this.onCommit([]);
  }

  // Lookups used across handlers. "Live" means present and not deleted.

  account(id: string): AccountRec | undefined {
    const a = this.rec.accounts.get(id);
    return a && !a.deleted ? a : undefined;
  }

  category(id: string): CategoryRec | undefined {
    const c = this.rec.categories.get(id);
    return c && !c.deleted ? c : undefined;
  }

  payee(id: string): PayeeRec | undefined {
    const p = this.rec.payees.get(id);
    return p && !p.deleted ? p : undefined;
  }

  transaction(id: string): TransactionRec | undefined {
    const t = this.rec.transactions.get(id);
    return t && !t.deleted ? t : undefined;
  }

  categoryByRole(role: CategoryRec['role']): CategoryRec | undefined {
    for (const c of this.rec.categories.values()) if (c.role === role && !c.deleted) return c;
    return undefined;
  }

  /** The payee whose transfer_account_id is this account (the account's transfer payee). */
  accountOfTransferPayee(payeeId: string | null): AccountRec | undefined {
    if (!payeeId) return undefined;
    const p = this.payee(payeeId);
    return p?.transfer_account_id ? this.account(p.transfer_account_id) : undefined;
  }

  /** Next creation sequence number, for a stable order of same-day transactions. */
  nextSeq(): number {
    return this.rec.next_seq++;
  }
}
