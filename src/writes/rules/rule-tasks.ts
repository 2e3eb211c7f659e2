/**
 * The rules tools' arguments and handlers (rows in src/mcp/tools/tasks.ts). Their work loads with
 * the first call (rule-run.ts, src/insights/review/suggest-rules.ts), not when the server starts.
 *
 * set_rule takes a rule as the store keeps it and list_rules shows it, `match` and `set`, so one
 * shape goes in, comes out, and is exported and imported (`rules`). Those two objects are typed
 * in the tool's schema (issue 43: properties, not prose, so a host can check them), loosely: what
 * is wrong beyond a type (an unknown key, nothing to match) is said, with a specific message, by
 * src/rules/validate.ts.
 * Names of payees, accounts and categories inside them become ids like any tool's (../mcp/names.ts).
 */
import * as z from 'zod';
import { guardedString, PAGE_SIZE } from '../../shared/arg-schemas.js';
import { ENUM_DOCS } from '../../shared/field-docs.js';
import { taskRead, taskWrite } from '../pipeline/task.js';

const RULE_ID = guardedString(20);

/** What a rule matches: the keys of src/rules/types.ts's RuleMatch. */
const MATCH = z.looseObject({
  text: z
    .looseObject({ kind: z.enum(['exact', 'prefix', 'contains', 'regex']).describe(ENUM_DOCS.text_kind), value: z.string() })
    .optional()
    .describe("The bank's text (import payee name), else the payee name; case ignored."),
  payee_id: z.string().optional(),
  account_id: z.string().optional(),
  amount: z.looseObject({ min: z.int().optional(), max: z.int().optional() }).optional().describe('Milliunits, inclusive; outflows negative.'),
  direction: z.enum(['inflow', 'outflow']).optional().describe(ENUM_DOCS.direction),
});

/** What a rule sets: RuleSet's keys (flag_color null clears the flag). */
const SET = z.looseObject({
  payee_name: z.string().optional(),
  category_id: z.string().optional(),
  memo: z.string().optional(),
  flag_color: z.enum(['red', 'orange', 'yellow', 'green', 'blue', 'purple']).nullable().optional().describe(ENUM_DOCS.flag_rule),
  approved: z.boolean().optional(),
});

const LIST_INPUT = {};
export const LIST_RULES = taskRead({ input: LIST_INPUT, read: async (ctx) => (await import('./rule-run.js')).listRules(ctx) });

const SET_INPUT = {
  id: RULE_ID.optional(),
  match: MATCH.optional(),
  set: SET.optional(),
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

const SUGGEST_INPUT = { limit: PAGE_SIZE(50).optional() };
export const SUGGEST_RULES = taskRead({
  input: SUGGEST_INPUT,
  read: async (ctx, a) => (await import('../../insights/review/suggest-rules.js')).suggestRules(ctx.replica, await ctx.rules.list(ctx.budgetId), a.limit),
});
