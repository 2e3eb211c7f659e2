/**
 * What a tool result carries for its view, in the result's `_meta` (given to the view, not to
 * the model; only for clients that show views): the budget's id for drill-down calls, its
 * currency format for figures the result holds as milliunits only (a month's category rows),
 * and which drill-down tools this server offers.
 */
import type { CurrencyFormat } from '../../api/schemas/common.js';
import { DRILL_TOOLS, VIEW_META_KEY, type ViewMeta } from './table.js';

export function viewMeta(answer: { budgetId?: string; format?: CurrencyFormat | null }, offeredTools: readonly { name: string }[]): Record<string, unknown> {
  const meta: ViewMeta = {
    ...(answer.budgetId ? { budget_id: answer.budgetId } : {}),
    ...(answer.format ? { currency_format: answer.format } : {}),
    tools: DRILL_TOOLS.filter((name) => offeredTools.some((t) => t.name === name)),
  };
  return { [VIEW_META_KEY]: meta };
}
