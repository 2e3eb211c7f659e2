/**
 * A payee's transactions with every split as its lines (an operation row's `output.splitLines`).
 * The API lists a split whose payee is the payee as one row, category "Split", whose amount holds
 * every line, cash back moved to another account included; a model quoting that total over-reports
 * the spending at the payee. Here each line is its own row (the API's hybrid row of a line: the
 * split's date, account and status, the line's amount, payee, category and memo), and the answer
 * says how much of the total moved to other accounts, and what is left without it.
 */
import { formatMilliunits, sumMilliunits } from '../../api/money.js';
import { hybridFromLine } from '../../api/read/transactions.js';
import type * as E from '../../api/schemas/entities.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { CompactContext } from '../output/compact.js';

export interface SplitLines {
  data: Record<string, unknown>;
  /** The transfer part of the total and the total without it, when any row is a transfer. */
  extras: Record<string, unknown>;
  notices: string[];
}

/** `data[member]`'s splits as their lines (from the budget's copy the list was read from). */
export function withSplitLines(data: Record<string, unknown>, member: string, replica: BudgetReplica, ctx: CompactContext): SplitLines {
  const rows = data[member];
  if (!Array.isArray(rows)) return { data, extras: {}, notices: [] };
  const l = replica.lookup();
  const out: E.HybridTransaction[] = [];
  for (const row of rows as E.HybridTransaction[]) {
    const t = row.type === 'transaction' ? replica.transactions.get(row.id) : undefined;
    const lines = t ? replica.linesOf(t.id).filter((x) => !x.deleted) : [];
    if (!t || !lines.length || row.deleted) out.push(row);
    else for (const x of lines) out.push(hybridFromLine(l, x, t));
  }
  const live = out.filter((r) => !r.deleted);
  const moved = sumMilliunits(live.filter((r) => r.transfer_account_id).map((r) => r.amount));
  const count = live.filter((r) => r.transfer_account_id).length;
  if (!count) return { data: { ...data, [member]: out }, extras: {}, notices: [] };
  const total = sumMilliunits(live.map((r) => r.amount));
  const money = (m: number) => formatMilliunits(m, ctx.format);
  return {
    data: { ...data, [member]: out },
    extras: {
      transfers_total: moved,
      transfers_total_formatted: money(moved),
      excluding_transfers_total: total - moved,
      excluding_transfers_total_formatted: money(total - moved),
    },
    notices: [
      `The total ${money(total)} includes ${money(moved)} moved to other accounts (${count} transfer row${count > 1 ? 's' : ''}, e.g. cash back); without them it is ${money(total - moved)}.`,
    ],
  };
}
