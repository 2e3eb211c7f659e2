/**
 * The budget's month rule, written once: what each transaction line brings to its month
 * (FlowCollector) and how a month closes (closeMonth). derived.ts folds a budget's whole history
 * with them; the demo generator folds month by month with the same two pieces while it writes
 * the history, so the figures it plans with are the figures the API reports.
 *
 * YNAB's rules, as its help pages describe them (docs/sandbox.md, "Choices where the spec is silent"):
 *  - Cash spending comes out of its category. Overspending it (red) resets the category to zero
 *    next month and comes off next month's Ready to Assign.
 *  - Card spending comes out of its category too, and the funded part of it (what the category
 *    could pay for) moves to the card's payment category. When a category is overspent with cash
 *    and credit, the overspending counts as cash first; the rest is credit overspending (yellow):
 *    it stays on the card as debt the payment category does not cover, is not taken from Ready to
 *    Assign, and the category starts the next month at zero. Money assigned later in the month
 *    reduces the overspending, so it moves to the payment category then (the rule is monthly).
 *  - A card with a positive balance is cash: spending from it moves nothing until the balance
 *    turns negative, and only the part that becomes debt counts as credit.
 *  - A transfer between a card and a cash budget account moves the payment category with the
 *    debt: a payment lowers it, a draw or cash advance raises it (the cash is set aside to repay).
 *    A transfer between two cards moves neither payment category (a balance transfer).
 *  - Inflows to Ready to Assign on a card that pay off debt (its opening debt, rewards) change
 *    the debt only: they are not income, and Ready to Assign is untouched.
 *  - A payment category below zero (a payment larger than what it held) is cash overspending.
 */
import { monthOf } from '../../api/dates.js';
import type { CategoryFigures } from './goals.js';
import type { BudgetRec, CategoryRec, TransactionRec } from './records.js';

const CREDIT_ACCOUNT_TYPES = new Set(['creditCard', 'lineOfCredit']);

/** What the rules need to know about a budget's accounts and special categories. */
export interface BudgetShape {
  rta: string;
  uncategorized: string;
  /** Live on-budget accounts. */
  onBudget: Set<string>;
  /** Live on-budget credit accounts (credit cards and lines of credit). */
  credit: Set<string>;
}

export function budgetShape(b: BudgetRec): BudgetShape {
  const onBudget = new Set<string>();
  const credit = new Set<string>();
  for (const a of b.accounts.values()) {
    if (a.deleted || !a.on_budget) continue;
    onBudget.add(a.id);
    if (CREDIT_ACCOUNT_TYPES.has(a.type)) credit.add(a.id);
  }
  let rta = '';
  let uncategorized = '';
  for (const c of b.categories.values()) {
    if (c.role === 'ready_to_assign') rta = c.id;
    if (c.role === 'uncategorized') uncategorized = c.id;
  }
  return { rta, uncategorized, onBudget, credit };
}

/** Credit spending of one category on one card in one month. */
interface CardSpend {
  /** Debt the category's lines added (refunds that paid debt off count negative). */
  amount: number;
  /** Order of the latest of those lines: the latest spending is the unfunded part. */
  last: number;
}

/** What one month's transactions bring, gathered per month. */
export interface MonthFlows {
  /** Inflows to Ready to Assign that are money (not paid-off debt). */
  income: number;
  /** Activity per category, payment categories aside. */
  activity: Map<string, number>;
  /** Sum of `activity`. */
  total: number;
  /** The part of each category's activity that was not on credit. */
  cash: Map<string, number>;
  /** Per category, per credit account: credit spending. */
  credit: Map<string, Map<string, CardSpend>>;
  /** Per credit account: its payment category's activity from transfers with cash accounts. */
  transfers: Map<string, number>;
}

function emptyFlows(): MonthFlows {
  return { income: 0, activity: new Map(), total: 0, cash: new Map(), credit: new Map(), transfers: new Map() };
}

function add(map: Map<string, number>, key: string, amount: number) {
  map.set(key, (map.get(key) ?? 0) + amount);
}

/** A budget line of a transaction: its own fields, or a split line's. */
interface Line {
  amount: number;
  category_id: string | null;
  transfer_account_id: string | null;
}

/** A movement of budget cash, for the age of money. */
export interface CashMove {
  date: string;
  seq: number;
  amount: number;
}

/**
 * Gathers month flows from transactions. Transactions on a credit account must be added in date
 * order (then creation order), since which part of a line is credit depends on the balance
 * before it; other accounts may come in any order.
 */
export class FlowCollector {
  readonly months = new Map<string, MonthFlows>();
  /** Budget cash moves (age of money): cash spending and income, card payments and draws. */
  readonly cashMoves: CashMove[] = [];
  private readonly cardBalances = new Map<string, number>();
  private order = 0;

  constructor(readonly shape: BudgetShape) {}

  flows(month: string): MonthFlows {
    let f = this.months.get(month);
    if (!f) this.months.set(month, (f = emptyFlows()));
    return f;
  }

  add(t: TransactionRec): void {
    if (t.deleted || !this.shape.onBudget.has(t.account_id)) return;
    const live = t.subtransactions.filter((x) => !x.deleted);
    const lines: readonly Line[] = live.length ? live : [t];
    const f = this.flows(monthOf(t.date));
    const onCredit = this.shape.credit.has(t.account_id);
    let cashFlow = 0;
    for (const line of lines) {
      this.order += 1;
      const target = line.transfer_account_id;
      const internal = target !== null && this.shape.onBudget.has(target);
      if (!onCredit) {
        // A cash account: a transfer to another budget account is no budget event on this side.
        if (internal) continue;
        cashFlow += line.amount;
        if (line.category_id === this.shape.rta && this.shape.rta) f.income += line.amount;
        else this.spend(f, line, line.amount, 0, t.account_id);
        continue;
      }
      // A credit account: split the line into the part that changed the debt and the rest.
      const before = this.cardBalances.get(t.account_id) ?? 0;
      const after = before + line.amount;
      this.cardBalances.set(t.account_id, after);
      const creditPart = Math.max(0, -before) - Math.max(0, -after); // debt paid off (+) or added (-)
      const cashPart = line.amount - creditPart;
      if (internal) {
        if (this.shape.credit.has(target)) continue; // a balance transfer between cards
        add(f.transfers, t.account_id, -creditPart);
        cashFlow -= creditPart;
      } else if (line.category_id === this.shape.rta && this.shape.rta) {
        f.income += cashPart;
        cashFlow += cashPart;
      } else {
        this.spend(f, line, cashPart, creditPart, t.account_id);
        cashFlow += cashPart;
      }
    }
    if (cashFlow !== 0) this.cashMoves.push({ date: t.date, seq: t.seq, amount: cashFlow });
  }

  private spend(f: MonthFlows, line: Line, cashPart: number, creditPart: number, account: string): void {
    const category = line.category_id ?? this.shape.uncategorized;
    add(f.activity, category, line.amount);
    f.total += line.amount;
    add(f.cash, category, cashPart);
    if (creditPart === 0) return;
    let byCard = f.credit.get(category);
    if (!byCard) f.credit.set(category, (byCard = new Map()));
    const s = byCard.get(account) ?? { amount: 0, last: 0 };
    s.amount -= creditPart;
    if (creditPart < 0) s.last = this.order;
    byCard.set(account, s);
  }
}

/** Adds a budget's transactions to a collector in the order the rules need. */
export function collectFlows(b: BudgetRec, shape: BudgetShape): FlowCollector {
  const collector = new FlowCollector(shape);
  const onCredit: TransactionRec[] = [];
  for (const t of b.transactions.values()) {
    if (t.deleted) continue;
    if (shape.credit.has(t.account_id)) onCredit.push(t);
    else collector.add(t);
  }
  onCredit.sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : x.seq - y.seq));
  for (const t of onCredit) collector.add(t);
  return collector;
}

/** Where a month starts: each category's available at the end of the month before, and Ready to Assign's running total. */
export interface MonthStart {
  balances: Map<string, number>;
  /** Income less assignments less cash overspending, through the month before. */
  cumulative: number;
  /** The month before's cash overspending, taken from this month. */
  overspent: number;
}

export const emptyStart = (): MonthStart => ({ balances: new Map(), cumulative: 0, overspent: 0 });

export interface ClosedMonth {
  categories: Map<string, CategoryFigures>;
  income: number;
  budgeted: number;
  activity: number;
  /** Income less assignments less cash overspending, through this month. */
  cumulative: number;
  /** This month's cash overspending (taken from the next month's Ready to Assign). */
  overspent: number;
  /** Credit overspending this month, per category: debt the payment categories do not cover. */
  creditOverspent: Map<string, number>;
  /** Where the next month starts. */
  next: MonthStart;
}

/**
 * Closes one month. `categories` are the live categories other than Ready to Assign; `budgeted`
 * the month's assignments. Spending categories first, so that the funded card spending is known
 * when the payment categories are computed.
 */
export function closeMonth(
  categories: readonly CategoryRec[],
  start: MonthStart,
  flows: MonthFlows | undefined,
  budgeted: Readonly<Record<string, number>>,
): ClosedMonth {
  const f = flows ?? emptyFlows();
  const figures = new Map<string, CategoryFigures>();
  const balances = new Map<string, number>();
  const funded = new Map<string, number>();
  const creditOverspent = new Map<string, number>();
  let budgetedTotal = 0;
  let overspent = 0;
  const close = (c: CategoryRec, activity: number): number => {
    const carry = Math.max(0, start.balances.get(c.id) ?? 0);
    const assigned = budgeted[c.id] ?? 0;
    const balance = carry + assigned + activity;
    budgetedTotal += assigned;
    figures.set(c.id, { budgeted: assigned, activity, balance, carry });
    balances.set(c.id, balance);
    return balance;
  };
  for (const c of categories) {
    if (c.role === 'credit_card_payment') continue;
    const balance = close(c, f.activity.get(c.id) ?? 0);
    const byCard = f.credit.get(c.id);
    let unfunded = 0;
    if (byCard) {
      if (balance < 0) {
        // Overspent: the cash part of it first, the rest (up to the card spending) is credit.
        const cashSpent = Math.max(0, -(f.cash.get(c.id) ?? 0));
        let cardSpent = 0;
        for (const s of byCard.values()) cardSpent += Math.max(0, s.amount);
        unfunded = Math.min(Math.max(0, -balance - cashSpent), cardSpent);
      }
      if (unfunded > 0) creditOverspent.set(c.id, unfunded);
      let left = unfunded;
      for (const [card, s] of [...byCard].sort((x, y) => y[1].last - x[1].last)) {
        const unpaid = s.amount > 0 ? Math.min(left, s.amount) : 0;
        left -= unpaid;
        add(funded, card, s.amount - unpaid);
      }
    }
    if (balance < 0) overspent += -balance - unfunded;
  }
  for (const c of categories) {
    if (c.role !== 'credit_card_payment') continue;
    const card = c.linked_account_id ?? '';
    const balance = close(c, (f.transfers.get(card) ?? 0) + (funded.get(card) ?? 0));
    // Paying more than the payment category held is cash overspending.
    if (balance < 0) overspent += -balance;
  }
  const cumulative = start.cumulative + f.income - budgetedTotal - start.overspent;
  return {
    categories: figures,
    income: f.income,
    budgeted: budgetedTotal,
    activity: f.total,
    cumulative,
    overspent,
    creditOverspent,
    next: { balances, cumulative, overspent },
  };
}
