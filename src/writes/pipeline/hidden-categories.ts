/**
 * Writes that file money under a hidden category are confirmed first (issue 58 item 7): a hidden
 * category is one the user put away ("Cancelled"), and a scheduled transaction, a transaction, a
 * split line, an assignment or a move of money filed there is most likely a mistake nobody would
 * see. The pipeline (pipeline.ts) adds the kind 'hidden' to such a plan, so the gate answers with
 * a preview and a confirm_token (policy.ts), with one notice per hidden category saying it is
 * hidden, and the summary (what the client's dialog asks) naming it; the same call with the
 * token writes it. What counts as filing money there:
 *  - a transaction or scheduled transaction created in it, or moved into it (its category, or a
 *    split line's, that was not there before);
 *  - a month's category whose assigned amount goes up (an assignment, the receiving side of a
 *    move). Money taken out of a hidden category is no filing there.
 * A category is hidden when it is, or when its group is.
 */
import type { BudgetReplica } from '../../sync/replica.js';
import type { EntityChange, State } from './entities.js';

const lineCategories = (s: State | null) => ((s?.subtransactions as State[] | undefined) ?? []).map((l) => l.category_id);

/** The category ids a change files money under that were not filed there before. */
function filedUnder(e: EntityChange): unknown[] {
  if (e.linked || !e.after) return [];
  if (e.kind === 'month_category') return (e.after.budgeted as number) > ((e.before?.budgeted as number | undefined) ?? 0) ? [e.after.category_id] : [];
  if (e.kind !== 'transaction' && e.kind !== 'scheduled_transaction') return [];
  const before = new Set([e.before?.category_id, ...lineCategories(e.before)]);
  return [e.after.category_id, ...lineCategories(e.after)].filter((id) => !before.has(id));
}

/**
 * The hidden categories the change files money under (none when it files under none): their
 * names for the summary (which the client's dialog shows too), and one notice per category.
 */
export function hiddenCategoriesOf(r: BudgetReplica, entities: readonly EntityChange[]): { names: string[]; notices: string[] } {
  const ids = new Set(entities.flatMap(filedUnder).filter((id): id is string => typeof id === 'string'));
  const out = { names: [] as string[], notices: [] as string[] };
  for (const id of ids) {
    const c = r.categories.get(id);
    const group = c ? r.categoryGroups.get(c.category_group_id) : undefined;
    if (!c || c.deleted || !(c.hidden || group?.hidden)) continue;
    const where = group ? ` (in ${group.name}${group.hidden ? ', a hidden group' : ''})` : '';
    out.names.push(JSON.stringify(c.name));
    out.notices.push(`${JSON.stringify(c.name)} is a hidden category${where}: confirm only if the user means to file money there.`);
  }
  return out;
}
