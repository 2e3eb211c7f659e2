/**
 * The insight tools, declared as a table: each row is a name, title, description (when to use
 * it), its arguments, the members of its answer, and its compute function over the budget's
 * local copy (one file each in src/insights, beside the view of the budget as YNAB counts it,
 * periods, the transaction filter, grouping, schedules, attention checks). They are registered,
 * validated and answered by the same code as the API tools (definitions.ts, run.ts,
 * ../tool-answer.ts): the budget resolved by id, name or alias, names turned into ids,
 * freshness, the data notice.
 */
import * as z from 'zod';
import { CASH_FLOW_INPUT, cashFlow } from '../../insights/cash-flow/cash-flow.js';
import { FORECAST_INPUT, forecast } from '../../insights/forecast/forecast.js';
import { RECURRING_INPUT, recurring } from '../../insights/recurring/recurring.js';
import { DEBT_PAYOFF_INPUT, debtPayoff } from '../../insights/debt/debt-payoff.js';
import { NEEDS_ATTENTION_INPUT, needsAttention } from '../../insights/attention/needs-attention.js';
import { SEARCH_TRANSACTIONS_INPUT, searchTransactions } from '../../insights/spending/search-transactions.js';
import { SPENDING_SUMMARY_INPUT, spendingSummary } from '../../insights/spending/spending-summary.js';
import { REVIEW_TRANSACTIONS_INPUT, reviewTransactions } from '../../insights/review/review-transactions.js';
import { TARGETS_SUMMARY_INPUT, targetsSummary } from '../../insights/targets/targets-summary.js';
import type { InsightSpec } from '../../insights/core/types.js';
import { UPCOMING_INPUT, upcoming } from '../../insights/forecast/upcoming.js';
import { CREDIT_CARDS_INPUT, creditCards } from '../../insights/cards/credit-cards.js';
import type { McpToolset } from './toolsets.js';
import type { Claim } from '../../api/operations/claims.js';
import { INSIGHT_CLAIMS } from './insight-claims.js';

const MONEY = 'In milliunits.';
const rows = z.array(z.unknown());
const object = z.looseObject({});

/** A row: the insight, and its toolset when not `insights` (one that reviews transactions sits with them). */
export type InsightRow = InsightSpec & { toolset?: McpToolset; claims?: readonly Claim[] };

export const INSIGHTS: readonly InsightRow[] = [
  {
    name: 'spending_summary',
    claims: INSIGHT_CLAIMS.spending_summary,
    title: 'Spending summary',
    description: `Use for "how much did we spend on…": group_by category, category_group, payee, account or month, vs the previous period. Income and transfers between budget accounts are not spending. ${MONEY}`,
    input: SPENDING_SUMMARY_INPUT,
    output: { period: object, rows, totals: object },
    compute: spendingSummary,
  },
  {
    name: 'search_transactions',
    claims: INSIGHT_CLAIMS.search_transactions,
    title: 'Search transactions',
    description: `Use to find or total transactions by any filter below: newest first, with count and totals (split lines alone). ${MONEY}`,
    input: SEARCH_TRANSACTIONS_INPUT,
    output: { transactions: rows },
    compute: searchTransactions,
  },
  {
    name: 'needs_attention',
    claims: INSIGHT_CLAIMS.needs_attention,
    title: 'What needs attention',
    description: `Use for "what needs my attention", "anything new", by kind: unapproved, uncategorized, overspent, underfunded, card_payment_shortfall, upcoming_shortfall (bills not covered), unreconciled, price_increase, ready_to_assign; new alerts since last asked. ${MONEY}`,
    input: NEEDS_ATTENTION_INPUT,
    output: { attention: rows },
    reconciled: true,
    alerts: true,
    compute: needsAttention,
  },
  {
    name: 'credit_cards',
    claims: INSIGHT_CLAIMS.credit_cards,
    title: 'Credit cards',
    description: `Use for "what do our cards owe, what is set aside": each open card: owed, payment available, short or extra and why; totals. ${MONEY}`,
    input: CREDIT_CARDS_INPUT,
    output: { cards: rows, totals: object },
    compute: creditCards,
  },
  {
    name: 'cash_flow',
    claims: INSIGHT_CLAIMS.cash_flow,
    title: 'Cash flow',
    description: `Use for trends and "are we saving": income, spending, savings rate, age of money per complete month (current apart); runway, net worth. ${MONEY}`,
    input: CASH_FLOW_INPUT,
    output: { months: rows },
    compute: cashFlow,
  },
  {
    name: 'upcoming',
    claims: INSIGHT_CLAIMS.upcoming,
    title: 'Upcoming scheduled transactions',
    description: `Use for "what bills are coming": scheduled transactions due soon with each account's projected balance; overdue apart. ${MONEY}`,
    input: UPCOMING_INPUT,
    output: { occurrences: rows },
    compute: upcoming,
  },
  {
    name: 'debt_payoff',
    claims: INSIGHT_CLAIMS.debt_payoff,
    title: 'Debt payoff',
    description: 'Use for "when is the debt paid off": payoff month, payments, interest per debt by strategy. Cards: apr {"Visa":22.9}. Out in milliunits.',
    toolset: 'planning',
    input: DEBT_PAYOFF_INPUT,
    output: { debts: rows },
    compute: debtPayoff,
  },
  {
    name: 'targets_summary',
    claims: INSIGHT_CLAIMS.targets_summary,
    title: 'Targets summary',
    description: `Use for "what do my targets need": underfunded now, next month's estimate, vs Ready to Assign. ${MONEY}`,
    toolset: 'planning',
    input: TARGETS_SUMMARY_INPUT,
    output: { targets: rows },
    compute: targetsSummary,
  },
  {
    name: 'review_transactions',
    claims: INSIGHT_CLAIMS.review_transactions,
    title: 'Review transactions',
    description: 'Use to review unapproved or uncategorized transactions: suggested categories and flags. Amounts in milliunits.',
    toolset: 'transactions',
    input: REVIEW_TRANSACTIONS_INPUT,
    // Compact rows are grouped by account, full ones a list: the summary is the member both have.
    output: { summary: object },
    rules: true,
    compute: reviewTransactions,
  },
  {
    name: 'forecast',
    claims: INSIGHT_CLAIMS.forecast,
    title: 'Forecast',
    description: 'Use for "make it to payday?": balances by month, day; first day below 0; next income.',
    toolset: 'planning',
    input: FORECAST_INPUT,
    // The member compact and full answers both have.
    output: { accounts: rows },
    compute: forecast,
  },
  {
    name: 'recurring',
    claims: INSIGHT_CLAIMS.recurring,
    title: 'Recurring',
    description:
      'Use for "what do we pay every month": subscriptions, bills, income from schedules and history; monthly cost, price rises, totals. Milliunits.',
    toolset: 'planning',
    input: RECURRING_INPUT,
    output: { totals: object },
    compute: recurring,
  },
];
