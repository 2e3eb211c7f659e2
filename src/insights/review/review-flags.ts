/**
 * What a reviewer should notice about a transaction waiting for approval or a category, each
 * flag only where it applies:
 *  - `new_payee`: no other transaction has its payee;
 *  - `unusual_amount` (the payee's usual amount): three or more earlier amounts of the payee in
 *    the same direction, and this one far from their median (beyond three robust deviations and
 *    a quarter of the median), unless three of them are near this one (within a quarter of it):
 *    a payee with two steady charges, a loan's interest and its escrow, charges both as usual;
 *  - `possible_duplicate` (the other transaction's id): the same account and amount within 3 days,
 *    with the same payee or one sharing a telling word of its name;
 *  - `matches_scheduled`: a schedule of the account for the same amount falls within 3 days of it;
 *  - `transfer_candidate` (the other transaction's id): the opposite amount in another budget
 *    account within 3 days, neither side already a transfer.
 */
import { addDays } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import { datesOf } from '../core/schedule.js';
import { nameWords } from './suggest.js';
import type { BudgetView } from '../core/view.js';

const WINDOW_DAYS = 3;
/** The median absolute deviation of a normal spread is this share of its standard deviation. */
const MAD_SCALE = 1.4826;
const UNUSUAL = { history: 3, deviations: 3, share: 0.25 };

export type Flags = Record<string, true | string | number>;

const near = (a: string, b: string) => Math.abs(Date.parse(a) - Date.parse(b)) <= WINDOW_DAYS * 86_400_000;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

/** Built once per answer: indexes the budget's transactions by payee, and by amount. */
export function flagger(view: BudgetView): (t: E.TransactionSummaryBase) => Flags {
  const r = view.replica;
  const byPayee = new Map<string, { id: string; amount: number; date: string }[]>();
  for (const l of view.lines) {
    if (!l.payee_id || l.kind === 'transfer' || l.kind === 'starting_balance') continue;
    let list = byPayee.get(l.payee_id);
    if (!list) byPayee.set(l.payee_id, (list = []));
    list.push({ id: l.transaction.id, amount: l.amount, date: l.date });
  }
  const byAmount = new Map<number, E.TransactionSummaryBase[]>();
  for (const t of r.transactions.values()) {
    const list = byAmount.get(t.amount);
    if (list) list.push(t);
    else byAmount.set(t.amount, [t]);
  }
  const payeeName = (t: E.TransactionSummaryBase) => view.payeeName(t.payee_id ?? null) ?? t.import_payee_name ?? null;
  const samePayee = (a: E.TransactionSummaryBase, b: E.TransactionSummaryBase) => {
    if (a.payee_id && a.payee_id === b.payee_id) return true;
    const words = new Set(nameWords(payeeName(a)));
    return nameWords(payeeName(b)).some((w) => words.has(w));
  };
  const isTransfer = (t: E.TransactionSummaryBase) => !!t.transfer_account_id || r.linesOf(t.id).some((x) => !x.deleted && x.transfer_account_id);
  const schedules = [...r.scheduled.values()];

  return (t) => {
    const flags: Flags = {};
    const transfer = isTransfer(t);
    const payee = t.payee_id ? r.payees.get(t.payee_id) : undefined;
    if (!transfer && payee && !payee.transfer_account_id) {
      const history = (byPayee.get(payee.id) ?? []).filter((p) => p.id !== t.id);
      if (!history.length) flags.new_payee = true;
      const earlier = history.filter((p) => p.date <= t.date && Math.sign(p.amount) === Math.sign(t.amount)).map((p) => Math.abs(p.amount));
      if (earlier.length >= UNUSUAL.history) {
        const usual = median(earlier);
        const mad = median(earlier.map((a) => Math.abs(a - usual)));
        const off = Math.abs(Math.abs(t.amount) - usual);
        const amount = Math.abs(t.amount);
        const far = off > Math.max(UNUSUAL.deviations * MAD_SCALE * mad, UNUSUAL.share * usual);
        if (far && earlier.filter((a) => Math.abs(a - amount) <= UNUSUAL.share * amount).length < UNUSUAL.history)
          flags.unusual_amount = Math.sign(t.amount) * usual;
      }
    }
    const twin = (byAmount.get(t.amount) ?? [])
      .filter((o) => o.id !== t.id && o.account_id === t.account_id && near(o.date, t.date) && samePayee(o, t))
      .sort((a, b) => (a.date > b.date ? -1 : a.date < b.date ? 1 : a.id < b.id ? -1 : 1))[0];
    if (twin) flags.possible_duplicate = twin.id;
    const scheduled = schedules.find(
      (s) => s.account_id === t.account_id && s.amount === t.amount && datesOf(s, addDays(t.date, -WINDOW_DAYS), addDays(t.date, WINDOW_DAYS)).length > 0,
    );
    if (scheduled) flags.matches_scheduled = true;
    if (!transfer && t.amount !== 0 && view.onBudget(t.account_id)) {
      const other = (byAmount.get(-t.amount) ?? [])
        .filter((o) => o.account_id !== t.account_id && view.onBudget(o.account_id) && near(o.date, t.date) && !isTransfer(o))
        .sort((a, b) => Math.abs(Date.parse(a.date) - Date.parse(t.date)) - Math.abs(Date.parse(b.date) - Date.parse(t.date)) || (a.id < b.id ? -1 : 1))[0];
      if (other) flags.transfer_candidate = other.id;
    }
    return flags;
  };
}
