/**
 * No silent no-ops when transactions are updated (update_transaction, update_transactions).
 *  - Before sending: the API cannot change the amount or the lines of an existing split (it keeps
 *    the amount and refuses new lines: "updating subtransactions on an existing split is not
 *    supported", ynab-sdk-js#149; the spec says a split's amount is ignored on update). A change to either is refused here,
 *    for the whole request, saying so and what works instead, rather than answered with a
 *    success that changed nothing.
 *  - After the answer: every field sent is compared with what the answer shows. A field the
 *    service ignored (a split's date or category, payee_name next to a payee_id, a Credit Card
 *    Payment category, anything else) is reported in the result (`not_applied` and a notice);
 *    when nothing that was sent took effect, the call fails with the reasons instead.
 */
import { UnsupportedChangeError } from '../api/client/errors.js';
import type { CallArgs } from '../api/client/client.js';
import { operation, type Operation, type OperationId } from '../api/operations/index.js';
import type * as B from '../api/schemas/bodies.js';
import type * as E from '../api/schemas/entities.js';
import type { ReplicaManager } from './manager.js';
import type { BudgetReplica } from './replica.js';

/** The fields an update sets on one transaction, as its body holds them (the schema checked it). */
type Change = B.SaveTransactionWithOptionalFields;

/** What an update's answer shows: the transaction, or the transactions. */
type Answered = { transaction?: E.TransactionDetail; transactions?: E.TransactionDetail[] };

interface Item {
  /** Position in update_transactions' list; undefined for update_transaction. */
  index?: number;
  id?: string;
  importId?: string;
  change: Change;
}

export interface NotApplied {
  transaction_id: string;
  field: string;
  sent: unknown;
  shown: unknown;
  reason: string;
}

/** What works instead: split_transaction, which deletes and re-creates (or the same by hand, where it is not offered). */
export const SPLIT_EDIT_ADVICE =
  'What works: split_transaction with the new lines (and amount): it deletes the split and creates it again, keeping its date, payee, memo, cleared, approved, flag and import id where YNAB allows, after a preview; or by hand, delete the split (delete_transaction) and create it again with the new amount and lines (create_transactions). Its memo, payee, account, cleared, approved and flag can be changed here.';

/** The transactions an update changes: one named by its path, or each of a list (by id or import_id). */
function items(op: Operation, args: CallArgs): Item[] {
  const body = (args.body ?? {}) as { transaction?: B.ExistingTransaction; transactions?: B.SaveTransactionWithIdOrImportId[] };
  if (op.params.includes('transaction_id')) return [{ id: args.params?.transaction_id, change: { ...(body.transaction ?? {}) } }];
  return (body.transactions ?? []).map((t, index) => {
    const { id: tid, import_id: importId, ...change } = t;
    return { index, id: tid ?? undefined, importId: importId ?? undefined, change };
  });
}

function named(item: Item, id: string): string {
  return item.index === undefined ? `transaction ${id}` : `transactions[${item.index}] (transaction ${id})`;
}

function resolve(item: Item, replica: BudgetReplica | undefined): E.TransactionSummaryBase | undefined {
  if (!replica) return undefined;
  if (item.id) return replica.transactions.get(item.id);
  const found = [...replica.transactions.values()].filter(
    (t) => !t.deleted && t.import_id === item.importId && (!item.change.account_id || t.account_id === item.change.account_id),
  );
  return found.length === 1 ? found[0] : undefined;
}

function isSplit(replica: BudgetReplica, t: E.TransactionSummaryBase): boolean {
  return replica.linesOf(t.id).some((x) => !x.deleted);
}

/** Refuses split edits the API cannot make; returns the check to run on the answer (updates of transactions: the row's `write.exactlyOnce` is compare). */
export async function checkTransactionUpdate(
  id: OperationId,
  args: CallArgs,
  replicas: ReplicaManager,
): Promise<((data: Answered) => { notApplied: NotApplied[]; notices: string[] }) | undefined> {
  const op = operation(id);
  if (op.write?.exactlyOnce !== 'compare') return undefined;
  const list = items(op, args);
  const budget = args.params?.budget_id;
  // Only a change of amount or lines can be refused; only then is a fresh copy worth a request.
  const risky = list.some((i) => i.change.amount !== undefined || i.change.subtransactions?.length);
  let replica = budget ? replicas.peek(budget) : undefined;
  if (risky && budget) replica = (await replicas.fresh(budget)).replica;
  const splits = new Set<string>();
  if (replica) {
    for (const item of list) {
      const t = resolve(item, replica);
      if (!t || !isSplit(replica, t)) continue;
      splits.add(t.id);
      const lines = (item.change.subtransactions?.length ?? 0) > 0;
      const amount = item.change.amount !== undefined && item.change.amount !== t.amount;
      if (lines || amount) {
        const what = lines && amount ? 'the amount and the lines (subtransactions)' : lines ? 'the lines (subtransactions)' : 'the amount';
        throw new UnsupportedChangeError(
          `${named(item, t.id)} is a split, and YNAB's API cannot change ${what} of an existing split (it would keep the old ${amount ? 'amount' : 'lines'} and report success). ${SPLIT_EDIT_ADVICE}`,
        );
      }
    }
  }
  return (data) => compare(list, data, splits);
}

const TEXT = (v: unknown) => (typeof v === 'string' ? v.trim() : v);
const norm = (field: string, v: unknown) => (v === undefined || (field === 'flag_color' && v === '') ? null : field === 'memo' ? TEXT(v) : v);

function reasonFor(field: string, item: Item, split: boolean): string {
  if (split && field === 'amount')
    return "YNAB keeps a split's amount; to change it, rewrite the split with split_transaction (amount and lines), or delete it (delete_transaction) and create it again (create_transactions)";
  if (split && field === 'date')
    return "YNAB keeps a split's date; to change it, delete the split (delete_transaction) and create it again (create_transactions)";
  if (split && field === 'category_id') return 'a split has no single category: its lines carry the categories';
  if (field === 'payee_name' && item.change.payee_id) return 'YNAB ignores payee_name when payee_id is given';
  if (field === 'category_id')
    return 'YNAB ignores this category here (a Credit Card Payment category, a transfer between budget accounts, or an account off budget)';
  return 'YNAB did not apply it';
}

function sameLines(sent: B.SaveSubTransaction[], shown: E.SubTransactionBase[] | undefined): boolean {
  const live = (shown ?? [])
    .filter((x) => !x.deleted)
    .map((x) => x.amount)
    .sort((a, b) => a - b);
  const wanted = sent.map((x) => x.amount).sort((a, b) => a - b);
  return live.length === wanted.length && live.every((a, i) => a === wanted[i]);
}

function compare(list: Item[], data: Answered, splits: Set<string>): { notApplied: NotApplied[]; notices: string[] } {
  const answered: E.TransactionDetail[] = [...(data.transaction ? [data.transaction] : []), ...(Array.isArray(data.transactions) ? data.transactions : [])];
  const notApplied: NotApplied[] = [];
  let fields = 0;
  for (const item of list) {
    const shown = answered.find((t) =>
      item.id ? t.id === item.id : t.import_id === item.importId && (!item.change.account_id || t.account_id === item.change.account_id),
    );
    if (!shown) continue;
    const split = splits.has(shown.id) || (shown.subtransactions ?? []).some((x) => !x.deleted);
    for (const [field, sent] of Object.entries(item.change)) {
      fields += 1;
      let applied: boolean;
      let value: unknown = (shown as Record<string, unknown>)[field];
      if (field === 'subtransactions') {
        const lines = sent as B.SaveSubTransaction[];
        applied = !lines.length || sameLines(lines, shown.subtransactions);
        value = (shown.subtransactions ?? []).filter((x) => !x.deleted).map((x) => ({ amount: x.amount, category_id: x.category_id }));
      } else if (field === 'payee_name') {
        const named = typeof sent === 'string' ? sent.trim().toLowerCase() : sent;
        applied = named === null || named === (shown.payee_name ?? '').trim().toLowerCase();
      } else {
        applied = norm(field, sent) === norm(field, value);
      }
      if (!applied) notApplied.push({ transaction_id: shown.id, field, sent, shown: value ?? null, reason: reasonFor(field, item, split) });
    }
  }
  const notices = notApplied.map(
    (n) =>
      `Not applied by YNAB: ${n.field} of transaction ${n.transaction_id} (sent ${JSON.stringify(n.sent)}, it shows ${JSON.stringify(n.shown)}): ${n.reason}.`,
  );
  if (fields > 0 && notApplied.length === fields) {
    throw new UnsupportedChangeError(`YNAB accepted the update but applied none of it. ${notices.join(' ')}`);
  }
  return { notApplied, notices };
}
