/**
 * Turns zod validation issues into one specific sentence per problem: where it is (a dotted
 * path such as `transaction.subtransactions.0.amount`), what was wrong and what is expected.
 * Shared by the sandbox's 400 details and the MCP tools' input errors.
 */
import type * as z from 'zod';
import { numberTextHint } from './number-text.js';

/** `where: ` for an issue (a dotted path), or nothing for the top level itself ("unknown field x" says enough). */
function pathOf(issue: z.core.$ZodIssue, root: string): string {
  const parts = issue.path.map(String);
  const path = parts.length ? (root ? `${root}.${parts.join('.')}` : parts.join('.')) : root;
  return path ? `${path}: ` : '';
}

/** What was wrong with one value and what is expected, e.g. "must be at most 500 characters". */
export function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_type': {
      // A schema that says its own (a signed amount: signedAmount, ../shared/arg-schemas.ts) says it best.
      if (issue.message && !issue.message.startsWith('Invalid input')) return issue.message;
      // Text where a number goes ("12,50", "€12.50"): how to write it (the input is there when
      // parsed with reportInput). zod says "number" of an int field given text: the money twins
      // that take whole milliunits are known by name.
      const integer = issue.expected === 'int' || String(issue.path.at(-1)).endsWith('_milliunits');
      const asText = issue.expected === 'number' || issue.expected === 'int' ? numberTextHint(issue.input, integer) : undefined;
      if (asText) return asText;
      if (issue.expected === 'int') return 'must be an integer';
      const got = /received (\w+)/.exec(issue.message)?.[1];
      const noun = issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`;
      return `must be ${noun}${got ? ` (got ${got})` : ''}`;
    }
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters`;
      if (issue.origin === 'array') return `must hold at most ${String(issue.maximum)} items`;
      return `must be at most ${String(issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) === 1 ? 'must not be empty' : `must be at least ${String(issue.minimum)} characters`;
      if (issue.origin === 'array') return `must hold at least ${String(issue.minimum)} item${Number(issue.minimum) === 1 ? '' : 's'}`;
      return `must be at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

/**
 * "transaction.amount: must be an integer; transaction: unknown field \"foo\"" (first five problems):
 * the one format of validation messages, for the sandbox's 400 details and the tools' input errors.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root = ''): string {
  const lines = issues.slice(0, 5).map((i) => `${pathOf(i, root)}${describeIssue(i)}`);
  if (issues.length > 5) lines.push(`and ${issues.length - 5} more problem${issues.length - 5 === 1 ? '' : 's'}`);
  return lines.join('; ');
}
