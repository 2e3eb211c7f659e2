/**
 * fund_targets: YNAB's Auto-Assign through the API, which has none: one option (auto-assign.ts)
 * over a month's visible categories, or one group's or one category's, previewed category by
 * category with Ready to Assign after, and applied as one change (one change_id, undone by
 * undo_change). The API sets one month category per request, so it costs one request per category
 * changed, at most 60, and the quota must have room for all of them before it starts. Its plan
 * (fund-targets-plan.ts) loads with the first call.
 */
import { FUND_TARGETS_INPUT } from './auto-assign.js';
import { taskWrite } from '../pipeline/task.js';

export const FUND_TARGETS = taskWrite({
  input: FUND_TARGETS_INPUT,
  needsNow: true,
  plan: async (ctx, a) => (await import('./fund-targets-plan.js')).planFundTargets(ctx, a),
});
