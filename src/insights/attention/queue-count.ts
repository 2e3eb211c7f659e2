/**
 * What a count of transactions counts, and what their total holds (issue 43): a transfer between
 * two budget accounts is two transactions, one in each account, so a queue holding both sides
 * counts one transfer twice ("12, of which 2 are the two sides of one transfer"), and its total
 * holds transfers that are not spending (cash back to the wallet, a move to savings), which are
 * given apart. One definition for needs_attention's unapproved kind, review_transactions' summary
 * and approve_transactions' queue after.
 */
import type * as E from '../../api/schemas/entities.js';
import type { Money } from '../core/format.js';
import type { BudgetView } from '../core/view.js';

export interface QueueFacts {
  count: number;
  /** Transactions of the list whose transfer's other side is in the list too. */
  transferSides: number;
  /** The transfers those sides make (each two sides, or more when a split's lines transfer). */
  transfers: number;
  total: number;
  /** The part of the total that moves money between accounts (lines YNAB counts as transfers). */
  transfersTotal: number;
}

/** The transaction a transfer's other side is: a transaction, or the split whose line it is. */
function ownerOf(view: BudgetView): (id: string) => string {
  let parents: Map<string, string> | undefined;
  return (id) => {
    if (view.replica.transactions.has(id)) return id;
    parents ??= new Map(view.lines.filter((l) => l.parent_id).map((l) => [l.id, l.parent_id!]));
    return parents.get(id) ?? id;
  };
}

/** The facts of a list of transactions: its count, its transfers' sides, its total and the transfers in it. */
export function queueFacts(view: BudgetView, list: readonly E.TransactionSummaryBase[]): QueueFacts {
  const ids = new Set(list.map((t) => t.id));
  const owner = ownerOf(view);
  const paired = new Set<string>();
  const pairs = new Set<string>();
  for (const t of list) {
    const others = [
      t.transfer_transaction_id,
      ...view.replica
        .linesOf(t.id)
        .filter((x) => !x.deleted)
        .map((x) => x.transfer_transaction_id),
    ];
    for (const other of others) {
      const o = other ? owner(other) : null;
      if (!o || o === t.id || !ids.has(o)) continue;
      paired.add(t.id).add(o);
      pairs.add([t.id, o].sort().join('|'));
    }
  }
  let total = 0;
  let transfersTotal = 0;
  for (const t of list) total += t.amount;
  for (const l of view.lines) if (ids.has(l.transaction.id) && l.kind === 'transfer') transfersTotal += l.amount;
  return { count: list.length, transferSides: paired.size, transfers: pairs.size, total, transfersTotal };
}

/**
 * The facts as answer fields: `transfer_sides`, the `total` and, when transfers are in it,
 * `transfers_total` and `excluding_transfers_total` (the rest: spending and income); and a line
 * saying so (`note`, "8, of which 2 are the two sides of one transfer") when there is anything to
 * say. Both sides of one transfer cancel out in a total; one side alone does not.
 */
export function queueFields(f: QueueFacts, money: Money, prefix = ''): Record<string, unknown> {
  const text = (v: number) => String(money('x', v).x_formatted ?? v); // the writer's text (an alert's writer has none)
  const sides =
    f.transferSides === 0
      ? ''
      : f.transferSides === 2 * f.transfers
        ? `, of which ${f.transferSides} are the two sides of ${f.transfers === 1 ? 'one transfer' : `${f.transfers} transfers`}`
        : `, of which ${f.transferSides} are sides of ${f.transfers} transfer${f.transfers === 1 ? '' : 's'} between them`;
  const moved = f.transfersTotal !== 0 ? `; the total includes ${text(f.transfersTotal)} of transfers` : '';
  return {
    [`${prefix}transfer_sides`]: f.transferSides,
    ...money(`${prefix}total`, f.total),
    ...(moved ? { ...money(`${prefix}transfers_total`, f.transfersTotal), ...money(`${prefix}excluding_transfers_total`, f.total - f.transfersTotal) } : {}),
    ...(sides || moved ? { [`${prefix}note`]: `${f.count}${sides}${moved}.` } : {}),
  };
}

/** queueFields of a list of transactions. */
export const queueCount = (view: BudgetView, list: readonly E.TransactionSummaryBase[], money: Money, prefix = '') =>
  queueFields(queueFacts(view, list), money, prefix);
