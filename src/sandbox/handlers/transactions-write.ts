/**
 * Transaction writes: create one or many (import_id unique per account: 409 for one, skipped and
 * listed for many), update one (PUT) or many by id or import_id (PATCH), delete, and import
 * from linked accounts. Every item is checked before anything is written.
 */
import type { z } from 'zod';
import type * as B from '../../api/schemas/bodies.js';
import { at, checkChange, checkNewTransaction } from '../domain/transaction-input.js';
import {
  changeTransaction,
  findImportMatch,
  insertTransaction,
  isLinePair,
  parentOfLine,
  removeTransaction,
  type TransactionChange,
  type TransactionSpec,
} from '../domain/transactions.js';
import { badRequest, conflict } from '../errors.js';
import type { BudgetStore } from '../store/budget-store.js';
import type { TransactionRec } from '../store/records.js';
import * as V from '../store/views.js';
import { requireTransaction } from './common.js';
import type { Handler } from './context.js';

const importKey = (accountId: string, importId: string) => `${accountId}\u0000${importId}`;

function existingImportKeys(b: BudgetStore): Set<string> {
  const keys = new Set<string>();
  for (const t of b.rec.transactions.values()) if (!t.deleted && t.import_id) keys.add(importKey(t.account_id, t.import_id));
  return keys;
}

/**
 * Creates a transaction, or, for an imported one (with import_id), matches it to a transaction
 * the user entered on the same account with the same amount within 10 days, as the service does.
 */
function create(b: BudgetStore, spec: TransactionSpec): TransactionRec {
  if (spec.import_id) {
    const match = findImportMatch(b, spec.account_id, spec.amount, spec.date);
    if (match) {
      b.stamp(match);
      match.import_id = spec.import_id;
      match.import_payee_name = spec.import_payee_name ?? null;
      match.import_payee_name_original = spec.import_payee_name_original ?? null;
      match.matched_transaction_id = b.env.newId();
      if (match.cleared === 'uncleared') match.cleared = 'cleared';
      return match;
    }
  }
  return insertTransaction(b, spec);
}

function duplicateDetail(importId: string) {
  return `a transaction on the same account with the same import_id (${JSON.stringify(importId)}) already exists`;
}

export const transactionWriteHandlers: Record<string, Handler> = {
  createTransaction: (ctx) => {
    const b = ctx.budget;
    const body = ctx.body as z.infer<typeof B.PostTransactionsWrapper>;
    if (body.transaction && body.transactions) throw badRequest('send either "transaction" (one) or "transactions" (several), not both');
    if (body.transaction) {
      const spec = checkNewTransaction(b, body.transaction);
      if (spec.import_id && existingImportKeys(b).has(importKey(spec.account_id, spec.import_id))) throw conflict(duplicateDetail(spec.import_id));
      const t = b.change(() => create(b, spec));
      return { status: 201, data: { transaction_ids: [t.id], transaction: V.transactionDetail(b, t), server_knowledge: b.knowledge } };
    }
    if (!body.transactions?.length) throw badRequest('send "transaction" (one) or a non-empty "transactions" array');
    const specs = body.transactions.map((input, i) => checkNewTransaction(b, input, i));
    const seen = existingImportKeys(b);
    const duplicates: string[] = [];
    const accepted = specs.filter((spec) => {
      if (!spec.import_id) return true;
      const key = importKey(spec.account_id, spec.import_id);
      if (seen.has(key)) {
        duplicates.push(spec.import_id);
        return false;
      }
      seen.add(key);
      return true;
    });
    const created = accepted.length ? b.change(() => accepted.map((spec) => create(b, spec))) : [];
    return {
      status: 201,
      data: {
        transaction_ids: created.map((t) => t.id),
        transactions: created.map((t) => V.transactionDetail(b, t)),
        duplicate_import_ids: duplicates,
        server_knowledge: b.knowledge,
      },
    };
  },

  updateTransaction: (ctx) => {
    const b = ctx.budget;
    const t = requireTransaction(b, ctx.params.transaction_id!);
    const { transaction: input } = ctx.body as z.infer<typeof B.PutTransactionWrapper>;
    const change = checkChange(b, t, input);
    b.change(() => changeTransaction(b, t, change));
    return { data: { transaction: V.transactionDetail(b, t), server_knowledge: b.knowledge } };
  },

  updateTransactions: (ctx) => {
    const b = ctx.budget;
    const { transactions: items } = ctx.body as z.infer<typeof B.PatchTransactionsWrapper>;
    // import_id is unique per account, so the same one may exist on several accounts.
    const byImportId = new Map<string, TransactionRec[]>();
    for (const t of b.rec.transactions.values()) if (!t.deleted && t.import_id) byImportId.set(t.import_id, [...(byImportId.get(t.import_id) ?? []), t]);
    const plan: { t: TransactionRec; change: TransactionChange }[] = items.map((item, i) => {
      const { id, import_id: importId, ...fields } = item;
      if (id && importId) throw badRequest(`provide either id or import_id to identify a transaction, not both${at(i)}`);
      let t: TransactionRec | undefined;
      if (id) {
        t = b.transaction(id);
        if (!t && parentOfLine(b, id))
          throw badRequest(`transaction does not exist in this budget: ${id} is a split line; update its split transaction${at(i)}`);
        if (!t) throw badRequest(`transaction does not exist in this budget${at(i)}`);
      } else if (importId) {
        const found = (byImportId.get(importId) ?? []).filter((x) => !fields.account_id || x.account_id === fields.account_id);
        if (!found.length) throw badRequest(`no transaction with import_id ${JSON.stringify(importId)} exists in this budget${at(i)}`);
        if (found.length > 1) throw badRequest(`import_id ${JSON.stringify(importId)} is on ${found.length} accounts; add account_id or use id${at(i)}`);
        t = found[0]!;
      } else {
        throw badRequest(`each transaction needs an id or an import_id${at(i)}`);
      }
      return { t, change: checkChange(b, t, fields, i) };
    });
    b.change(() => plan.forEach(({ t, change }) => changeTransaction(b, t, change)));
    const updated = [...new Set(plan.map((p) => p.t))];
    return {
      data: {
        transaction_ids: updated.map((t) => t.id),
        transactions: updated.map((t) => V.transactionDetail(b, t)),
        server_knowledge: b.knowledge,
      },
    };
  },

  deleteTransaction: (ctx) => {
    const b = ctx.budget;
    const t = requireTransaction(b, ctx.params.transaction_id!);
    if (isLinePair(b, t)) {
      const parent = parentOfLine(b, t.transfer_transaction_id!);
      throw badRequest(
        `this transaction is the other side of a transfer made by a split line; delete the split transaction${parent ? ` ${parent.id}` : ''} instead`,
      );
    }
    b.change(() => removeTransaction(b, t));
    return { data: { transaction: V.transactionDetail(b, t), server_knowledge: b.knowledge } };
  },

  importTransactions: (ctx) => {
    const b = ctx.budget;
    const today = b.today();
    const ready = b.rec.pending_imports.filter((p) => p.date <= today && b.account(p.account_id)?.direct_import_linked);
    if (!ready.length) return { status: 200, data: { transaction_ids: [] } };
    const created = b.change(() => {
      b.rec.pending_imports = b.rec.pending_imports.filter((p) => !ready.includes(p));
      return ready.map((p) => {
        // The service's own import ids: YNAB:<milliunits>:<date>:<occurrence>.
        const prefix = `YNAB:${p.amount}:${p.date}:`;
        let occurrence = 1;
        for (const t of b.rec.transactions.values()) if (t.account_id === p.account_id && t.import_id?.startsWith(prefix)) occurrence += 1;
        return create(b, {
          account_id: p.account_id,
          date: p.date,
          amount: p.amount,
          payee_id: null,
          payee_name: p.payee_name,
          category_id: null,
          memo: p.memo,
          cleared: 'cleared',
          approved: false,
          import_id: `${prefix}${occurrence}`,
          import_payee_name: p.payee_name,
          import_payee_name_original: p.payee_name.toUpperCase(),
        });
      });
    });
    return { status: 201, data: { transaction_ids: created.map((t) => t.id) } };
  },
};
