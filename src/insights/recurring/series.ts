/**
 * The series the recurring items and the price-rise check both read, so they see the same money:
 * one payee's transactions in one account, outflows and inflows apart (a transaction's lines of
 * that payee summed), oldest first. Closed accounts and starting balances are left out; off-budget
 * accounts only when asked. One pass over the lines and one sort per series: O(n log n).
 */
import type { BudgetView } from '../core/view.js';

export interface Charge {
  /** The transaction's id: unique in a series (one payee's), and the order's tie-break. */
  transaction_id: string;
  account_id: string;
  payee_id: string;
  date: string;
  /** Signed milliunits. */
  amount: number;
}

export interface Series {
  account_id: string;
  payee_id: string;
  /** '-' for outflows, '+' for inflows. */
  sign: '-' | '+';
  charges: Charge[];
}

/** `payees`: only their series (the alerts' scan after a sync, for the payees it touched: events/over-lines.ts). */
export function seriesOf(view: BudgetView, includeOffBudget: boolean, payees?: ReadonlySet<string>): Series[] {
  const closed = new Set<string>();
  for (const a of view.replica.accounts.values()) if (a.closed) closed.add(a.id);
  // A transaction's lines of one payee summed. The view lists a transaction's lines together
  // (view.ts), so only the current transaction's sums are held: no map keyed by every line, which
  // at 100,000 transactions was most of the time this took. One object a charge, naming the copy's
  // own strings: a wrapper and a joined id each were 8 MB more held during a scan at 100,000
  // transactions (issue 61).
  const sums: Charge[] = [];
  let tx: unknown;
  let from = 0;
  for (const l of view.lines) {
    if (!l.payee_id || !(l.on_budget || includeOffBudget) || l.kind === 'starting_balance' || closed.has(l.account_id)) continue;
    if (payees && !payees.has(l.payee_id)) continue;
    if (l.transaction !== tx) {
      tx = l.transaction;
      from = sums.length;
    }
    let s: (typeof sums)[number] | undefined;
    for (let i = from; i < sums.length && !s; i++) if (sums[i]!.payee_id === l.payee_id) s = sums[i];
    if (s) s.amount += l.amount;
    else sums.push({ transaction_id: l.transaction.id, account_id: l.account_id, payee_id: l.payee_id, date: l.date, amount: l.amount });
  }
  // Series by payee, then account, then sign: keys the copy's own strings, in the order first met.
  const out: Series[] = [];
  const byPayee = new Map<string, Map<string, { '-'?: Series; '+'?: Series }>>();
  for (const charge of sums) {
    const { account_id, payee_id } = charge;
    if (charge.amount === 0) continue;
    const sign = charge.amount < 0 ? '-' : '+';
    let accounts = byPayee.get(payee_id);
    if (!accounts) byPayee.set(payee_id, (accounts = new Map()));
    let signs = accounts.get(account_id);
    if (!signs) accounts.set(account_id, (signs = {}));
    let s = signs[sign];
    if (!s) out.push((s = signs[sign] = { account_id, payee_id, sign, charges: [] }));
    s.charges.push(charge);
  }
  for (const s of out) s.charges = byDate(s.charges);
  return out;
}

/** The order of `transaction id|payee id`, the tie-break before (one series has one payee). */
const byId = (a: Charge, b: Charge) => (`${a.transaction_id}|` < `${b.transaction_id}|` ? -1 : 1);
const compare = (a: Charge, b: Charge) => (a.date < b.date ? -1 : a.date > b.date ? 1 : byId(a, b));

/** Room for the index under the day in one sort key: series up to 2^21 charges sort by key. */
const SLOTS = 2 ** 21;
const digit = (d: string, i: number) => d.charCodeAt(i) - 48;

/** A `YYYY-MM-DD` date as a number in the same order. */
const dayNumber = (d: string) =>
  ((digit(d, 0) * 1000 + digit(d, 1) * 100 + digit(d, 2) * 10 + digit(d, 3)) * 12 + digit(d, 5) * 10 + digit(d, 6)) * 31 + digit(d, 8) * 10 + digit(d, 9);

/**
 * Charges oldest first, the id breaking a tie. Sorted as numbers (day, then place) in a typed
 * array, with no comparator: at 100,000 transactions a comparator's sort was most of the
 * price-rise check. Charges of one day are then put in id order.
 */
function byDate(charges: Charge[]): Charge[] {
  const n = charges.length;
  if (n >= SLOTS) return charges.sort(compare);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = dayNumber(charges[i]!.date) * SLOTS + i;
  keys.sort();
  const out = Array.from(keys, (k) => charges[k % SLOTS]!);
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && out[j]!.date === out[i]!.date) j++;
    if (j - i > 1) out.splice(i, j - i, ...out.slice(i, j).sort(byId));
    i = j;
  }
  return out;
}
