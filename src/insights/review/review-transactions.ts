/**
 * review_transactions: the queue of transactions waiting for approval or a category, newest
 * first, each with a suggested category (a house rule's, ./rule-suggest.ts, else the history's,
 * ./suggest.ts) and what a reviewer should notice (./review-flags.ts); the summary counts and totals the whole queue, not only the page. Compact
 * rows name the payee, account and categories (approve_transactions takes names) and keep the
 * transaction's id, which approving needs; full detail gives every field the API gives a transaction.
 */
import * as z from 'zod';
import { formatMilliunits } from '../../api/money.js';
import type * as E from '../../api/schemas/entities.js';
import { IsoDate } from '../../api/schemas/common.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { decodeCursor, encodeCursor } from '../../shared/paging.js';
import { DETAIL_ARG, pagingArgs } from '../core/args.js';
import { uncategorizedLine } from '../attention/attention.js';
import { flows } from '../core/format.js';
import { queueCount } from '../attention/queue-count.js';
import { quotable } from '../attention/quotable.js';
import { fullTransaction } from '../core/full-row.js';
import { flagger } from './review-flags.js';
import { ruleSuggester } from './rule-suggest.js';
import { categorySuggester, type Suggestion } from './suggest.js';
import type { InsightArgs, InsightContext, InsightResult } from '../core/types.js';

const REVIEW_LIMIT = 25;

/**
 * What each value of a compact row is: confidence and basis speak for the suggested category, which
 * is given only where it is not the current one. A row stops at its last value: the flags come
 * before the suggestion's values, so a row with no suggestion (a transfer, an uncategorized new
 * payee) stops at its flags. Compact rows are grouped by account, newest first in each: 25 in under 4 KB.
 */
const COLUMNS = ['id', 'date', 'payee', 'amount', 'category', 'flags', 'confidence', 'basis (if not the payee history)', 'suggestion (if not category)'];

/**
 * A compact row's basis: a house rule's or a lookalike payee's; the payee's own history ("payee: 25
 * of 31", most rows) goes without saying there (full detail gives it), which keeps 25 rows in 4 KB.
 */
const compactBasis = (s: Suggestion | undefined) => (s && !s.basis.startsWith('payee: ') ? s.basis : null);

export const REVIEW_TRANSACTIONS_INPUT = {
  status: z.enum(['unapproved', 'uncategorized', 'both']).optional().describe('Default unapproved; both: either.'),
  account_id: NameOrId.optional(),
  since_date: IsoDate.optional().describe('From this date (YYYY-MM-DD).'),
  ...pagingArgs(String(REVIEW_LIMIT)),
  ...DETAIL_ARG,
};

type Args = InsightArgs<typeof REVIEW_TRANSACTIONS_INPUT>;

/** The transactions that count as uncategorized, as needs_attention counts them (a line without a category). */
const uncategorizedIds = (ctx: InsightContext) => new Set(ctx.view.lines.filter((l) => uncategorizedLine(ctx.view, l)).map((l) => l.transaction.id));

/** The transactions of the queue: unapproved (any account), uncategorized (`uncat`), or either. */
function queue(ctx: InsightContext, a: Args, uncat: ReadonlySet<string>): E.TransactionSummaryBase[] {
  const r = ctx.view.replica;
  const status = a.status ?? 'unapproved';
  const ids = new Set<string>();
  if (status !== 'uncategorized') for (const t of r.transactions.values()) if (!t.approved) ids.add(t.id);
  if (status !== 'unapproved') for (const id of uncat) ids.add(id);
  return [...ids]
    .map((id) => r.transactions.get(id)!)
    .filter((t) => (a.account_id === undefined || t.account_id === a.account_id) && (a.since_date === undefined || t.date >= a.since_date))
    .sort((x, y) => (x.date > y.date ? -1 : x.date < y.date ? 1 : x.id < y.id ? -1 : 1));
}

/** A compact row without its trailing nulls (a row stops at its last value). */
function trimmed(row: unknown[]): unknown[] {
  let n = row.length;
  while (n && row[n - 1] === null) n -= 1;
  return row.slice(0, n);
}

/**
 * A compact row's flags name a possible duplicate by its date, which a reviewer can quote: the twin
 * is in the row's account at the row's amount (./review-flags.ts), and settling it needs only this
 * row's id. Full detail gives the twin's id. A transfer candidate, in another account and needed to
 * link the two, keeps its id.
 */
function twinByDate(ctx: InsightContext, flags: Record<string, unknown>): Record<string, unknown> {
  const twin = flags.possible_duplicate;
  const date = typeof twin === 'string' ? ctx.view.replica.transactions.get(twin)?.date : undefined;
  return date ? { ...flags, possible_duplicate: date } : flags;
}

/** Compact rows under their account's name, in the page's order. */
function byAccount(ctx: InsightContext, page: E.TransactionSummaryBase[], rows: unknown[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  page.forEach((t, i) => (out[ctx.view.accountName(t.account_id)] ??= []).push(rows[i]));
  return out;
}

/** Whether a category can be set on the transaction at all: not a split, a transfer between budget accounts, or in a tracking account. */
function takesCategory(ctx: InsightContext, t: E.TransactionSummaryBase): boolean {
  const v = ctx.view;
  if (!v.onBudget(t.account_id) || v.replica.linesOf(t.id).some((x) => !x.deleted)) return false;
  return !(t.transfer_account_id && v.onBudget(t.transfer_account_id));
}

export function reviewTransactions(ctx: InsightContext, a: Args): InsightResult {
  const v = ctx.view;
  const full = a.detail === 'full';
  // Every figure with its formatted text (the answer vocabulary), full rows too.
  const money = quotable(ctx.format);
  const uncat = uncategorizedIds(ctx);
  const all = queue(ctx, a, uncat);
  const suggest = categorySuggester(v);
  // A house rule's category comes first (rule-suggest.ts), then the history's.
  const ruled = ruleSuggester(v, ctx.rules);
  const suggestions = new Map<string, Suggestion | undefined>();
  for (const t of all)
    if (takesCategory(ctx, t))
      suggestions.set(
        t.id,
        ruled?.(t) ??
          suggest({
            payee_id: t.payee_id,
            import_payee_name: t.import_payee_name,
            amount: t.amount,
            account_id: t.account_id,
            date: t.date,
            exclude_transaction_id: t.id,
          }),
      );
  const offset = decodeCursor(a.cursor, ctx.queryKey);
  const page = all.slice(offset, offset + (a.limit ?? REVIEW_LIMIT));
  const end = offset + page.length;
  const flagsOf = flagger(v);
  const categoryName = (id: string | null | undefined) => (id ? (v.replica.categories.get(id)?.name ?? null) : null);
  // The payee's usual amount is money as every figure: milliunits with its formatted text beside
  // it, in compact rows too (a keyed field of the vocabulary holds one kind; the flag is rare, so
  // 25 rows stay within 4 KB). A row that counts as uncategorized says so (issue 58 item 8): the
  // queue mixes both kinds.
  const flagged = page.map((t) => {
    const f: Record<string, unknown> = { ...(uncat.has(t.id) ? { uncategorized: true } : {}), ...flagsOf(t) };
    return typeof f.unusual_amount === 'number' ? { ...f, unusual_amount_formatted: formatMilliunits(f.unusual_amount, ctx.format) } : f;
  });
  const rows = page.map((t, i) => {
    const s = suggestions.get(t.id);
    const flags = full ? flagged[i]! : twinByDate(ctx, flagged[i]!);
    const split = v.replica.linesOf(t.id).some((x) => !x.deleted);
    const payee = v.payeeName(t.payee_id ?? null) ?? t.import_payee_name ?? null;
    const category = split ? 'Split' : categoryName(t.category_id);
    const shown = Object.keys(flags).length ? flags : null;
    if (!full) {
      const other = s && s.category_id !== t.category_id ? s.category : null;
      return trimmed([t.id, t.date, payee, formatMilliunits(t.amount, ctx.format), category, shown, s?.confidence ?? null, compactBasis(s), other]);
    }
    // Full detail: every field the API gives the transaction (full-row.ts), then what review adds.
    return { ...fullTransaction({ view: v, money }, t), suggestion: s ?? null, flags: shown };
  });
  let outflow = 0;
  let inflow = 0;
  for (const t of all)
    if (t.amount < 0) outflow += t.amount;
    else inflow += t.amount;
  const high = [...suggestions.values()].filter((s) => s?.confidence === 'high').length;
  return {
    structured: {
      ...(full ? { transactions: rows } : { columns: COLUMNS, transactions: byAccount(ctx, page, rows) }),
      // The whole queue: its count (and the transfers counted on both sides), its total (and the transfers in it, apart).
      summary: {
        count: all.length,
        uncategorized_count: all.filter((t) => uncat.has(t.id)).length,
        ...queueCount(v, all, money),
        ...(full ? flows(money, outflow, inflow, full) : {}),
        high_confidence: high,
      },
      returned: rows.length,
      has_more: end < all.length,
      ...(end < all.length ? { next_cursor: encodeCursor(end, ctx.queryKey) } : {}),
    },
  };
}
