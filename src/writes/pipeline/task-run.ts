/**
 * A task tool's call: a write runs the pipeline (pipeline.ts) with the task's plan, and answers
 * with the task's result, its change_id and what happened on the way; a read (the undo journal's
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
    answer: async ({ plan, applied, sent, recorded: recording }) => {
      const recorded = await recording;
      const notices = [...(plan.notices ?? []), ...sent, ...(applied.notices ?? []), ...(recorded.notice ? [recorded.notice] : [])];
      return { ...applied.result, ...(recorded.change_id ? { change_id: recorded.change_id } : {}), ...(notices.length ? { notices } : {}) };
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
