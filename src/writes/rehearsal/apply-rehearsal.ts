/**
 * apply_rehearsal: a rehearsal's changes (all, or those named) re-planned against the real budget
 * and applied as one change. Its plan reads the budget as it is now, asks YNAB once what changed
 * since the copy was taken (the delta since the export's server_knowledge), decides each change
 * (decide.ts: conflicts and likely duplicates left out, named with both values) and previews the
 * whole set; it is always confirmed first (the 'rehearsal' kind), and the confirm token binds the
 * entities as they were, so a change in YNAB between preview and confirm spends it.
 */
import * as z from 'zod';
import { ApiError } from '../../api/client/errors.js';
import { guardedString } from '../../shared/arg-schemas.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { StepError } from '../pipeline/steps.js';
import { taskWrite, type TaskPlan } from '../pipeline/task.js';
import type { WriteKind } from '../pipeline/policy.js';
import type { ChangeRecord } from '../pipeline/undo-journal.js';
import { applyNet } from './apply.js';
import { changedInDelta, decide } from './decide.js';

/**
 * YNAB's API tells a token's access only by refusing a change, and a personal access token records
 * none: where it is not known, the preview says what a read-only one would do (apply.ts sends
 * nothing more once the first request is refused, so nothing is changed).
 */
const UNKNOWN_SCOPE =
  "this token's access (read-only or full) is not known: YNAB says a personal access token is read-only only by refusing a change. If it is, the confirm's first request is refused and nothing is changed.";

/** The apply's first request refused for a read-only token: nothing was sent after it. */
const READ_ONLY_REFUSED =
  'YNAB refused its first request: this token only has read-only access (403.3 unauthorized_scope). Nothing was changed and nothing more was sent; the server now works read-only. To apply the rehearsal, start the server with a token with full access (ynab-mcp login)';

/** Where the apply can be undone: its change_id is the real budget's, and serve --rehearse routes it there (src/mcp/tools/rehearsal-undo.ts). */
const UNDO_NOTICE = "change_id is a change of the real budget: undo_change with it puts everything back in YNAB, from this rehearsal's session too.";

const INPUT = { change_ids: z.array(guardedString(100)).min(1).max(100).optional().describe('Default: all.') };

/** The changes to apply, oldest first: those named, or every one the rehearsal kept (not undone, not an undo). */
function chosen(all: readonly ChangeRecord[], ids: readonly string[] | undefined): ChangeRecord[] {
  const live = all.filter((c) => c.undo?.state !== 'undone' && !c.undoes);
  if (!ids) return [...live].sort((a, b) => (a.id < b.id ? -1 : 1));
  const byId = new Map(all.map((c) => [c.id, c]));
  for (const id of ids) {
    const c = byId.get(id);
    if (!c) throw new ArgumentError(`change_ids: ${id} is not a change of this rehearsal; rehearsal_changes lists them`);
    if (!live.includes(c)) throw new ArgumentError(`change_ids: ${id} was undone in the rehearsal (or is an undo), so there is nothing of it to apply`);
  }
  return live.filter((c) => ids.includes(c.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
}

async function planApply(ctx: PlanContext, a: z.infer<z.ZodObject<typeof INPUT>>): Promise<TaskPlan> {
  const source = ctx.rehearsal;
  if (!source) throw new ArgumentError('apply_rehearsal applies a rehearsal: start the server with the rehearsal to apply (serve --rehearse)');
  if (source.budgetId !== ctx.budgetId) throw new ArgumentError(`budget_id: the rehearsal is a copy of budget ${source.budgetId}; apply it to that budget`);
  const all = await source.changes();
  if (all.length >= source.limit)
    throw new ArgumentError(
      `the rehearsal holds ${all.length} changes, and its journal keeps at most ${source.limit} changes: the earliest may have been dropped, so none is applied. Rehearse in parts: apply each part, then serve --rehearse-new for the next`,
    );
  const changes = chosen(all, a.change_ids);
  // One request: what YNAB changed since the copy was taken (merged into the copy too).
  const { delta } = await ctx.service.replicas.changesSince(ctx.budgetId, source.knowledge);
  const d = decide(changes, ctx.replica, changedInDelta(delta), ctx.shown, (await source.payees?.()) ?? new Map());
  const details = {
    applies: d.kept.map((c) => ({ change_id: c.id, tool: c.tool, summary: c.summary })),
    ...(d.left_out.length ? { left_out: d.left_out } : {}),
  };
  const left = [
    ...(d.left_out.length ? [`${d.left_out.length} of ${changes.length} changes left out (left_out says why): never applied over newer data.`] : []),
    ...(source.scope?.() === undefined ? [UNKNOWN_SCOPE] : []),
    ...(d.payees.size ? [`Makes in YNAB, by name, the payees the rehearsal made: ${[...d.payees.values()].map((n) => JSON.stringify(n)).join(', ')}.`] : []),
  ];
  const summary = `Apply ${d.kept.length} of ${changes.length} rehearsal changes (copy of ${source.takenAt})`;
  if (!d.net.length)
    return {
      tool: ctx.tool,
      budgetId: ctx.budgetId,
      args: {},
      summary,
      kinds: [],
      entities: [],
      answer: { applied: 0, ...details },
      notices: left,
      apply: () => Promise.reject(new StepError('nothing to apply')),
    };
  const kinds: WriteKind[] = ['rehearsal', ...new Set(d.net.map((e) => e.action))];
  return {
    tool: ctx.tool,
    budgetId: ctx.budgetId,
    args: { change_ids: d.kept.map((c) => c.id) },
    summary,
    kinds,
    entities: d.net,
    details,
    notices: left,
    apply: async (w) => {
      const done = await applyNet(d.net, w, d.payees).catch((e: unknown) => {
        const partial = (e as { doneSoFar?: typeof d.net }).doneSoFar;
        if (!partial && e instanceof ApiError && e.isReadOnlyScope) throw new StepError(READ_ONLY_REFUSED);
        throw partial
          ? new StepError(`applying the rehearsal stopped part way: ${(e as Error).message}`, { summary: `Part of: ${summary}`, entities: partial })
          : e;
      });
      return {
        result: { applied: d.kept.length, count: done.entities.length, ...details, ...(Object.keys(done.ids).length ? { ids: done.ids } : {}) },
        draft: { summary, entities: done.entities, ...(done.payees.length ? { payees_created: done.payees } : {}) },
        notices: [...left, UNDO_NOTICE],
      };
    },
  };
}

export const APPLY_REHEARSAL = taskWrite({ input: INPUT, needsNow: true, plan: planApply });
