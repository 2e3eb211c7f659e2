/**
 * What a tool's description says of its answer, kept beside the definition as a list of claims
 * (issue 43 item 5): each in the description's words, with the call on the demo budgets that shows
 * it and a check of that answer. test/mcp/tool-claims.test.ts makes every call through a real MCP
 * client and holds every answer to its claims. Claims are not part of tools/list: the words are
 * already in the description, and every byte of a definition is paid for in every conversation.
 */
import { MONEY_NOTE } from './shared.js';

/** One thing a description says of the answer. */
export interface Claim {
  /** What the description says, in its words. */
  says: string;
  /** The call's arguments that show it on the demo budgets (names stand for ids; made at the call when dated); default none. */
  args?: Record<string, unknown> | (() => Record<string, unknown>);
  /** What in the answer does not hold to it, or undefined when it holds; `raw`: the budget as the API gives it. */
  check: (answer: Row, raw: RawBudget) => string | undefined;
}

/** What a check may compare with, read from the API apart from the tool: the budget's accounts. */
export interface RawBudget {
  accounts: { id: string; name: string; on_budget: boolean; closed: boolean; deleted: boolean }[];
}

/** An answer, or a row of one: its members are checked, not trusted to have a type. */
export type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => !!v && typeof v === 'object' && !Array.isArray(v);

/** The value at a dotted path of an answer (undefined when any step is missing). */
export function at(answer: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (isRow(v) ? v[k] : undefined), answer);
}

/** The rows of a list member: the list itself, or the categories of a month or of each group. */
export function rowsOf(answer: Row, member: string): Row[] {
  const value = answer[member];
  const categories = (v: unknown): Row[] | undefined => (isRow(v) && Array.isArray(v.categories) ? v.categories.filter(isRow) : undefined);
  if (Array.isArray(value)) return value.flatMap((v) => categories(v) ?? (isRow(v) ? [v] : []));
  return categories(value) ?? [];
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
    const missing = paths.filter((p) => at(answer, p) === undefined);
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
    if (!isRow(v)) return;
    const o = v;
    for (const [k, x] of Object.entries(o)) {
      if (typeof x === 'number' && MONEY_FIELD.test(k) && typeof o[`${k}_formatted`] !== 'string') bare.push(`${path}.${k}`);
      else visit(x, `${path}.${k}`);
    }
  };
  for (const [k, v] of Object.entries(answer)) if (k !== 'freshness' && k !== 'notices') visit(v, k);
  return bare.length ? `${bare.length} figures without their formatted text, e.g. ${bare.slice(0, 3).join(', ')}` : undefined;
}

/** "In milliunits." (shared.ts: MONEY_NOTE), shown by a call with `args`: every figure with its formatted text too (the instructions say so). */
export const moneyClaim = (args?: Record<string, unknown>): Claim => ({ says: MONEY_NOTE, args, check: moneyFormatted });

/** "split lines as their own rows": no row is a whole split (category "Split"), and some row is a line. */
export const splitLinesClaim = (args: Record<string, unknown>): Claim => ({
  says: 'split lines as their own rows',
  args,
  check: (a) =>
    everyRow('transactions', 'whole rows or lines', (t) => t.category_name !== 'Split')(a) ??
    (rowsOf(a, 'transactions').some((t) => t.type === 'subtransaction') ? undefined : 'no split line among the rows'),
});

/** Rows newest first, by date. */
export function newestFirst(answer: Row, member: string): string | undefined {
  const dates = rowsOf(answer, member).map((t) => String(t.date));
  const i = dates.findIndex((d, k) => k > 0 && d > dates[k - 1]!);
  return i < 0 ? undefined : `${dates[i]} after ${dates[i - 1]}`;
}
