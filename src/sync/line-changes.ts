/**
 * What the last merges of a replica changed in its transactions, by lines version
 * (replica.ts linesVersion): the transactions a merge brought (created, changed, deleted) and
 * the payees they and the merge's payees named before and after, so that what is computed per transaction or per payee
 * (the alerts' review queue and price rises, events/over-lines.ts) is computed again for those
 * alone. A merge that changed what lines are (an account's kind, the starting balances' payee), or more
 * than MAX_IDS transactions is `whole`: everything is computed again. A write's answer is noted as
 * a merge of what it names (writeChange), and the entities it held for the next export that this
 * export removes without naming (`dropped`) as changed.
 */
import type * as E from '../api/schemas/entities.js';
import { STARTING_BALANCE_PAYEE as STARTING } from '../api/starting-balance.js';

/** Merges remembered: a scan more merges behind computes everything again. */
const KEPT = 8;
/** Beyond this many transactions in the merges asked about, computing everything costs no more. */
const MAX_IDS = 10_000;

export interface LineChange {
  /** The transactions changed, by id. */
  ids: Set<string>;
  /** The payees those transactions or their lines named before or after. */
  payees: Set<string>;
}

interface Entry extends LineChange {
  /** The lines version this merge made. */
  version: number;
  whole: boolean;
}

export interface Merge {
  accounts?: readonly E.AccountBase[];
  transactions?: readonly E.TransactionSummaryBase[];
  lines?: readonly E.SubTransactionBase[];
  payees?: readonly E.Payee[];
  /** Held entities the merge removes without naming them (a write's provisional ones: replica.ts), by id. */
  dropped?: { transactions: readonly string[]; payees: readonly string[] };
}

export interface Held {
  accounts: ReadonlyMap<string, E.AccountBase>;
  transactions: ReadonlyMap<string, E.TransactionSummaryBase>;
  lines: ReadonlyMap<string, ReadonlyMap<string, E.SubTransactionBase>>;
  payees: ReadonlyMap<string, E.Payee>;
}

export class LineChanges {
  private readonly entries: Entry[] = [];

  /**
   * Notes a merge, before it replaces what `held` has: its transactions and lines, and its payees
   * (a payee's name is its rows' name; one of the accounts' starting balances decides what its
   * lines are: then `whole`), and its accounts (one added, removed, or on or off budget, closed or
   * of another type: `whole`; a balance that moved changes nothing here). `whole`: a write's answer.
   */
  note(version: number, whole: boolean, merge: Merge, held: Held): void {
    const entry: Entry = { version, whole, ids: new Set(), payees: new Set() };
    const payee = (id: string | null | undefined) => void (id && entry.payees.add(id));
    const was = (id: string) => {
      payee(held.transactions.get(id)?.payee_id);
      for (const x of held.lines.get(id)?.values() ?? []) payee(x.payee_id);
    };
    for (const a of merge.accounts ?? []) {
      const had = held.accounts.get(a.id);
      // A balance that moved changes no line; an account's kind does each of its lines'.
      if (!had || a.deleted || had.on_budget !== a.on_budget || had.closed !== a.closed || had.type !== a.type) entry.whole = true;
    }
    // Once whole, the ids and payees are not kept (below): a replica's first merge (an account it
    // did not have) is one, and noting its every transaction cost a copy's first read about a
    // tenth of its decoding.
    for (const p of entry.whole ? [] : (merge.payees ?? [])) {
      if (p.name === STARTING || held.payees.get(p.id)?.name === STARTING) entry.whole = true;
      payee(p.id);
    }
    for (const id of entry.whole ? [] : (merge.dropped?.payees ?? [])) {
      if (held.payees.get(id)?.name === STARTING) entry.whole = true;
      payee(id);
    }
    for (const id of entry.whole ? [] : (merge.dropped?.transactions ?? [])) {
      entry.ids.add(id);
      was(id);
    }
    for (const t of entry.whole ? [] : (merge.transactions ?? [])) {
      if (entry.ids.size > MAX_IDS) break;
      entry.ids.add(t.id);
      was(t.id);
      payee(t.payee_id);
    }
    for (const x of entry.whole ? [] : (merge.lines ?? [])) {
      if (entry.ids.size > MAX_IDS) break;
      entry.ids.add(x.transaction_id);
      was(x.transaction_id);
      payee(x.payee_id);
      // A line's own payee may be absent: the transaction's then counts, noted above when it came too.
      payee(held.transactions.get(x.transaction_id)?.payee_id);
    }
    if (entry.ids.size > MAX_IDS) entry.whole = true;
    // A whole change needs no ids: a full export's would be held until KEPT merges later.
    if (entry.whole) {
      entry.ids.clear();
      entry.payees.clear();
    }
    this.entries.push(entry);
    if (this.entries.length > KEPT) this.entries.shift();
  }

  /** What changed after lines version `from` up to `to`; undefined when everything must be computed again. */
  since(from: number, to: number): LineChange | undefined {
    const out: LineChange = { ids: new Set(), payees: new Set() };
    let next = from + 1;
    for (const e of this.entries) {
      if (e.version <= from) continue;
      if (e.version !== next || e.whole) return undefined;
      for (const id of e.ids) out.ids.add(id);
      for (const p of e.payees) out.payees.add(p);
      next++;
    }
    if (next !== to + 1 || out.ids.size > MAX_IDS) return undefined;
    return out;
  }
}

/**
 * What a write's answer (replica.ts applyWrite) changes in the lines, as a merge: its transactions
 * and their lines, the payees it learns by name (`held`: the payees before it) or changed (a
 * rename), and its account. Its categories, months and scheduled transactions are no lines.
 */
export function writeChange(
  details: readonly E.TransactionDetail[],
  data: { payee?: E.Payee; account?: E.AccountBase },
  held: ReadonlyMap<string, E.Payee>,
): Merge {
  const payees: E.Payee[] = data.payee ? [data.payee] : [];
  const learn = (id: string | null | undefined, name: string | null | undefined) => {
    if (id && name && !held.has(id)) payees.push({ id, name, transfer_account_id: null, deleted: false });
  };
  for (const t of details) {
    learn(t.payee_id, t.payee_name);
    for (const x of t.subtransactions ?? []) learn(x.payee_id, x.payee_name);
  }
  return { transactions: details, lines: details.flatMap((t) => t.subtransactions ?? []), payees, accounts: data.account ? [data.account] : [] };
}

/**
 * What an export changes in the lines (replica.ts applyExport), as a merge, with the entities a
 * write's answer held until it (`provisional`) that it removes: their transactions and payees
 * changed, an account among them whole. Undefined when it changes none.
 */
export function exportChange(
  budget: Pick<E.BudgetDetail, 'transactions' | 'subtransactions' | 'accounts' | 'payees'>,
  provisional: readonly { map: unknown; id: string }[],
  held: Held,
): { merge: Merge; whole: boolean } | undefined {
  const of = (map: unknown) => provisional.filter((p) => p.map === map).map((p) => p.id);
  const dropped = { transactions: of(held.transactions), payees: of(held.payees) };
  const lists = [budget.transactions, budget.subtransactions, budget.accounts, budget.payees, dropped.transactions, dropped.payees];
  if (!lists.some((l) => l?.length)) return undefined;
  const merge = { transactions: budget.transactions, lines: budget.subtransactions, payees: budget.payees, accounts: budget.accounts, dropped };
  return { merge, whole: of(held.accounts).length > 0 };
}
