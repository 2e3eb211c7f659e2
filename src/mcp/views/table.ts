/**
 * The MCP Apps views, declared once: which tool's results each one shows, its `ui://` resource,
 * and what it says about itself. The server registers from this table (register.ts), the build
 * bundles one HTML file per row (scripts/build-views.ts → dist/views/<name>.html), and the
 * views' own code lives in views/<name>.ts.
 */

export interface ViewSpec {
  /** File name under dist/views (without .html) and the last segment of the resource's URI. */
  name: string;
  /** The tool whose results the view shows. */
  tool: string;
  title: string;
  description: string;
}

export const VIEWS: readonly ViewSpec[] = [
  {
    name: 'spending',
    tool: 'spending_summary',
    title: 'Spending breakdown',
    description: 'Bars per category, group, payee, account or month: this period against the previous one. A row opens its transactions.',
  },
  {
    name: 'cash-flow',
    tool: 'cash_flow',
    title: 'Cash flow',
    description: 'Income, spending and net worth month by month, as trend lines. A month opens where its money went.',
  },
  {
    name: 'month',
    tool: 'get_month',
    title: 'Budget month',
    description: "The month's categories (assigned, activity, available) with overspending marked, and Ready to Assign. A category opens its transactions.",
  },
  {
    name: 'attention',
    tool: 'needs_attention',
    title: 'Needs attention',
    description: 'What needs attention, by kind, with counts and examples. A kind opens the transactions behind it.',
  },
  {
    name: 'forecast',
    tool: 'forecast',
    title: 'Forecast',
    description: 'The balance ahead, day by day and at each month end, the first day below zero marked, and the next income.',
  },
  {
    name: 'debt-payoff',
    tool: 'debt_payoff',
    title: 'Debt payoff',
    description: 'What is owed month by month, minimums only against avalanche and snowball, and each debt’s payoff month and interest.',
  },
];

export const viewUri = (view: ViewSpec): string => `ui://ynab/${view.name}`;

/** The view of a tool, if it has one. */
export function viewOf(tool: string): ViewSpec | undefined {
  return VIEWS.find((v) => v.tool === tool);
}

/**
 * The read tools a view calls for a drill-down (through the host). A view offers a drill-down
 * only when the server offers the tool it needs (toolsets may leave it out).
 */
export const DRILL_TOOLS = ['search_transactions', 'spending_summary'] as const;

/** The `_meta` key of a tool result under which a view finds what the result leaves out. */
export const VIEW_META_KEY = 'ynab-mcp/view';

/**
 * What a view gets beside the result, in the result's `_meta` (which hosts give the view and not
 * the model): the budget's id (for drill-down calls), its currency format (to write figures the
 * result carries only as milliunits, such as a month's category rows), and the drill-down tools
 * the server offers.
 */
export interface ViewMeta {
  budget_id?: string;
  currency_format?: unknown;
  tools: string[];
}
