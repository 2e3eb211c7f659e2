/**
 * The rules tools' arguments and handlers (rows in src/mcp/tools/tasks.ts). Their work loads with
 * the first call (rule-run.ts, src/insights/review/suggest-rules.ts), not when the server starts.
 *
 * set_rule takes a rule as the store keeps it and list_rules shows it, `match` and `set`, so one
 * shape goes in, comes out, and is exported and imported (`rules`). Those two objects are left
 * open in the tool's schema (their keys are listed in its description: a schema for each costs
 * every conversation some 400 bytes) and checked, with a specific message, by src/rules/validate.ts.
 * Names of payees, accounts and categories inside them become ids like any tool's (../mcp/names.ts).
 */
import * as z from 'zod';
import { guardedString } from '../../shared/arg-schemas.js';
import { taskRead, taskWrite } from '../pipeline/task.js';

const RULE_ID = guardedString(20);
const OPEN = z.looseObject({});

const LIST_INPUT = {};
export const LIST_RULES = taskRead({ input: LIST_INPUT, read: async (ctx) => (await import('./rule-run.js')).listRules(ctx) });

const SET_INPUT = {
  id: RULE_ID.optional(),
  match: OPEN.optional(),
  set: OPEN.optional(),
  // Bounds checked, not advertised (every conversation pays for a schema keyword): position is clamped, the store caps the rules.
  position: z.int().optional(),
  rules: z
    .array(z.unknown())
    .refine((l) => l.length <= 500, { message: 'at most 500 rules' })
    .optional(),
  replace: z.boolean().optional(),
};
export const SET_RULE = taskWrite({ input: SET_INPUT, plan: async (ctx, a) => (await import('./rule-run.js')).planSetRule(ctx, a) });

const DELETE_INPUT = { id: RULE_ID };
export const DELETE_RULE = taskWrite({ input: DELETE_INPUT, plan: async (ctx, a) => (await import('./rule-run.js')).planDeleteRule(ctx, a) });

const SUGGEST_INPUT = { limit: z.int().min(1).max(50).optional() };
export const SUGGEST_RULES = taskRead({
  input: SUGGEST_INPUT,
  read: async (ctx, a) => (await import('../../insights/review/suggest-rules.js')).suggestRules(ctx.replica, await ctx.rules.list(ctx.budgetId), a.limit),
});
