/**
 * A budget made up here (not a user's: nothing of anyone's budget is read to warm an instance),
 * that the warm-up saves, reads back and answers from (warm-up.ts, the answers step) and that its
 * made-up user's calls are answered from (warm-mcp.ts), so that the code of saved copies and
 * answers is compiled before the first user's call. The sandbox's demo budgets are not at hand
 * here: the product does not depend on its test double.
 *
 * It is shaped as a household's year is (warm-budget-rows.ts: paychecks, spending with and without
 * memos and flags, imported and unapproved rows, transfers in pairs, card and loan payments,
 * splits, scheduled transactions). Why so much: code is compiled for the rows it ran on. A budget
 * of two rows left the copies' decoding and the answers' builders cold, or compiled for one shape
 * of row, to be thrown away on the first real copy. The figures add up as YNAB's do (balances,
 * each month's activity, Ready to Assign): test/hosted/warm-budget.test.ts recomputes them.
 */
import type * as E from '../api/schemas/entities.js';
import { USD_FORMAT } from '../api/money.js';
import { BILLS, CARD, CHECKING, dayOf, monthOf, uuid, WARM_MONTHS, warmEntities, warmRows, type WarmEntities } from './warm-budget-rows.js';

export { WARM_MONTHS } from './warm-budget-rows.js';
export const WARM_BUDGET_ID = uuid('0a', 1);

const sum = (rows: { amount: number }[]) => rows.reduce((s, t) => s + t.amount, 0);

/** Each account with its balances: its rows' sums. */
function accountsOf(e: WarmEntities, rows: E.TransactionSummaryBase[], today: string): E.AccountBase[] {
  return e.accounts.map((a) => {
    const own = rows.filter((t) => t.account_id === a.id);
    const [balance, cleared] = [sum(own), sum(own.filter((t) => t.cleared !== 'uncleared'))];
    return {
      ...{ id: a.id, name: a.name, type: a.type, on_budget: a.on_budget, closed: false },
      note: a.type === 'autoLoan' ? 'Five years' : null,
      ...{ balance, cleared_balance: cleared, uncleared_balance: balance - cleared },
      transfer_payee_id: a.transferPayee,
      direct_import_linked: a.type === 'checking',
      direct_import_in_error: false,
      last_reconciled_at: `${monthOf(today, 1)}T12:00:00Z`,
      deleted: false,
    };
  });
}

/**
 * Each category's activity by month (`YYYY-MM-01|id`): its on-budget rows' amounts (a split's by
 * its parts); spending on the card also moves to the card's payment category, as YNAB does.
 */
function activityOf(e: WarmEntities, rows: Pick<ReturnType<typeof warmRows>, 'transactions' | 'subtransactions'>): Map<string, number> {
  const onBudget = new Set(e.accounts.filter((a) => a.on_budget).map((a) => a.id));
  const [card, checking, cardCategory] = [e.accounts[CARD]!.id, e.accounts[CHECKING]!.id, e.groups[1]!.categories[0]!.id];
  const activity = new Map<string, number>();
  const add = (month: string, c: string | null | undefined, amount: number) => {
    if (c) activity.set(`${month}|${c}`, (activity.get(`${month}|${c}`) ?? 0) + amount);
  };
  const parts = new Map<string, E.SubTransactionBase[]>();
  for (const s of rows.subtransactions) parts.set(s.transaction_id, [...(parts.get(s.transaction_id) ?? []), s]);
  for (const t of rows.transactions.filter((r) => onBudget.has(r.account_id))) {
    const month = `${t.date.slice(0, 7)}-01`;
    for (const line of parts.get(t.id) ?? [t]) add(month, line.category_id, line.amount);
    if (t.account_id === card && t.transfer_account_id !== checking) add(month, cardCategory, -t.amount);
  }
  return activity;
}

/** What each category is given a month: its bill, a set amount for the rest, nothing for the internal ones and the card's. */
function assigned(name: string, internal: boolean): number {
  const bill = BILLS.find(([, c]) => c === name);
  if (bill) return bill[2];
  if (internal || name === 'Visa') return 0;
  return name === 'Vacation' || name === 'Emergency Fund' ? 150_000 : 120_000;
}

/** The months, newest first as the export lists them: categories' figures carried month to month, Ready to Assign what income left. */
function monthsOf(e: WarmEntities, activity: Map<string, number>, today: string): E.MonthDetailBase[] {
  const months: E.MonthDetailBase[] = [];
  const carried = new Map<string, number>();
  let readyToAssign = 0;
  for (let m = WARM_MONTHS - 1; m >= 0; m--) {
    const month = monthOf(today, m);
    const categories: E.CategoryBase[] = e.groups.flatMap((g) =>
      g.categories.map((c) => {
        const spent = g.internal ? 0 : (activity.get(`${month}|${c.id}`) ?? 0);
        const budgeted = assigned(c.name, g.internal);
        const balance = (carried.get(c.id) ?? 0) + budgeted + spent;
        carried.set(c.id, Math.max(balance, 0)); // overspending is not carried (cash)
        const goal = c.name === 'Vacation' ? { goal_type: 'TBD' as const, goal_target: 1_800_000, goal_target_month: monthOf(today, -6) } : {};
        return {
          id: c.id,
          category_group_id: g.id,
          name: c.name,
          hidden: false,
          internal: g.internal,
          note: null,
          budgeted,
          activity: spent,
          balance,
          ...goal,
          deleted: false,
        };
      }),
    );
    const income = activity.get(`${month}|${e.category('Inflow: Ready to Assign')}`) ?? 0;
    const budgeted = categories.reduce((s, c) => s + c.budgeted, 0);
    readyToAssign += income - budgeted;
    const spent = categories.filter((c) => !c.internal).reduce((s, c) => s + c.activity, 0);
    months.push({
      month,
      note: null,
      income,
      budgeted,
      activity: spent,
      to_be_budgeted: readyToAssign,
      age_of_money: 20 + (m % 5),
      deleted: false,
      categories,
    });
  }
  return months.reverse();
}

/** The first four bills, scheduled monthly from checking. */
function scheduledOf(e: WarmEntities, today: string): E.ScheduledTransactionSummaryBase[] {
  const first = monthOf(today, WARM_MONTHS - 1);
  return BILLS.slice(0, 4).map(([payee, c, amount], n) => ({
    id: uuid('0d', n + 1),
    date_first: dayOf(first, 3 + n * 4, today),
    date_next: dayOf(monthOf(today, -1), 3 + n * 4, '9999-12-31'),
    frequency: 'monthly',
    amount: -amount,
    ...{ memo: null, flag_color: null, flag_name: null, transfer_account_id: null },
    account_id: e.accounts[CHECKING]!.id,
    payee_id: e.payees.get(payee)!,
    category_id: e.category(c),
    deleted: false,
  }));
}

/** The budget as YNAB's export of it, dated around `today` (YYYY-MM-DD). */
export function warmBudget(today: string): E.BudgetDetail {
  const e = warmEntities();
  const rows = warmRows(e, today);
  const months = monthsOf(e, activityOf(e, rows), today);
  return {
    id: WARM_BUDGET_ID,
    name: 'Warm-up',
    last_modified_on: `${today}T00:00:00Z`,
    first_month: monthOf(today, WARM_MONTHS - 1),
    last_month: monthOf(today, 0),
    date_format: { format: 'YYYY-MM-DD' },
    currency_format: USD_FORMAT,
    accounts: accountsOf(e, rows.transactions, today),
    payees: [
      ...[...e.payees].map(([name, id]) => ({ id, name, transfer_account_id: null, deleted: false })),
      ...e.accounts.map((a) => ({ id: a.transferPayee, name: `Transfer : ${a.name}`, transfer_account_id: a.id, deleted: false })),
    ],
    payee_locations: [],
    category_groups: e.groups.map((g) => ({ id: g.id, name: g.name, hidden: false, internal: g.internal, deleted: false })),
    categories: months[0]!.categories,
    months,
    transactions: rows.transactions,
    subtransactions: rows.subtransactions,
    scheduled_transactions: scheduledOf(e, today),
    scheduled_subtransactions: [],
  };
}
