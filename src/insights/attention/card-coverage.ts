/**
 * Card coverage, YNAB's way: a card's payment category should hold what the card owes. When it
 * holds less, the gap is this month's credit overspending on the card (spending in categories that
 * had no money for it: YNAB takes the cash out first, so a category's overspending is credit only
 * beyond what cash paid, up to what cards paid, and a card's share is what it spent there) and,
 * the rest, debt carried from before: an opening balance, or overspending of months gone by. The
 * moves that would cover it are move_money's own arguments, from the categories with the most
 * available (never a payment category), each category's money used once across all cards.
 */
import { currentMonth } from '../../api/dates.js';
import type * as E from '../../api/schemas/entities.js';
import { isActivity, type BudgetView } from '../core/view.js';

export interface Coverage {
  account: E.Account;
  paymentName: string;
  available: number;
  /** What the payment category is short of the balance owed (zero or less: it holds enough, and the rest is extra). */
  shortfall: number;
  /** This month's credit overspending on the card, by category (worst first). */
  overspent: { category: string; amount: number }[];
  /** The rest of the shortfall: debt from before this month's overspending. */
  carried: number;
  /** move_money arguments that would cover it (less than the shortfall when the budget holds too little). */
  moves: { from_category_id: string; to_category_id: string; amount_milliunits: number }[];
}

/** Credit overspending per category this month, shared out among the cards that spent there. */
function creditOverspending(view: BudgetView, categories: E.CategoryBase[], month: string): Map<string, Map<string, number>> {
  const spent = new Map<string, { cash: number; cards: Map<string, number> }>();
  for (const l of view.lines) {
    if (!isActivity(l) || !l.category_id || !l.date.startsWith(month.slice(0, 7))) continue;
    let s = spent.get(l.category_id);
    if (!s) spent.set(l.category_id, (s = { cash: 0, cards: new Map() }));
    if (view.isCredit(l.account_id)) s.cards.set(l.account_id, (s.cards.get(l.account_id) ?? 0) - l.amount);
    else s.cash -= l.amount;
  }
  // Per card: category → its credit overspending there.
  const out = new Map<string, Map<string, number>>();
  for (const c of categories) {
    const s = spent.get(c.id);
    if (c.balance >= 0 || !s || c.internal || view.isPaymentCategory(c.id)) continue;
    let credit = Math.max(0, -c.balance - Math.max(0, s.cash));
    // The cards that spent most carry it first, each up to what it spent (by id when equal: a fixed order).
    const cards = [...s.cards.entries()].filter(([, x]) => x > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [card, amount] of cards) {
      const share = Math.min(credit, amount);
      if (share <= 0) break;
      let m = out.get(card);
      if (!m) out.set(card, (m = new Map()));
      m.set(c.name, share);
      credit -= share;
    }
  }
  return out;
}

/**
 * Every open on-budget card (and line of credit) with a payment category, short or not: what it
 * owes, what its category holds, the shortfall (at most zero when it holds enough) and why; the
 * moves for the short ones, largest shortfall first, each category's money used once. One
 * computation for needs_attention's shortfalls and credit_cards' glance, so they never disagree.
 */
export function cardStates(view: BudgetView, today: string): Coverage[] {
  const month = currentMonth(new Date(`${today}T00:00:00Z`));
  const categories = view.replica.months.get(month)?.categories.filter((c) => !c.deleted) ?? [];
  const byId = new Map(categories.map((c) => [c.id, c]));
  const overspent = creditOverspending(view, categories, month);
  const found: Coverage[] = [];
  for (const a of view.replica.accounts.values()) {
    const payment = view.paymentCategoryOf(a.id);
    if (a.closed || a.deleted || !payment) continue;
    const available = byId.get(payment)?.balance ?? 0;
    // A card in credit owes nothing: whatever its category holds is extra.
    const shortfall = Math.max(0, -a.balance) - available;
    const mine = [...(overspent.get(a.id) ?? new Map<string, number>()).entries()]
      .map(([category, amount]) => ({ category, amount }))
      .sort((x, y) => y.amount - x.amount || (x.category < y.category ? -1 : 1));
    const explained = Math.min(
      Math.max(0, shortfall),
      mine.reduce((s, x) => s + x.amount, 0),
    );
    const name = byId.get(payment)?.name ?? view.replica.categories.get(payment)?.name ?? a.name;
    found.push({ account: a, paymentName: name, available, shortfall, overspent: mine, carried: Math.max(0, shortfall - explained), moves: [] });
  }
  found.sort((x, y) => y.shortfall - x.shortfall || (x.account.name < y.account.name ? -1 : 1));
  // Sources: what other categories hold, most first; each one's money goes to one card after another.
  const sources = categories
    .filter((c) => c.balance > 0 && !c.internal && !c.hidden && !view.isPaymentCategory(c.id))
    .sort((x, y) => y.balance - x.balance || (x.name < y.name ? -1 : 1))
    .map((c) => ({ name: c.name, left: c.balance }));
  for (const f of found) {
    // Only what a card owes is covered (needs_attention's cards: a card in credit owes nothing).
    let need = f.account.balance < 0 ? f.shortfall : 0;
    for (const s of sources) {
      if (need <= 0) break;
      const amount = Math.min(need, s.left);
      if (amount <= 0) continue;
      f.moves.push({ from_category_id: s.name, to_category_id: f.paymentName, amount_milliunits: amount });
      s.left -= amount;
      need -= amount;
    }
  }
  return found;
}

/** Every open on-budget card whose payment category holds less than it owes, largest shortfall first. */
export function cardCoverage(view: BudgetView, today: string): Coverage[] {
  return cardStates(view, today).filter((c) => c.account.balance < 0 && c.shortfall > 0);
}
