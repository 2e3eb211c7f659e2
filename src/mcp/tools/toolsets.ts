/**
 * Which tools a server offers: toolsets (one per area of the API, plus `insights`, `planning`: the
 * insights that look ahead, `changes`: the undo journal and undo, `rules`: the house rules, and `alerts`: what changed since
 * last asked, for hosts without the Events extension) and two profiles, `default` (when none is
 * named) and `core`, sized for hosts that pay for every tool definition at the start of each
 * conversation: each lists a few tools and answers every other one (but alerts) by name and
 * through `call_api`.
 * `list_budgets` is offered under every selection: whatever else is chosen, the assistant can
 * always find the budgets (and their ids) it may name.
 */
import { TOOLSETS } from '../../api/operations/types.js';

export const MCP_TOOLSETS = [...TOOLSETS, 'insights', 'planning', 'changes', 'rules', 'alerts'] as const;
export type McpToolset = (typeof MCP_TOOLSETS)[number];

/**
 * Offered only by a server given a rehearsal to apply (ServerState.rehearsing): no other list, nor
 * the README's counts or the MCPB manifest, pays for them.
 */
export const REHEARSAL_ONLY: ReadonlySet<string> = new Set(['apply_rehearsal']);

/** A selection: toolsets, and/or the `core` profile. */
export type Selection = ReadonlySet<McpToolset | 'core' | 'default'>;

/**
 * The tools the `core` profile lists (held to 15,000 bytes): the insights, forecast, and moving and
 * assigning money, what budgeting asks for most; every other tool is one `call_api` away.
 */
export const CORE_LISTED: ReadonlySet<string> = new Set([
  'list_budgets',
  'spending_summary',
  'search_transactions',
  'needs_attention',
  'credit_cards',
  'cash_flow',
  'upcoming',
  'review_transactions',
  'targets_summary',
  'forecast',
  'update_month_category',
  'move_money',
]);

/**
 * The default list (issue 59 item 3): what a host pays for at the start of every conversation, held
 * to 30,000 bytes. The insight, planning and task tools an assistant uses most, logging
 * transactions, and `call_api`, which runs every other tool (the 44 v1 operations among them) by
 * name in one call, so a host that never rereads tools/list still reaches each of them.
 */
export const DEFAULT_LISTED: ReadonlySet<string> = new Set([
  'list_budgets',
  'create_transactions',
  'get_month',
  'spending_summary',
  'search_transactions',
  'needs_attention',
  'credit_cards',
  'cash_flow',
  'upcoming',
  'review_transactions',
  'targets_summary',
  'forecast',
  'recurring',
  'debt_payoff',
  'create_transfer',
  'move_money',
  'fund_targets',
  'approve_transactions',
  'recategorize_transactions',
  'split_transaction',
  'list_recent_changes',
  'undo_change',
  'set_rule',
]);

/** The tool that runs any other tool of the server by name (mcp/tools/call-api.ts), listed with `default` and `core`. */
export const CALL_API = 'call_api';

/** The selection when none is named: the `default` profile. */
export const DEFAULT_TOOLSETS: readonly (McpToolset | 'core' | 'default')[] = ['default'];

/** Offered whatever the selection. */
const ALWAYS = new Set(['list_budgets']);

/** The profiles list a few tools and answer every other one (but the alerts toolset's) by name and through call_api. */
const profile = (selection: Selection) => selection.has('default') || selection.has('core');

/** Whether a tool is answered when called by name (its definition may not be listed: see `listed`). */
export function selected(selection: Selection, tool: { name: string; toolset: McpToolset }): boolean {
  if (ALWAYS.has(tool.name) || selection.has(tool.toolset)) return true;
  return profile(selection) && tool.toolset !== 'alerts';
}

/** Whether tools/list shows a tool's definition. */
export function listed(selection: Selection, tool: { name: string; toolset: McpToolset }): boolean {
  if (ALWAYS.has(tool.name) || selection.has(tool.toolset)) return true;
  if (selection.has('default') && DEFAULT_LISTED.has(tool.name)) return true;
  return selection.has('core') && CORE_LISTED.has(tool.name);
}
