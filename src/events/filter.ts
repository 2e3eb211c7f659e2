/**
 * A subscription's filters (its arguments, catalog.ts) applied to an occurrence: a filter on an
 * entity the event type does not have does not apply; names match exactly, ignoring case.
 */
import type { BudgetReplica } from '../sync/replica.js';
import type { EventArguments } from './catalog.js';
import type { Occurrence } from './log.js';

/** Whether an occurrence passes a subscription's filters (a filter on an entity the type does not have does not apply). */
export function matches(o: Occurrence, args: EventArguments, replica: BudgetReplica): boolean {
  const d = o.data;
  const named = (wanted: readonly string[] | undefined, id: unknown, kind: 'categories' | 'accounts') => {
    if (!wanted?.length || typeof id !== 'string') return true;
    const entity = kind === 'categories' ? replica.categories.get(id) : replica.accounts.get(id);
    const name = entity?.name.toLowerCase();
    return wanted.some((w) => w === id || (name !== undefined && w.toLowerCase() === name));
  };
  if (!named(args.categories, d.category_id, 'categories')) return false;
  if (!named(args.accounts, d.account_id, 'accounts')) return false;
  if (args.min_milliunits !== undefined && typeof d.amount === 'number' && d.amount < args.min_milliunits) return false;
  return true;
}
