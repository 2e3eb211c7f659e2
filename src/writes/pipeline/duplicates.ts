/**
 * The duplicate guard of creates: a new transaction is held, and nothing created, when the same
 * account already has a transaction with the same amount, dated within 3 days of it, with the
 * same or a similar payee. `allow_duplicate: true` creates it anyway (two identical purchases
 * happen). Only transactions already in the budget count, not others of the same call.
 *
 * "Similar" payees, after folding case and accents and reading names as words (punctuation,
 * store numbers such as "#1234" and words like "inc", "llc", "store", "pos" left out):
 *  - the same words ("Trader Joe's" and "TRADER JOES #552");
 *  - one name's words start the other's ("Amazon" and "Amazon Mktp US");
 *  - at most one typing slip per five letters ("Starbucks" and "Starbuck").
 * No payee on either side is the same payee; a payee on one side only is not.
 * The guard is one step of the write pipeline (pipeline.ts), for every plan that creates
 * transactions and says so (`guard`): create_transactions, create_transfer.
 */
import type * as E from '../../api/schemas/entities.js';
import { distance, foldText } from '../../shared/text.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { currentState, type Shown } from './entities.js';
import { txnRow } from './rows.js';

export const DUPLICATE_WINDOW_DAYS = 3;

const NOISE = new Set([
  'the',
  'inc',
  'llc',
  'ltd',
  'co',
  'corp',
  'company',
  'store',
  'stores',
  'com',
  'www',
  'sq',
  'tst',
  'pos',
  'purchase',
  'payment',
  'gmbh',
  'ag',
  'sa',
]);

/** A name as the words that identify it. */
export function payeeWords(name: string): string[] {
  return foldText(name)
    .replace(/['’`]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !/^\d+$/.test(w) && !NOISE.has(w));
}

/** Whether two payee names are the same or similar (see the header); null is no payee. */
export function similarPayee(a: string | null, b: string | null): boolean {
  if (!a || !b) return !a && !b;
  const x = payeeWords(a);
  const y = payeeWords(b);
  if (!x.length || !y.length) return foldText(a).trim() === foldText(b).trim();
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.every((w, i) => w === long[i]) && short.join('').length >= 3) return true;
  const p = x.join(' ');
  const q = y.join(' ');
  return distance(p, q) <= Math.floor(Math.min(p.length, q.length) / 5);
}

const DAY_MS = 86_400_000;
const days = (a: string, b: string) => Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / DAY_MS;

/** What a create names: its account, date, amount and payee (by id or by name). */
export interface NewItem {
  account_id: string;
  date: string;
  amount: number;
  payee_id?: string | null;
  payee_name?: string | null;
}

/** For each item (by position) that looks like a transaction already in the budget, those transactions. */
export function duplicateCandidates(r: BudgetReplica, items: readonly NewItem[]): { index: number; candidates: E.TransactionSummaryBase[] }[] {
  const out: { index: number; candidates: E.TransactionSummaryBase[] }[] = [];
  const nameOf = (id: string | null | undefined) => (id ? (r.payees.get(id)?.name ?? null) : null);
  const keys = new Set(items.map((i) => `${i.account_id}|${i.amount}`));
  const near = [...r.transactions.values()].filter((t) => !t.deleted && keys.has(`${t.account_id}|${t.amount}`));
  items.forEach((item, index) => {
    const payee = item.payee_id ? nameOf(item.payee_id) : (item.payee_name ?? null);
    const candidates = near.filter(
      (t) =>
        t.account_id === item.account_id &&
        t.amount === item.amount &&
        days(t.date, item.date) <= DUPLICATE_WINDOW_DAYS &&
        (item.payee_id && t.payee_id === item.payee_id ? true : similarPayee(nameOf(t.payee_id), payee)),
    );
    if (candidates.length) out.push({ index, candidates: candidates.sort((a, b) => (a.date < b.date ? 1 : -1)) });
  });
  return out;
}

/** The transaction already in the budget that one new item looks like, if any (the latest): one guard for every create, a rehearsal's too. */
export function likelyDuplicate(r: BudgetReplica, item: NewItem): E.TransactionSummaryBase | undefined {
  return duplicateCandidates(r, [item])[0]?.candidates[0];
}

/** A create the guard held: its position among the plan's items, and the transactions it looks like, as rows. */
export interface HeldItem {
  index: number;
  candidates: Record<string, unknown>[];
}

/** What a plan that creates transactions gives the guard: the items, and how its answer says they were held. */
export interface DuplicateGuard {
  items: readonly NewItem[];
  /** The answer when some are held (nothing is created); `notices`: the plan's. */
  held(found: HeldItem[], notices: readonly string[]): Record<string, unknown>;
}

/** The answer of a create held as a likely duplicate, or undefined when none of its items looks like one. */
export function holdDuplicates(r: BudgetReplica, s: Shown, guard: DuplicateGuard, notices: readonly string[]): Record<string, unknown> | undefined {
  const found = duplicateCandidates(r, guard.items);
  if (!found.length) return undefined;
  const rows = found.map((d) => ({ index: d.index, candidates: d.candidates.map((t) => txnRow(s, t.id, currentState(r, 'transaction', t.id)!)) }));
  return guard.held(rows, notices);
}
