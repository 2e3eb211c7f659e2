/**
 * The 100 requests of a weekly budgeting session on the sandbox's "Demo Household", in order, for
 * the session bench (bench/session.bench.ts). Reads only: the peer registers writes only with
 * YNAB_ALLOW_WRITES. Each says how it is answered on ynab-mcp (the default tools, the one a model
 * trusting the definitions would call) and on the peer (its most direct tool for it, per its
 * definitions). The peer's tools take ids: an argument `{ $category: name }` (or `$payee`,
 * `$account`) is the id a model looks up once in the session with the peer's own search tool and
 * then remembers (session.bench.ts makes and counts that lookup). Dates are relative to today (UTC).
 */
import { day, monthEnd, monthStart } from './questions.js';

export type Step = [tool: string, args?: Record<string, unknown>];

export interface Intent {
  ask: string;
  ours: Step;
  /** One call, or the calls the peer's definitions need for it (balances and bills: two). */
  peer: Step[];
}

const year = `${new Date().getUTCFullYear()}-01-01`;
const cat = (name: string) => ({ $category: name });
const payee = (name: string) => ({ $payee: name });
const account = (name: string) => ({ $account: name });
const api = (operation: string, args?: Record<string, unknown>): Step => ['call_api', { operation, ...(args ? { args } : {}) }];

/** "What did we spend on X in month m": our summary of the category, the peer's month category. */
const spentIn = (ask: string, name: string, m: number): Intent => ({
  ask,
  ours: ['spending_summary', { month: monthStart(m), category_id: name }],
  peer: [['get_month_category', { month: monthStart(m), categoryId: cat(name) }]],
});
/** "What did we spend on X since": our summary, the peer's transactions of the category. */
const spentSince = (ask: string, name: string, since: string): Intent => ({
  ask,
  ours: ['spending_summary', { since_date: since, category_id: name }],
  peer: [['get_transactions', { categoryId: cat(name), sinceDate: since }]],
});
/** "How much at payee X since": our search's totals, the peer's search. */
const atPayee = (ask: string, name: string, since: string): Intent => ({
  ask,
  ours: ['search_transactions', { query: name, since_date: since }],
  peer: [['search_transactions', { query: name, sinceDate: since }]],
});
/** "How much is left in X": the category this month. */
const left = (ask: string, name: string): Intent => ({
  ask,
  ours: api('get_category', { category_id: name }),
  peer: [['get_category', { categoryId: cat(name) }]],
});
const balances = (ask: string): Intent => ({ ask, ours: api('list_accounts'), peer: [['list_accounts']] });
const monthView = (ask: string, m: number): Intent => ({
  ask,
  ours: ['get_month', { month: m === 0 ? 'current' : monthStart(m) }],
  peer: [['get_month', { month: monthStart(m) }]],
});
const bills: Step[] = [['list_scheduled_transactions'], ['list_accounts']];

export const SESSION_INTENTS: readonly Intent[] = [
  // Opening the week: where do we stand?
  { ask: 'Anything I should know about this week?', ours: ['needs_attention'], peer: [['get_budget_health']] },
  balances('How much is in checking?'),
  { ask: 'What is our net worth?', ours: ['cash_flow'], peer: [['list_accounts']] },
  balances('How much do we have in savings?'),
  monthView('How much is left to assign this month?', 0),
  { ask: 'Which budgets do I have?', ours: ['list_budgets'], peer: [['list_budgets']] },
  balances('How much cash is in the wallet?'),
  { ask: 'What do the credit cards owe?', ours: ['credit_cards'], peer: [['audit_credit_card_payments']] },
  // Needs attention
  { ask: 'What is overspent?', ours: ['needs_attention', { kind: 'overspent' }], peer: [['get_overspent_categories', { month: monthStart(0) }]] },
  { ask: 'How many transactions wait for approval?', ours: ['needs_attention', { kind: 'unapproved' }], peer: [['review_unapproved', { summary: true }]] },
  { ask: 'Show me the unapproved transactions.', ours: ['review_transactions'], peer: [['review_unapproved']] },
  {
    ask: 'Any uncategorized transactions?',
    ours: ['review_transactions', { status: 'uncategorized' }],
    peer: [['get_transactions', { type: 'uncategorized' }]],
  },
  { ask: 'Which accounts need reconciling?', ours: ['needs_attention', { kind: 'unreconciled' }], peer: [['audit_account_reconciliation']] },
  {
    ask: 'What is uncleared in checking?',
    ours: ['search_transactions', { account_id: 'Everyday Checking', cleared: 'uncleared' }],
    peer: [['audit_account_reconciliation', { accountId: account('Everyday Checking') }]],
  },
  { ask: 'Did any bill go up in price?', ours: ['needs_attention', { kind: 'price_increase' }], peer: [['detect_recurring_charges']] },
  { ask: 'Which categories are underfunded?', ours: ['needs_attention', { kind: 'underfunded' }], peer: [['get_month', { month: monthStart(0) }]] },
  {
    ask: 'Was anything overspent last month?',
    ours: ['get_month', { month: monthStart(-1) }],
    peer: [['get_overspent_categories', { month: monthStart(-1) }]],
  },
  // Spending by category
  spentIn('What did we spend on dining out last month?', 'Dining Out', -1),
  spentIn('How much have groceries cost this month?', 'Groceries', 0),
  spentIn('What did fuel cost two months ago?', 'Fuel', -2),
  spentIn('How much went on coffee last month?', 'Coffee', -1),
  spentIn('What did subscriptions cost this month?', 'Subscriptions', 0),
  spentIn('How much did we spend on fun money last month?', 'Fun Money', -1),
  spentIn('What did the electric bill come to last month?', 'Electric', -1),
  spentIn('How much did household supplies cost this month?', 'Household Supplies', 0),
  spentSince('What have we spent on pet care in the last 3 months?', 'Pet Care', monthStart(-3)),
  spentSince('How much did medical cost this year?', 'Medical', year),
  spentSince('What have we spent on fuel in the last 3 months?', 'Fuel', monthStart(-3)),
  spentSince('How much went on home maintenance this year?', 'Home Maintenance', year),
  spentSince('What did car maintenance cost this year?', 'Car Maintenance', year),
  { ask: 'Where did our money go this month?', ours: ['spending_summary'], peer: [['get_month', { month: monthStart(0) }]] },
  { ask: 'Where did the money go last month?', ours: ['spending_summary', { month: monthStart(-1) }], peer: [['get_month', { month: monthStart(-1) }]] },
  {
    ask: 'Spending by category group last month?',
    ours: ['spending_summary', { month: monthStart(-1), group_by: 'category_group' }],
    peer: [['get_month', { month: monthStart(-1) }]],
  },
  {
    ask: 'Spending by month this year?',
    ours: ['spending_summary', { since_date: year, group_by: 'month' }],
    peer: [['get_income_expense_summary', { sinceDate: year }]],
  },
  {
    ask: 'Which account did we spend most from last month?',
    ours: ['spending_summary', { month: monthStart(-1), group_by: 'account' }],
    peer: [['get_transactions', { month: monthStart(-1) }]],
  },
  {
    ask: 'How do groceries compare month by month over the last 6 months?',
    ours: ['spending_summary', { since_date: monthStart(-6), until_date: monthEnd(-1), category_id: 'Groceries', group_by: 'month' }],
    peer: [['get_transactions', { categoryId: cat('Groceries'), sinceDate: monthStart(-6), untilDate: monthEnd(-1) }]],
  },
  {
    ask: 'Is dining out this month above our usual?',
    ours: ['spending_summary', { category_id: 'Dining Out', compare_months: 3 }],
    peer: [['get_transactions', { categoryId: cat('Dining Out'), sinceDate: monthStart(-3) }]],
  },
  {
    ask: 'Are we spending more this year than last year?',
    ours: ['spending_summary', { since_date: year, compare: 'year_ago' }],
    peer: [['get_income_expense_summary', { sinceDate: `${new Date().getUTCFullYear() - 1}-01-01` }]],
  },
  // Spending by payee
  {
    ask: 'Who were our top payees last month?',
    ours: ['spending_summary', { month: monthStart(-1), group_by: 'payee' }],
    peer: [['get_transactions', { month: monthStart(-1) }]],
  },
  atPayee('How much have we spent at Costco this year?', 'Costco', year),
  atPayee('What did Amazon cost us in the last 3 months?', 'Amazon', monthStart(-3)),
  atPayee('How much at Starbucks this month?', 'Starbucks', monthStart(0)),
  atPayee('What did we spend at Whole Foods last month?', 'Whole Foods', monthStart(-1)),
  atPayee('How much on Chevron this year?', 'Chevron', year),
  atPayee('What did Target cost in the last 6 months?', 'Target', monthStart(-6)),
  atPayee('How much DoorDash in the last 3 months?', 'DoorDash', monthStart(-3)),
  atPayee('What have we spent at Home Depot this year?', 'Home Depot', year),
  {
    ask: 'Show our Safeway spending by category this year.',
    ours: ['spending_summary', { payee_id: 'Safeway', since_date: year }],
    peer: [['get_transactions', { payeeId: payee('Safeway'), sinceDate: year }]],
  },
  // Cash flow
  { ask: 'Are we saving money?', ours: ['cash_flow'], peer: [['get_income_expense_summary']] },
  {
    ask: 'Income against spending over the last 12 months?',
    ours: ['cash_flow', { months: 12 }],
    peer: [['get_income_expense_summary', { sinceDate: monthStart(-12) }]],
  },
  { ask: 'What is our savings rate this year?', ours: ['cash_flow', { since_date: 'year' }], peer: [['get_income_expense_summary', { sinceDate: year }]] },
  { ask: 'What is our age of money?', ours: ['cash_flow'], peer: [['get_budget_health']] },
  {
    ask: 'How much income came in last month?',
    ours: ['cash_flow', { months: 1 }],
    peer: [['get_income_expense_summary', { sinceDate: monthStart(-1), untilDate: monthEnd(-1) }]],
  },
  { ask: 'Income per month over the last 3 months?', ours: ['cash_flow', { months: 3 }], peer: [['list_months']] },
  // Upcoming bills
  { ask: 'What bills are coming up in the next two weeks?', ours: ['upcoming', { days: 14 }], peer: [['list_scheduled_transactions']] },
  { ask: 'Which bills are still due this month?', ours: ['upcoming', { to: monthEnd(0) }], peer: [['list_scheduled_transactions']] },
  { ask: 'Can checking cover the bills of the next 30 days?', ours: ['upcoming', { days: 30 }], peer: bills },
  { ask: 'When is rent due?', ours: ['upcoming', { days: 31 }], peer: [['list_scheduled_transactions']] },
  { ask: 'Will we make it to payday?', ours: ['forecast', { until_date: 'next payday' }], peer: bills },
  { ask: 'What will our balances be over the next 3 months?', ours: ['forecast', { months: 3 }], peer: bills },
  { ask: 'Any bill checking cannot cover?', ours: ['needs_attention', { kind: 'upcoming_shortfall' }], peer: bills },
  // Targets
  { ask: 'What do my targets need this month?', ours: ['targets_summary'], peer: [['get_month', { month: monthStart(0) }]] },
  { ask: 'What will targets need next month?', ours: ['targets_summary', { month: monthStart(1) }], peer: [['get_month', { month: monthStart(1) }]] },
  left('How is the vacation goal going?', 'Vacation'),
  left('How far along is the emergency fund?', 'Emergency Fund'),
  left('Where is the new car target?', 'New Car'),
  left('How much is left for groceries?', 'Groceries'),
  left('How much is left for dining out?', 'Dining Out'),
  left('How much is set aside for Christmas?', 'Christmas & Gifts'),
  // Credit cards and debt
  { ask: 'Is the Citi card payment funded?', ours: ['credit_cards'], peer: [['audit_credit_card_payments']] },
  { ask: 'Any card payment shortfall?', ours: ['needs_attention', { kind: 'card_payment_shortfall' }], peer: [['audit_credit_card_payments']] },
  {
    ask: 'What went on the Visa this month?',
    ours: ['search_transactions', { account_id: 'Visa Rewards', since_date: monthStart(0), direction: 'outflow' }],
    peer: [['get_transactions', { accountId: account('Visa Rewards'), sinceDate: monthStart(0) }]],
  },
  { ask: 'When will our debts be paid off?', ours: ['debt_payoff'], peer: [['list_accounts']] },
  { ask: 'And with $200 extra a month?', ours: ['debt_payoff', { extra_per_month: 200 }], peer: [['list_accounts']] },
  { ask: 'Avalanche or snowball with $500 extra?', ours: ['debt_payoff', { strategy: 'both', extra_per_month: 500 }], peer: [['list_accounts']] },
  balances('What is left on the cabin mortgage?'),
  {
    ask: 'What is the student loan balance?',
    ours: api('get_account', { account_id: 'Federal Student Loan' }),
    peer: [['get_account', { accountId: account('Federal Student Loan') }]],
  },
  // Recurring
  { ask: 'What subscriptions do we pay for?', ours: ['recurring'], peer: [['detect_recurring_charges']] },
  { ask: 'What do we pay every month?', ours: ['recurring'], peer: [['detect_recurring_charges']] },
  { ask: 'What do recurring charges cost a year?', ours: ['recurring'], peer: [['detect_recurring_charges', { monthsBack: 12 }]] },
  {
    ask: 'How much is Netflix now?',
    ours: ['search_transactions', { query: 'Netflix', limit: 5 }],
    peer: [['search_transactions', { query: 'Netflix', limit: 5 }]],
  },
  atPayee('What have Spotify charges come to this year?', 'Spotify', year),
  // Finding transactions
  {
    ask: 'Find the Home Depot purchase over $100.',
    ours: ['search_transactions', { query: 'Home Depot', min_amount: 100 }],
    peer: [['search_transactions', { query: 'Home Depot' }]],
  },
  {
    ask: 'Which transactions were exactly $45?',
    ours: ['search_transactions', { min_amount: 45, max_amount: 45 }],
    peer: [['search_transactions', { amount: 45 }]],
  },
  {
    ask: 'Anything over $500 last month?',
    ours: ['search_transactions', { min_amount: 500, since_date: monthStart(-1), until_date: monthEnd(-1) }],
    peer: [['get_transactions', { sinceDate: monthStart(-1), untilDate: monthEnd(-1) }]],
  },
  {
    ask: 'Find anything with "birthday" in the memo.',
    ours: ['search_transactions', { query: 'birthday' }],
    peer: [['search_transactions', { query: 'birthday' }]],
  },
  { ask: 'Which transactions are flagged red?', ours: ['search_transactions', { flag_color: 'red' }], peer: [['get_transactions', { sinceDate: day(-365) }]] },
  atPayee('What did we send by Venmo in the last 3 months?', 'Venmo', monthStart(-3)),
  {
    ask: 'What were the last transactions in checking?',
    ours: ['search_transactions', { account_id: 'Everyday Checking', limit: 10 }],
    peer: [['get_transactions', { accountId: account('Everyday Checking'), sinceDate: day(-14) }]],
  },
  {
    ask: 'Any refunds from Amazon?',
    ours: ['search_transactions', { query: 'Amazon', direction: 'inflow' }],
    peer: [['search_transactions', { query: 'Amazon' }]],
  },
  {
    ask: 'What did we pay cash for this month?',
    ours: ['search_transactions', { account_id: 'Wallet', since_date: monthStart(0) }],
    peer: [['get_transactions', { accountId: account('Wallet'), sinceDate: monthStart(0) }]],
  },
  {
    ask: 'How many transactions were uncategorized last month?',
    ours: ['search_transactions', { category_id: 'Uncategorized', since_date: monthStart(-1), until_date: monthEnd(-1) }],
    peer: [['get_transactions', { type: 'uncategorized', sinceDate: monthStart(-1) }]],
  },
  {
    ask: 'What came in from payroll this month?',
    ours: ['search_transactions', { query: 'Acme Corp Payroll', since_date: monthStart(0) }],
    peer: [['search_transactions', { query: 'Acme Corp Payroll', sinceDate: monthStart(0) }]],
  },
  // A month's overview
  monthView('Give me an overview of last month.', -1),
  monthView('And of two months ago?', -2),
  monthView('How much did we assign this month?', 0),
  { ask: 'How did each of the last months go?', ours: api('list_months'), peer: [['list_months']] },
  {
    ask: 'What money was moved between categories this month?',
    ours: api('list_money_movements_by_month', { month: 'current' }),
    peer: [['get_money_movements_by_month', { month: 'current' }]],
  },
  // Closing the week
  balances('What are all our balances now?'),
  { ask: 'What still needs my attention?', ours: ['needs_attention'], peer: [['get_budget_health']] },
];
