/**
 * What each insight tool's description says of its answer, as claims a meta-test checks on the demo
 * budgets (test/mcp/tool-claims.test.ts): kept beside the table (insights.ts), which holds no
 * function, one list per tool.
 */
import { at, everyRow, hasMembers, newestFirst, type Claim } from '../../api/operations/claims.js';

export const INSIGHT_CLAIMS = {
  spending_summary: [
    {
      says: 'Income and transfers between budget accounts are not spending',
      args: { group_by: 'payee' },
      check: (a, raw) => {
        const budget = new Set(raw.accounts.filter((x) => x.on_budget && !x.deleted).map((x) => `Transfer : ${x.name}`));
        return everyRow('rows', 'spending, not a move between budget accounts', (r) => !budget.has(String(r.name)))(a);
      },
    },
    { says: 'vs the previous period', check: hasMembers('previous_period.since', 'previous_period.until') },
  ],
  search_transactions: [
    {
      says: 'newest first, with count and totals',
      args: { limit: 100 },
      check: (a) => hasMembers('count', 'total')(a) ?? newestFirst(a, 'transactions'),
    },
    {
      says: '"Uncategorized": those without one',
      args: { category_id: 'Uncategorized', detail: 'full' },
      check: everyRow('transactions', 'uncategorized', (t) => t.category_name === 'Uncategorized'),
    },
  ],
  needs_attention: [
    { says: 'by kind', check: everyRow('attention', 'a kind with its count', (i) => typeof i.kind === 'string' && typeof i.count === 'number') },
  ],
  cash_flow: [
    {
      says: 'per complete month (current apart)',
      // Compact detail lists the months (their figures as columns, by_month), full detail gives rows.
      check: (a) => {
        const months = Array.isArray(a.months)
          ? a.months.map((m) => String(m !== null && typeof m === 'object' ? (m as Record<string, unknown>).month : m))
          : [];
        const late = months.filter((m) => m >= String(at(a, 'current_month.month')));
        return (
          hasMembers('current_month.month')(a) ??
          (!months.length ? 'no months to check' : late.length ? `${late.join(', ')} not before the current month` : undefined)
        );
      },
    },
    { says: 'runway, net worth', check: hasMembers('health.runway_months', 'health.net_worth') },
  ],
  upcoming: [
    {
      says: "each account's projected balance",
      check: everyRow(
        'occurrences',
        'with a projected balance',
        (o) => typeof o.projected_balance === 'number' && typeof o.projected_balance_formatted === 'string',
      ),
    },
  ],
  debt_payoff: [
    {
      says: 'payoff month, payments, interest per debt by strategy',
      check: everyRow('debts', 'with payoff, payments and interest', (d) => !!(d.payoff && d.payments && d.interest_formatted)),
    },
  ],
  targets_summary: [
    {
      says: 'underfunded now … vs Ready to Assign',
      check: hasMembers('totals.underfunded', 'totals.underfunded_formatted', 'totals.ready_to_assign', 'totals.ready_to_assign_formatted'),
    },
  ],
  review_transactions: [
    { says: 'suggested categories', check: (a) => (Array.isArray(a.columns) && a.columns.includes('category') ? undefined : 'no category column') },
  ],
  forecast: [{ says: 'first day below 0; next income', check: (a) => hasMembers('next_income.date')(a) ?? ('below_zero' in a ? undefined : 'no below_zero') }],
  recurring: [{ says: 'monthly cost, price rises, totals', check: hasMembers('totals', 'price_rose') }],
  credit_cards: [
    {
      says: 'each open card: owed, payment available, short or extra and why',
      check: everyRow('cards', 'with every figure', (c) =>
        ['owed', 'payment_available', 'shortfall', 'extra', 'overspent', 'carried'].every((k) => typeof c[k] === 'number'),
      ),
    },
    { says: 'totals', check: hasMembers('totals.owed', 'totals.payment_available', 'totals.shortfall', 'totals.extra') },
  ],
} satisfies Record<string, readonly Claim[]>;
