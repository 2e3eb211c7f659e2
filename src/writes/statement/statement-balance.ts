/**
 * import_statement's balance check: the statement's own balance (a CSV's balance column, an OFX
 * LEDGERBAL, a camt closing balance) against the account's CLEARED balance in YNAB at that day,
 * as it will be after the import: what had cleared, the matched transactions the import marks
 * cleared (at the bank's amount where the user said a conflict row is one), and the new rows. A
 * bank's statement holds only what went through, so YNAB's uncleared transactions are left out
 * (compared with the working balance, they would look like a discrepancy and hide a doubled row
 * among them). The rows in conflict, not imported, are named apart: they are where a difference
 * comes from unless the user decides them.
 */
import type * as E from '../../api/schemas/entities.js';
import { moneyOf } from '../pipeline/after-state.js';
import type { PlanContext } from '../pipeline/pipeline.js';
import { accountTransactions, type RowMatch } from './statement-match.js';

export function balanceCheck(
  ctx: PlanContext,
  accountId: string,
  balance: { amount: number; date: string } | undefined,
  rows: { created: readonly RowMatch[]; updates: ReadonlyMap<RowMatch, Record<string, unknown>>; conflicts: readonly RowMatch[] },
) {
  if (!balance) return undefined;
  const day = balance.date;
  let ynab = 0;
  for (const t of accountTransactions(ctx.replica, accountId)) if (t.date <= day && t.cleared !== 'uncleared') ynab += t.amount;
  for (const [m, fields] of rows.updates) {
    const t: E.TransactionSummaryBase | undefined = ctx.replica.transactions.get(m.id!);
    if (!t || t.date > day) continue;
    const amount = typeof fields.amount === 'number' ? fields.amount : t.amount;
    ynab += t.cleared === 'uncleared' ? amount : amount - t.amount;
  }
  for (const m of rows.created) if (m.row.date <= day) ynab += m.row.amount;
  const held = rows.conflicts.filter((m) => m.row.date <= day);
  const inConflict = held.reduce((n, m) => n + m.row.amount, 0);
  return {
    date: day,
    compared_with: 'cleared balance',
    ...moneyOf(ctx.shown, 'statement', balance.amount),
    ...moneyOf(ctx.shown, 'ynab_cleared_after_import', ynab),
    ...moneyOf(ctx.shown, 'difference', balance.amount - ynab),
    ...(held.length ? { conflict_rows: held.length, ...moneyOf(ctx.shown, 'conflict_rows_total', inConflict) } : {}),
    basis: `the statement against the account's cleared balance on ${day} after this import, as a bank statement holds only what cleared: YNAB's uncleared transactions are left out${held.length ? `; ${held.length} row(s) in conflict are not imported until decided (conflicts)` : ''}`,
  };
}
