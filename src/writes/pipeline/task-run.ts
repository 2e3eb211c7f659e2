/**
 * A task tool's call: a write runs the pipeline (pipeline.ts) with the task's plan, and answers
 * with the task's result, the state after it of what it touched, its change_id and what happened
 * on the way; a read (the undo journal's
 * list) answers from the budget's copy as reads are.
 */
import type { Freshness } from '../../sync/manager.js';
import type { YnabService } from '../../sync/service.js';
import type { ConfirmInput } from './gate.js';
import { planContext, runWrite, type WriteOutcome, type WriteSetting } from './pipeline.js';
import { canHold, type WriteKind } from './policy.js';
import { readFor } from './reads.js';
import type { ReadTask, WriteTask } from './task.js';
import type { UndoJournal } from './undo-journal.js';
import type { RuleStore } from '../../rules/store.js';

export interface TaskCall<T> {
  task: T;
  tool: string;
  /** The kinds of write the tool can make (its row's). */
  kinds: readonly WriteKind[];
  budgetId: string;
  /** The tool's arguments, names already ids. */
  args: Record<string, unknown>;
}

export function runTask(s: WriteSetting, t: TaskCall<WriteTask>, confirm: ConfirmInput): Promise<WriteOutcome<Record<string, unknown>>> {
  return runWrite(s, {
    tool: t.tool,
    budgetId: t.budgetId,
    confirm,
    // A task that computes from YNAB's figures (a month's assignments), or whose preview the user
    // may see, reads the budget as it is now; any other reads the copy as our writes left it.
    nearNow: t.task.needsNow || canHold(s.mode, t.kinds),
    plan: (ctx) => t.task.plan(ctx, t.args),
    answer: async ({ plan, applied, sent, recorded: recording, after: reading }) => {
      const [recorded, after] = await Promise.all([recording, reading]);
      // The after-state every write gives (after-state.ts), where the task has not said it its own way.
      const ownsReady = Object.keys(applied.result).some((k) => k.startsWith('ready_to_assign'));
      const added = Object.fromEntries(
        Object.entries(after.fields).filter(([k]) => !(k in applied.result) && !(ownsReady && (k === 'month' || k.startsWith('ready_to_assign')))),
      );
      const notices = [...(plan.notices ?? []), ...sent, ...(applied.notices ?? []), ...after.notices, ...(recorded.notice ? [recorded.notice] : [])];
      return { ...applied.result, ...added, ...(recorded.change_id ? { change_id: recorded.change_id } : {}), ...(notices.length ? { notices } : {}) };
    },
  });
}

/** A read task's answer, how fresh the copy it read is, and why not fresher when it could not be synced. */
export async function readTask(
  s: { service: YnabService; changes: UndoJournal; rules: RuleStore },
  t: Omit<TaskCall<ReadTask>, 'kinds'>,
): Promise<{ body: Record<string, unknown>; freshness: Freshness; notice?: string }> {
  const { replica, notice } = await readFor(s.service.replicas, t.budgetId, t.task.needsNow ? 'held-write' : 'answer');
  const freshness = s.service.replicas.freshnessOf(replica, notice);
  const body = await t.task.read(planContext(t.tool, replica, s), t.args);
  return { body, freshness, ...(notice ? { notice } : {}) };
}
