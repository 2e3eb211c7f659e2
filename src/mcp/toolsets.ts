/**
 * Which tools a server offers: toolsets (one per area of the API, plus `insights`, `planning`: the
 * insights that look ahead, `changes`: the undo journal and undo, `rules`: the house rules, and `alerts`: what changed since
 * last asked, for hosts without the Events extension) and the
 * `core` profile, the insight tools with the handful of API tools an assistant uses most, sized
 * for hosts that pay for every tool definition at the start of each conversation.
 * `list_budgets` is offered under every selection: whatever else is chosen, the assistant can
 * always find the budgets (and their ids) it may name.
 */
import { TOOLSETS } from '../api/operations/types.js';

export const MCP_TOOLSETS = [...TOOLSETS, 'insights', 'planning', 'changes', 'rules', 'alerts'] as const;
export type McpToolset = (typeof MCP_TOOLSETS)[number];

/** A selection: toolsets, and/or the `core` profile. */
export type Selection = ReadonlySet<McpToolset | 'core'>;

/**
 * The API tools of the core profile (all insight tools belong to it too), and move_money: moving
 * money between categories is what budgeting asks for most after logging and assigning.
 */
export const CORE_API_TOOLS: ReadonlySet<string> = new Set([
  'list_budgets',
  'list_accounts',
  'list_categories',
  'get_month',
  'create_transactions',
  'update_transactions',
  'update_month_category',
  'move_money',
  // An insight that sits with the transactions tools: reviewing the queue is a core task too.
  'review_transactions',
  // "Always file Shell as Fuel" is said in a normal conversation; listing and tidying rules is the rules toolset's.
  'set_rule',
  // Planning tools of the core profile (the rest of `planning` is offered by its toolset only).
  'forecast',
  'targets_summary',
]);

/** The toolsets offered when none are named: every one but `alerts`, for hosts without the Events extension (asked for by name, or "all"). */
export const DEFAULT_TOOLSETS: readonly McpToolset[] = MCP_TOOLSETS.filter((t) => t !== 'alerts');

/** Offered whatever the selection. */
const ALWAYS = new Set(['list_budgets']);

export function selected(selection: Selection, tool: { name: string; toolset: McpToolset }): boolean {
  if (ALWAYS.has(tool.name) || selection.has(tool.toolset)) return true;
  return selection.has('core') && (tool.toolset === 'insights' || CORE_API_TOOLS.has(tool.name));
}
