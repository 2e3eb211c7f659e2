/**
 * What an undo leaves (issue 43 item 8): each category it touched, with its assigned and available
 * after, and Ready to Assign after, so that no read is needed to report it. An undo may put back
 * assignments (month categories: that month) or transactions (their categories: the current
 * month, where their money shows now); either moves what is available, which only YNAB computes,
 * so the budget's copy is read back once (one delta request) after the undo.
 */
import { currentMonth } from '../../api/dates.js';
import type { EntityChange, Shown, State } from '../pipeline/entities.js';
import { readFor } from '../pipeline/reads.js';
import type { PlanContext } from '../pipeline/pipeline.js';

/** A figure as the answer vocabulary writes it: milliunits and the budget's formatted text. */
const pair = (s: Shown, name: string, milliunits: number) => ({ [name]: milliunits, [`${name}_formatted`]: s.money(milliunits) });

/** A transaction state's categories: its own and its split lines'. */
function categoriesOf(s: State | null): string[] {
  if (!s) return [];
  const lines = (s.subtransactions as State[] | undefined) ?? [];
  return [s.category_id, ...lines.map((x) => x.category_id)].filter((id): id is string => typeof id === 'string');
}

/** The (month, category) pairs the undo touched, in the order it touched them. */
export function touchedCategories(entities: readonly EntityChange[], today: string): { month: string; id: string }[] {
  const now = currentMonth(new Date(`${today}T00:00:00Z`));
  const seen = new Map<string, { month: string; id: string }>();
  for (const e of entities) {
    const pairs =
      e.kind === 'month_category'
        ? [{ month: e.id.split('/')[0]!, id: e.id.split('/')[1]! }]
        : e.kind === 'transaction'
          ? [...categoriesOf(e.before), ...categoriesOf(e.after)].map((id) => ({ month: now, id }))
          : [];
    for (const p of pairs) seen.set(`${p.month}/${p.id}`, p);
  }
  return [...seen.values()];
}

/**
 * The answer's after-state: `categories` (each with its month, assigned and available) and the
 * latest touched month's `ready_to_assign`, as YNAB has them after the undo; a notice instead
 * when the budget cannot be read back (the undo stands).
 */
export async function afterUndo(ctx: PlanContext, entities: readonly EntityChange[]): Promise<{ fields: Record<string, unknown>; notices: string[] }> {
  const touched = touchedCategories(entities, ctx.today);
  if (!touched.length) return { fields: {}, notices: [] };
  try {
    const { replica, notice } = await readFor(ctx.service.replicas, ctx.budgetId, 'read-back');
    // A copy that could not be synced predates the undo: what it says would be wrong.
    if (notice) throw new Error(notice);
    const categories = touched
      .map(({ month, id }) => ({ month, c: replica.monthCategory(month, id) }))
      .filter((x) => x.c && !x.c.deleted && !x.c.internal)
      .map(({ month, c }) => ({
        category_id: c!.id,
        name: c!.name,
        month,
        ...pair(ctx.shown, 'assigned', c!.budgeted),
        ...pair(ctx.shown, 'available', c!.balance),
      }));
    const month = touched
      .map((t) => t.month)
      .sort()
      .at(-1)!;
    const rta = replica.months.get(month)?.to_be_budgeted;
    return {
      fields: { categories, ...(rta === undefined ? {} : { month, ...pair(ctx.shown, 'ready_to_assign', rta) }) },
      notices: [],
    };
  } catch (e) {
    return {
      fields: {},
      notices: [`The undo was made, but the categories' figures after it could not be read back (${(e as Error).message}); get_month gives them.`],
    };
  }
}
