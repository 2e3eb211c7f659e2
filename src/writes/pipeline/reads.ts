/**
 * How fresh the budget's copy must be, by what it is read for, said once here rather than as
 * milliseconds and flags beside each read:
 *  - answer: as reads are (the copy within the staleness bound);
 *  - direct-write: a write that goes ahead without a preview plans from the copy as our writes
 *    left it (their answers are merged in), so a run of writes makes no request before each;
 *  - held-write: a write the mode may hold, whose preview the user may see, or one computing
 *    from YNAB's figures (a month's assignments: move_money), plans from YNAB's state, read
 *    within the last second;
 *  - confirm: a confirmed write is checked against YNAB now (the entities must not have changed
 *    since the preview);
 *  - read-back: what a write just did, read from YNAB now (a transfer's other side, whether a
 *    lost assignment was made);
 *  - watch: an open events stream's own look at the budget, every WATCH_MS, for a copy no older
 *    than that (src/mcp/events/events-stream.ts).
 */
import { WATCH_MS } from '../../shared/watch.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { ReplicaManager } from '../../sync/manager.js';

export type ReadPurpose = 'answer' | 'direct-write' | 'held-write' | 'confirm' | 'read-back' | 'watch';

/** How old a copy a held write may plan from: a run of previews in one turn shares one sync. */
export const HELD_WRITE_MAX_AGE_MS = 1000;

/** maxAgeMs: how old the copy may be (undefined: the staleness bound); dirtyOk: a copy our own writes changed since its sync will do. */
const READS: Readonly<Record<ReadPurpose, { maxAgeMs?: number; dirtyOk: boolean }>> = {
  answer: { dirtyOk: false },
  'direct-write': { dirtyOk: true },
  'held-write': { maxAgeMs: HELD_WRITE_MAX_AGE_MS, dirtyOk: false },
  confirm: { maxAgeMs: 0, dirtyOk: false },
  'read-back': { maxAgeMs: 0, dirtyOk: false },
  watch: { maxAgeMs: WATCH_MS, dirtyOk: false },
};

/** The budget's copy, as fresh as the purpose needs (synced first when not); stale with a notice when it could not be synced. */
export function readFor(replicas: ReplicaManager, budgetId: string, purpose: ReadPurpose): Promise<{ replica: BudgetReplica; notice?: string }> {
  const { maxAgeMs, dirtyOk } = READS[purpose];
  return replicas.fresh(budgetId, maxAgeMs, { dirtyOk });
}

/**
 * What a write's plan reads for: a confirm (a token, or the client's dialog answered), else a
 * write that needs YNAB's state now (`nearNow`: the mode may hold it, or it computes from YNAB's
 * figures), else a direct write.
 */
export function planPurpose(confirming: boolean, nearNow: boolean): ReadPurpose {
  if (confirming) return 'confirm';
  return nearNow ? 'held-write' : 'direct-write';
}
