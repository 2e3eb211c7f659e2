/**
 * What a rule may hold, checked wherever one comes in: set_rule (after names became ids) and an
 * imported JSON list. Everything wrong is said at once, with the rule's place, so a person can fix
 * an export by hand; a pattern is checked for safety (safety.ts) after its shape.
 */
import * as z from 'zod';
import { ArgumentError } from '../shared/argument-error.js';
import { checkPattern } from './safety.js';
import type { Rule } from './types.js';

const Id = z.string().trim().min(1).max(64);
const Milliunits = z.number().int().min(-1e15).max(1e15);

const MatchSchema = z
  .strictObject({
    text: z.strictObject({ kind: z.enum(['exact', 'prefix', 'contains', 'regex']), value: z.string().min(1).max(200) }).optional(),
    payee_id: Id.optional(),
    account_id: Id.optional(),
    amount: z
      .strictObject({ min: Milliunits.optional(), max: Milliunits.optional() })
      .refine((a) => a.min !== undefined || a.max !== undefined, 'give min, max or both')
      .refine((a) => a.min === undefined || a.max === undefined || a.min <= a.max, 'min is above max')
      .optional(),
    direction: z.enum(['inflow', 'outflow']).optional(),
  })
  .refine((m) => Object.values(m).some((v) => v !== undefined), 'a rule must match something: text, payee, account, amount or direction');

const SetSchema = z
  .strictObject({
    payee_name: z.string().trim().min(1).max(200).optional(),
    category_id: Id.optional(),
    memo: z.string().max(500).optional(),
    flag_color: z.enum(['red', 'orange', 'yellow', 'green', 'blue', 'purple']).nullable().optional(),
    approved: z.boolean().optional(),
  })
  .refine((s) => Object.values(s).some((v) => v !== undefined), 'a rule must set something: payee_name, category_id, memo, flag_color or approved');

/** A rule's id: `r` and a number. */
export const RULE_ID = /^r[1-9][0-9]{0,8}$/;

export const RuleInputSchema = z.strictObject({
  id: z.string().regex(RULE_ID, 'a rule id is r and a number, e.g. r7').optional(),
  match: MatchSchema,
  set: SetSchema,
  // Kept when a list is imported from an export.
  created_at: z.iso.datetime().optional(),
  applied_count: z.number().int().min(0).optional(),
});
export type RuleInput = z.infer<typeof RuleInputSchema>;

function describeIssues(error: z.ZodError, where: string): string {
  return error.issues.map((i) => `${where}${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
}

/** Drops keys whose value is undefined, so a stored rule holds only what it says. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** A rule as given, checked (shape, then pattern safety); `where` names it in messages (e.g. "rule 3: "). */
export function checkRule(input: unknown, where = ''): RuleInput {
  const parsed = RuleInputSchema.safeParse(input);
  if (!parsed.success) throw new ArgumentError(`${describeIssues(parsed.error, where)}`);
  const rule = parsed.data;
  if (rule.match.text?.kind === 'regex') {
    try {
      checkPattern(rule.match.text.value);
    } catch (e) {
      throw new ArgumentError(`${where}${(e as Error).message}`);
    }
  }
  return { ...rule, match: defined(rule.match), set: defined(rule.set) };
}

/** The rule to keep: its match and set as checked, with its id and history. */
export function ruleOf(input: RuleInput, id: string, createdAt: string, appliedCount: number): Rule {
  return { id, match: input.match as Rule['match'], set: input.set as Rule['set'], created_at: createdAt, applied_count: appliedCount };
}
