/**
 * What moving transactions between categories does to the budget, month by month from the
 * earliest one moved to the last month the budget has, computed from the months as YNAB gives
 * them (each category's available) and the moves, the way YNAB carries money:
 *  - a category's available is what it carried (its available of the month before, if positive)
 *    plus its assignment and activity; a move changes the activity of its month, and what is
 *    carried from there on;
 *  - a move into or out of Ready to Assign is income: Ready to Assign changes from its month on;
 *  - a category's overspending on cash is taken from Ready to Assign the month after; on a credit
 *    card (its spending beyond what the category holds, up to the card spending) it is debt
 *    instead, and the card's payment category gets only the funded spending. The card spending of
 *    a category overspent on several cards is taken as the first card's (by id).
 * Answered: Ready to Assign before and after in each month it changes, and each category that
 * would go negative, by month (apply_rules' preview).
 */
import { monthOf } from '../../api/dates.js';
import type { BudgetView } from '../../insights/core/view.js';

export interface Move {
  date: string;
  amount: number;
  account_id: string;
  from: string | null;
  to: string | null;
}

export interface Effect {
  ready_to_assign: { month: string; before: number; after: number }[];
  negative: { month: string; category_id: string; before: number; after: number }[];
}

type Grid = Map<string, number>;
const key = (m: string, c: string) => `${m}|${c}`;
const add = (g: Grid, k: string, v: number) => g.set(k, (g.get(k) ?? 0) + v);

/** Cash and card spending per month and category (net activity, split lines by their own category), and each card's. */
function spending(view: BudgetView, since: string) {
  const cash: Grid = new Map();
  const card: Grid = new Map();
  const cardOf = new Map<string, string>();
  for (const l of view.lines) {
    if (l.kind !== 'activity' || !l.on_budget || !l.category_id || l.date < since) continue;
    const k = key(monthOf(l.date), l.category_id);
    if (view.isCredit(l.account_id)) {
      add(card, k, l.amount);
      if (!cardOf.has(k) || l.account_id < cardOf.get(k)!) cardOf.set(k, l.account_id);
    } else add(cash, k, l.amount);
  }
  return { cash, card, cardOf };
}

/** Credit overspending of a category: its shortfall beyond the cash spending, up to the card spending. */
const unfunded = (balance: number, cash: number, card: number) => (balance < 0 ? Math.min(Math.max(0, -balance - Math.max(0, -cash)), Math.max(0, -card)) : 0);

export function budgetEffect(view: BudgetView, moves: readonly Move[]): Effect {
  const r = view.replica;
  if (!moves.length) return { ready_to_assign: [], negative: [] };
  const first = moves.reduce((m, x) => (monthOf(x.date) < m ? monthOf(x.date) : m), monthOf(moves[0]!.date));
  const months = [...r.months.keys()].filter((m) => m >= first).sort();
  const rta = view.readyToAssignId;
  const old = spending(view, first);
  const cash: Grid = new Map(old.cash);
  const card: Grid = new Map(old.card);
  const activity: Grid = new Map();
  const income = new Map<string, number>();
  const touched = new Set<string>();
  const cards = new Set<string>();
  for (const mv of moves) {
    const m = monthOf(mv.date);
    for (const [c, sign] of [
      [mv.from, -1],
      [mv.to, 1],
    ] as const) {
      if (!c) continue;
      if (c === rta) income.set(m, (income.get(m) ?? 0) + sign * mv.amount);
      else {
        touched.add(c);
        add(activity, key(m, c), sign * mv.amount);
        add(view.isCredit(mv.account_id) ? card : cash, key(m, c), sign * mv.amount);
        if (view.isCredit(mv.account_id)) cards.add(mv.account_id);
      }
    }
  }
  const payments = new Map([...cards].map((a) => [view.paymentCategoryOf(a), a]).filter((x): x is [string, string] => !!x[0]));
  const figure = (m: string, c: string) => r.months.get(m)?.categories.find((x) => x.id === c);
  const prevOld = new Map<string, number>();
  const prevNew = new Map<string, number>();
  const out: Effect = { ready_to_assign: [], negative: [] };
  let incomeSoFar = 0;
  let overspentBefore = 0; // the change in cash overspending through the month before
  for (const m of months) {
    let overspent = 0;
    const funded = new Map<string, number>();
    const close = (c: string, delta: number) => {
      const before = figure(m, c)?.balance ?? 0;
      const carry = Math.max(0, prevNew.get(c) ?? 0) - Math.max(0, prevOld.get(c) ?? 0);
      const after = before + carry + delta;
      prevOld.set(c, before);
      prevNew.set(c, after);
      if (after < 0 && after !== before) out.negative.push({ month: m, category_id: c, before, after });
      return { before, after };
    };
    for (const c of touched) {
      if (payments.has(c)) continue;
      const k = key(m, c);
      const { before, after } = close(c, activity.get(k) ?? 0);
      const uOld = unfunded(before, old.cash.get(k) ?? 0, old.card.get(k) ?? 0);
      const uNew = unfunded(after, cash.get(k) ?? 0, card.get(k) ?? 0);
      overspent += (after < 0 ? -after - uNew : 0) - (before < 0 ? -before - uOld : 0);
      const onCard = old.cardOf.get(k) ?? moves.find((x) => view.isCredit(x.account_id) && (x.from === c || x.to === c))?.account_id;
      if (onCard) add(funded, onCard, -(card.get(k) ?? 0) + (old.card.get(k) ?? 0) - uNew + uOld);
    }
    for (const [c, account] of payments) {
      const { before, after } = close(c, (touched.has(c) ? (activity.get(key(m, c)) ?? 0) : 0) + (funded.get(account) ?? 0));
      overspent += Math.max(0, -after) - Math.max(0, -before);
    }
    incomeSoFar += income.get(m) ?? 0;
    const change = incomeSoFar - overspentBefore;
    const before = r.months.get(m)!.to_be_budgeted;
    if (change) out.ready_to_assign.push({ month: m, before, after: before + change });
    overspentBefore += overspent;
  }
  return out;
}
