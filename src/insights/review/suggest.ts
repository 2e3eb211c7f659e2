/**
 * Category suggestions from the budget's copy alone: no request, no model, the same answer for
 * the same copy. A transaction's category is suggested from its payee's categorized history
 * (approved lines only, so that YNAB's own automatic guesses never vote for themselves; a split
 * counts once per line, under the line's payee), recent lines weighing more and, where the payee
 * has several categories, lines of a similar amount weighing more. A payee without history borrows
 * the history of the payee whose name shares the most telling words with the bank's name for it,
 * and only where the two names start alike; otherwise there is no suggestion (weak evidence abstains).
 * Never suggested: a hidden or deleted category, Uncategorized, or a credit card payment category
 * for a purchase.
 */
import { foldText } from '../../shared/text.js';
import type { BudgetView, Line } from '../core/view.js';

export interface Suggestion {
  category_id: string;
  /** The category's name. */
  category: string;
  confidence: 'high' | 'medium' | 'low';
  /** What the suggestion rests on, e.g. "payee: 14 of 15" (of the payee's categorized lines, 14 had this category), "like payee \"Costco\": 8 of 8". */
  basis: string;
}

export interface SuggestInput {
  /** A payee of the budget, when known. */
  payee_id?: string | null;
  /** The payee's (or the bank's) name, when payee_id is not known or new. */
  payee_name?: string | null;
  import_payee_name?: string | null;
  /** Milliunits, YNAB's sign. */
  amount: number;
  account_id?: string;
  date?: string;
  /** Leave this transaction out of the history. */
  exclude_transaction_id?: string;
}

export interface SuggesterOptions {
  /** Only history dated before this day (YYYY-MM-DD): for measuring suggestions against what came after. */
  before?: string;
}

/** One categorized line of history. */
interface Past {
  transaction_id: string;
  category_id: string;
  amount: number;
  date: string;
}

/** A line's weight halves for each this many days it lies before the transaction. */
const HALF_LIFE_DAYS = 365;
/** High confidence: this many lines of history at least, and this share of their weight for one category. */
const HIGH = { lines: 3, share: 0.85 };
const MEDIUM_SHARE = 0.6;
/** Words of payee names that say nothing about what was bought. */
const NOISE = new Set(
  'the and inc llc ltd gmbh corp co com www pos debit credit card purchase payment online store shop sq tst paypal visa mastercard ach direct dep deposit transfer from via'.split(
    ' ',
  ),
);

/** The telling words of a name: folded, letters only, three or more letters, not noise. */
export function nameWords(name: string | null | undefined): string[] {
  if (!name) return [];
  const words = foldText(name)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3 && !/\d/.test(w) && !NOISE.has(w));
  return [...new Set(words)];
}

const days = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

/** How much nearer amounts count than far ones: 1 for the same size, 1/2 for twice or half, … */
function closeness(a: number, b: number): number {
  if (!a || !b) return 1;
  return 1 / (1 + Math.abs(Math.log2(Math.abs(a) / Math.abs(b))));
}

/** The categories a suggestion may name: not hidden (nor in a hidden group), deleted, internal or Uncategorized. */
function usable(view: BudgetView): (categoryId: string, amount: number) => boolean {
  const r = view.replica;
  return (id, amount) => {
    const c = r.categories.get(id);
    if (!c || c.deleted || c.hidden || id === view.uncategorizedId) return false;
    const group = view.groupOf(id);
    if (!group || group.deleted || group.hidden) return false;
    // A purchase is never a card payment (the group YNAB names "Credit Card Payments").
    if (amount < 0 && (view.isPaymentCategory(id) || (group.internal && group.name === 'Credit Card Payments'))) return false;
    // "Inflow: Ready to Assign" is the one internal category a transaction takes, and only money in.
    if (c.internal || group.internal) return id === view.readyToAssignId && amount > 0;
    return true;
  };
}

/** History that counts: categorized budget lines (spending and income) of approved transactions, not transfers. */
function counts(l: Line, before: string | undefined): boolean {
  if (!l.on_budget || !l.category_id || !l.payee_id || !l.transaction.approved) return false;
  if (l.kind !== 'activity' && l.kind !== 'income') return false;
  return before === undefined || l.date < before;
}

interface Scored {
  category_id: string;
  weight: number;
  lines: number;
}

/** Each category of a history, weighted by recency and, when asked, by amount; the heaviest first. */
function score(history: Past[], amount: number, date: string | undefined, byAmount: boolean): Scored[] {
  const latest = history.reduce((d, p) => (p.date > d ? p.date : d), '');
  const ref = date ?? latest;
  const by = new Map<string, Scored>();
  for (const p of history) {
    const age = Math.max(0, days(p.date, ref));
    const w = 0.5 ** (age / HALF_LIFE_DAYS) * (byAmount ? closeness(amount, p.amount) : 1);
    let s = by.get(p.category_id);
    if (!s) by.set(p.category_id, (s = { category_id: p.category_id, weight: 0, lines: 0 }));
    s.weight += w;
    s.lines += 1;
  }
  return [...by.values()].sort((a, b) => b.weight - a.weight || b.lines - a.lines || (a.category_id < b.category_id ? -1 : 1));
}

/** Built once per budget copy (indexes the categorized history); deterministic, no request. */
export function categorySuggester(view: BudgetView, opts: SuggesterOptions = {}): (t: SuggestInput) => Suggestion | undefined {
  const r = view.replica;
  const byPayee = new Map<string, Past[]>();
  for (const l of view.lines) {
    if (!counts(l, opts.before)) continue;
    let list = byPayee.get(l.payee_id!);
    if (!list) byPayee.set(l.payee_id!, (list = []));
    list.push({ transaction_id: l.transaction.id, category_id: l.category_id!, amount: l.amount, date: l.date });
  }
  // Which payees with history each telling word of a name appears in.
  const byWord = new Map<string, string[]>();
  for (const id of byPayee.keys())
    for (const w of nameWords(r.payees.get(id)?.name)) {
      const list = byWord.get(w);
      if (list) list.push(id);
      else byWord.set(w, [id]);
    }
  const allowed = usable(view);
  const name = (id: string) => r.categories.get(id)?.name ?? id;

  /** The history of a payee for this transaction: usable categories, same direction of money where there is any. */
  const historyOf = (payeeId: string, t: SuggestInput): Past[] => {
    const all = (byPayee.get(payeeId) ?? []).filter((p) => p.transaction_id !== t.exclude_transaction_id && allowed(p.category_id, t.amount));
    const same = all.filter((p) => Math.sign(p.amount) === Math.sign(t.amount));
    return same.length ? same : all;
  };

  /** The payee (with history) whose name shares the most telling words with the transaction's names, rarer words counting more. */
  const lookalike = (t: SuggestInput): { id: string; words: string[]; first: boolean } | undefined => {
    const names = [t.import_payee_name, t.payee_name, t.payee_id ? r.payees.get(t.payee_id)?.name : null];
    const words = [...new Set(names.flatMap(nameWords))];
    const firsts = new Set(names.map((n) => nameWords(n)[0]).filter((w) => w !== undefined));
    const scores = new Map<string, { s: number; words: string[] }>();
    for (const w of words) {
      const payees = (byWord.get(w) ?? []).filter((id) => id !== t.payee_id);
      for (const id of payees) {
        const e = scores.get(id) ?? { s: 0, words: [] };
        e.s += 1 / payees.length;
        e.words.push(w);
        scores.set(id, e);
      }
    }
    const best = [...scores.entries()].sort((a, b) => b[1].s - a[1].s || (a[0] < b[0] ? -1 : 1))[0];
    if (!best) return undefined;
    // The names start alike ("Costco Whse #12" and "Costco"): a stronger likeness than a shared word further in.
    // A first word several payees share ("Portland" of "Portland General Electric" and "Portland
    // Water Bureau", a city) names none of them.
    const lead = nameWords(r.payees.get(best[0])?.name)[0] ?? '';
    const first = firsts.has(lead) && byWord.get(lead)?.length === 1;
    return { id: best[0], words: best[1].words, first };
  };

  return (t) => {
    if (t.payee_id && r.payees.get(t.payee_id)?.transfer_account_id) return undefined;
    let history = t.payee_id ? historyOf(t.payee_id, t) : [];
    let borrowed: { id: string; words: string[]; first: boolean } | undefined;
    // Only a payee without any history borrows another's (one with history of the other
    // direction, or only of categories no longer usable, has no suggestion rather than a guess).
    if (!history.length && !(t.payee_id && byPayee.get(t.payee_id)?.some((p) => p.transaction_id !== t.exclude_transaction_id))) {
      borrowed = lookalike(t);
      // Only a payee whose name starts as this one's lends its history: a word further in (a
      // city, "Portland" of "Portland General Electric") says nothing of what was bought.
      if (borrowed && !borrowed.first) return undefined;
      if (borrowed) history = historyOf(borrowed.id, t);
    }
    if (!history.length) return undefined;
    const plain = score(history, t.amount, t.date, false);
    const ranked = plain.length > 1 ? score(history, t.amount, t.date, true) : plain;
    const top = ranked[0]!;
    const total = ranked.reduce((s, x) => s + x.weight, 0);
    const share = top.weight / total;
    const onlyOther = history.every((p) => Math.sign(p.amount) !== Math.sign(t.amount)) && t.amount !== 0;
    let confidence: Suggestion['confidence'] = share >= MEDIUM_SHARE || (history.length < HIGH.lines && ranked.length === 1) ? 'medium' : 'low';
    if (!borrowed && !onlyOther && history.length >= HIGH.lines && share >= HIGH.share) confidence = 'high';
    if (borrowed && confidence === 'medium' && share < 1) confidence = 'low';
    // The basis names the figures, not the category again (the suggestion names it beside).
    const ofTimes = `${top.lines} of ${history.length}`;
    const amountWise = plain[0]!.category_id !== top.category_id ? ', by amount' : '';
    const basis = borrowed ? `like payee ${JSON.stringify(r.payees.get(borrowed.id)?.name ?? '')}: ${ofTimes}` : `payee: ${ofTimes}${amountWise}`;
    return { category_id: top.category_id, category: name(top.category_id), confidence, basis };
  };
}
