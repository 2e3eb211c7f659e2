/**
 * The review queue's transactions, as needs_attention's unapproved and uncategorized checks
 * (attention.ts), the alerts' review.queue_grew (src/events/detect.ts) and review_transactions
 * count them: read one transaction or line at a time, with no list of every transaction (at
 * 100,000 transactions, each such list was held until the next full collection, issue 61).
 */
import type * as E from '../../api/schemas/entities.js';
import type { BudgetView, Line } from '../core/view.js';

export const newestFirst = (a: E.TransactionSummaryBase, b: E.TransactionSummaryBase) => (a.date > b.date ? -1 : a.date < b.date ? 1 : 0);

/** The unapproved transactions in the accounts `counted` takes, newest first. */
export function unapprovedIn(view: BudgetView, counted: (accountId: string) => boolean): E.TransactionSummaryBase[] {
  const out: E.TransactionSummaryBase[] = [];
  for (const t of view.replica.transactions.values()) if (!t.approved && counted(t.account_id)) out.push(t);
  return out.sort(newestFirst);
}

/** A line YNAB shows as uncategorized: budget activity without a category (transfers and starting balances never are). */
export const uncategorizedLine = (view: BudgetView, l: Line) =>
  l.kind === 'activity' && l.on_budget && (!l.category_id || l.category_id === view.uncategorizedId);

/** The transactions YNAB shows as uncategorized (reconciled ones too: reconciling sets no category), and their lines without a category. */
export function uncategorizedOf(view: BudgetView): { transactions: E.TransactionSummaryBase[]; lines: Line[] } {
  const lines = view.lines.filter((l) => uncategorizedLine(view, l));
  const ids = new Set(lines.map((l) => l.transaction.id));
  return { transactions: [...ids].map((id) => view.replica.transactions.get(id)!).sort(newestFirst), lines };
}
