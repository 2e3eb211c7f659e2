/**
 * A budget of a few entities, made up here (not a user's: nothing of anyone's budget is read to
 * warm an instance), that the warm-up (warm-up.ts) saves, reads back and answers from once, so
 * that the code of saved copies and answers is compiled before the first user's call. The
 * sandbox's demo budgets are not at hand here: the product does not depend on its test double.
 */
import type * as E from '../api/schemas/entities.js';
import { USD_FORMAT } from '../api/money.js';

const ids = {
  budget: '0a000000-0000-4000-8000-000000000001',
  checking: '0a000000-0000-4000-8000-000000000002',
  group: '0a000000-0000-4000-8000-000000000003',
  groceries: '0a000000-0000-4000-8000-000000000004',
  grocer: '0a000000-0000-4000-8000-000000000005',
  transferPayee: '0a000000-0000-4000-8000-000000000006',
};

export const WARM_BUDGET_ID = ids.budget;

/** The budget as YNAB's export of it, dated around `today` (YYYY-MM-DD). */
export function warmBudget(today: string): E.BudgetDetail {
  const month = `${today.slice(0, 7)}-01`;
  const category: E.CategoryBase = {
    id: ids.groceries,
    category_group_id: ids.group,
    name: 'Groceries',
    hidden: false,
    internal: false,
    budgeted: 300_000,
    activity: -42_500,
    balance: 257_500,
    deleted: false,
  };
  return {
    id: ids.budget,
    name: 'Warm-up',
    last_modified_on: `${today}T00:00:00Z`,
    first_month: month,
    last_month: month,
    date_format: { format: 'YYYY-MM-DD' },
    currency_format: USD_FORMAT,
    accounts: [
      {
        id: ids.checking,
        name: 'Checking',
        type: 'checking',
        on_budget: true,
        closed: false,
        balance: 957_500,
        cleared_balance: 957_500,
        uncleared_balance: 0,
        transfer_payee_id: ids.transferPayee,
        deleted: false,
      },
    ],
    payees: [
      { id: ids.grocer, name: 'Grocer', deleted: false },
      { id: ids.transferPayee, name: 'Transfer : Checking', transfer_account_id: ids.checking, deleted: false },
    ],
    payee_locations: [],
    category_groups: [{ id: ids.group, name: 'Everyday', hidden: false, internal: false, deleted: false }],
    categories: [category],
    months: [{ month, income: 1_000_000, budgeted: 300_000, activity: -42_500, to_be_budgeted: 700_000, deleted: false, categories: [category] }],
    transactions: [1, 2].map((n) => ({
      id: `0b000000-0000-4000-8000-00000000000${n}`,
      date: today,
      amount: n === 1 ? 1_000_000 : -42_500,
      cleared: 'cleared' as const,
      approved: true,
      account_id: ids.checking,
      payee_id: ids.grocer,
      category_id: n === 1 ? null : ids.groceries,
      deleted: false,
    })),
    subtransactions: [],
    scheduled_transactions: [],
    scheduled_subtransactions: [],
  };
}
