/**
 * What a tool's description says of its answer, kept beside the definition as a list of claims
 * (issue 43 item 5): each in the description's words, with the call on the demo budgets that shows
 * it and a check of that answer. test/mcp/tool-claims.test.ts makes every call through a real MCP
 * client and holds every answer to its claims. Claims are not part of tools/list: the words are
 * already in the description, and every byte of a definition is paid for in every conversation.
 */

/** One thing a description says of the answer. */
export interface Claim {
  /** What the description says, in its words. */
  says: string;
  /** The call's arguments that show it on the demo budgets (names stand for ids; made at the call when dated); default none. */
  args?: Record<string, unknown> | (() => Record<string, unknown>);
  /** What in the answer does not hold to it, or undefined when it holds; `raw`: the budget as the API gives it. */
  check: (answer: Record<string, any>, raw: RawBudget) => string | undefined;
}

/** What a check may compare with, read from the API apart from the tool: the budget's accounts. */
export interface RawBudget {
  accounts: { name: string; on_budget: boolean; closed: boolean; deleted: boolean }[];
}

type Row = Record<string, any>;

/** The rows of a list member: the list itself, or the categories of a month or of each group. */
export function rowsOf(answer: Row, member: string): Row[] {
  const value = answer[member];
  if (Array.isArray(value)) return value.flatMap((v) => (Array.isArray(v?.categories) ? v.categories : [v]));
  if (value && Array.isArray(value.categories)) return value.categories;
  return [];
}

/** Every row of `member` is as `ok` says (and there is at least one). */
export function everyRow(member: string, what: string, ok: (row: Row) => boolean): (answer: Row) => string | undefined {
  return (answer) => {
    const rows = rowsOf(answer, member);
    if (!rows.length) return `no ${member} to check`;
    const bad = rows.filter((r) => !ok(r));
    return bad.length ? `${bad.length} of ${rows.length} ${member} are not ${what}: ${JSON.stringify(bad[0]).slice(0, 200)}` : undefined;
  };
}

/** The answer has these members (a dotted path reaches inside). */
export function hasMembers(...paths: string[]): (answer: Row) => string | undefined {
  return (answer) => {
    const missing = paths.filter((p) => p.split('.').reduce<any>((v, k) => (v == null ? undefined : v[k]), answer) === undefined);
    return missing.length ? `no ${missing.join(', ')} in the answer` : undefined;
  };
}

/** Money fields of the API's entities: the figures a compact answer gives in milliunits. */
const MONEY_FIELD =
  /^(amount|balance|cleared_balance|uncleared_balance|budgeted|activity|income|to_be_budgeted|goal_target|goal_under_funded|goal_overall_funded|goal_overall_left)$/;

/** Every money figure in milliunits has its formatted text beside it (`<field>_formatted`). */
export function moneyFormatted(answer: Row): string | undefined {
  const bare: string[] = [];
  const visit = (v: unknown, path: string) => {
    if (Array.isArray(v)) return v.forEach((x, i) => visit(x, `${path}[${i}]`));
    if (!v || typeof v !== 'object') return;
    const o = v as Row;
    for (const [k, x] of Object.entries(o)) {
      if (typeof x === 'number' && MONEY_FIELD.test(k) && typeof o[`${k}_formatted`] !== 'string') bare.push(`${path}.${k}`);
      else visit(x, `${path}.${k}`);
    }
  };
  for (const [k, v] of Object.entries(answer)) if (k !== 'freshness' && k !== 'notices') visit(v, k);
  return bare.length ? `${bare.length} figures without their formatted text, e.g. ${bare.slice(0, 3).join(', ')}` : undefined;
}

/** "Money in milliunits, also formatted." (shared.ts: MONEY_NOTE), shown by a call with `args`. */
export const moneyClaim = (args?: Record<string, unknown>): Claim => ({ says: 'Money in milliunits, also formatted.', args, check: moneyFormatted });
