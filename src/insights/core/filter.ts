/**
 * The transaction filter of search_transactions, shared by every insight (and by any tool that
 * acts on "the transactions matching …"): text in payee, memo, category and account names,
 * ignoring case and accents; the size of the amount in currency units and its direction; dates;
 * account, category and payee (by id or name, already turned into ids); cleared, approved and
 * flag. Split transactions are matched line by line, so a split counts where its lines do.
 */
import * as z from 'zod';
import { decimalToMilliunits, MoneyInputError } from '../../api/money.js';
import { IsoDate, TransactionClearedStatus } from '../../api/schemas/common.js';
import { foldText } from '../../shared/text.js';
import { ArgumentError, checkDateRange } from '../../shared/argument-error.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { ENUM_DOCS } from '../../shared/field-docs.js';
import type { BudgetView, Line } from './view.js';

const FLAGS = ['red', 'orange', 'yellow', 'green', 'blue', 'purple', 'none'] as const;

/** Dates, and whether tracking accounts count: shared by every insight that takes a window. */
export const WINDOW_ARGS = {
  since_date: IsoDate.optional().describe('YYYY-MM-DD.'),
  until_date: IsoDate.optional().describe('YYYY-MM-DD; default today.'),
};

const OFF_BUDGET = z.boolean().optional();
export const OFF_BUDGET_ARG = { include_off_budget: OFF_BUDGET.describe('Tracking accounts too.') };

/** Which account, category or payee: the filters spending_summary shares with search. */
export const SCOPE_ARGS = {
  // By id or exact name, as the instructions say once for every tool.
  account_id: NameOrId.optional(),
  category_id: NameOrId.optional().describe('"Uncategorized": those without one.'),
  payee_id: NameOrId.optional(),
};

const QUERY = z.string().min(1).max(200).optional();
const SIZE = z.number().min(0).optional();

export const FILTER_ARGS = {
  query: QUERY.describe('Text in payee, memo, category or account name (case and accents ignored).'),
  min_amount: SIZE.describe('At least this size, in currency units.'),
  max_amount: SIZE.describe('At most this size, in currency units.'),
  direction: z.enum(['outflow', 'inflow']).optional().describe(ENUM_DOCS.direction),
  ...WINDOW_ARGS,
  ...SCOPE_ARGS,
  cleared: TransactionClearedStatus.optional().describe(ENUM_DOCS.cleared),
  approved: z.boolean().optional(),
  flag_color: z.enum(FLAGS).optional().describe(ENUM_DOCS.flag_filter),
  ...OFF_BUDGET_ARG,
};

/**
 * The same filter in a tool that takes it "as search_transactions takes it" (approve and
 * recategorize), where search_transactions gives the count it needs: what search_transactions
 * says of its arguments is said shorter (every argument is described, for a host offering these
 * tools without search_transactions), and what every argument says wherever it is (a date's form,
 * an amount's unit, "Uncategorized") is kept, as test/mcp/arguments-described.test.ts holds.
 */
export const FILTER_ARGS_AS_SEARCH = {
  ...FILTER_ARGS,
  query: QUERY.describe('Text in names and memos.'),
  min_amount: SIZE.describe('In currency units.'),
  max_amount: SIZE.describe('In currency units.'),
  include_off_budget: OFF_BUDGET.describe('Tracking accounts too.'),
};

/** A filter, as FILTER_ARGS parses it (names already turned into ids). */
export type FilterArgs = z.infer<z.ZodObject<typeof FILTER_ARGS>>;

function size(value: number | undefined, name: string, digits: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return decimalToMilliunits(value, digits);
  } catch (e) {
    if (e instanceof MoneyInputError) throw new ArgumentError(`${name}: ${e.message}`);
    throw e;
  }
}

/** A predicate for lines matching the filter. `digits`: the currency's decimal digits. */
export function lineFilter(view: BudgetView, f: FilterArgs, digits: number | undefined): (line: Line) => boolean {
  checkDateRange(f);
  const min = size(f.min_amount, 'min_amount', digits);
  const max = size(f.max_amount, 'max_amount', digits);
  if (min !== undefined && max !== undefined && max < min) throw new ArgumentError(`max_amount ${f.max_amount} is below min_amount ${f.min_amount}`);
  const q = f.query ? foldText(f.query.trim()) : undefined;
  const text = (line: Line) =>
    [view.payeeName(line.payee_id), line.memo, line.parent_id ? line.transaction.memo : null, view.categoryName(line), view.accountName(line.account_id)].some(
      (s) => !!s && foldText(s).includes(q!),
    );
  return (line) => {
    const t = line.transaction;
    // A tracking account named is searched whatever include_off_budget says (closed ones too).
    if (!line.on_budget && !f.include_off_budget && f.account_id === undefined) return false;
    if (f.since_date !== undefined && line.date < f.since_date) return false;
    if (f.until_date !== undefined && line.date > f.until_date) return false;
    if (f.direction === 'outflow' ? line.amount >= 0 : f.direction === 'inflow' ? line.amount <= 0 : false) return false;
    const abs = Math.abs(line.amount);
    if ((min !== undefined && abs < min) || (max !== undefined && abs > max)) return false;
    if (f.account_id !== undefined && line.account_id !== f.account_id) return false;
    if (f.category_id !== undefined && view.categoryOf(line) !== f.category_id) return false;
    if (f.payee_id !== undefined && line.payee_id !== f.payee_id) return false;
    if (f.cleared !== undefined && t.cleared !== f.cleared) return false;
    if (f.approved !== undefined && t.approved !== f.approved) return false;
    if (f.flag_color !== undefined && (t.flag_color || 'none') !== f.flag_color) return false;
    return q === undefined || text(line);
  };
}

/**
 * The transactions a filter matches (each once, a split counted when any of its lines matches),
 * newest first: what a tool that acts on "the transactions matching …" works on.
 */
export function matchingTransactions(view: BudgetView, f: FilterArgs, digits: number | undefined): { ids: string[]; lines: number } {
  const match = lineFilter(view, f, digits);
  const ids = new Set<string>();
  const lines = view.lines.filter(match).sort((a, b) => (a.date > b.date ? -1 : a.date < b.date ? 1 : 0));
  for (const l of lines) ids.add(l.transaction.id);
  // `lines` is what search_transactions counts for the same filter (a split counts by its lines).
  return { ids: [...ids], lines: lines.length };
}
