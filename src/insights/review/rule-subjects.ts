/** A budget copy's transactions as the rules matcher takes them (src/rules/match.ts). */
import type { BudgetReplica } from '../../sync/replica.js';

/**
 * Every live transaction of the copy, with its payee's name and whether it is a split looked up.
 * The subject holds only the fields rules read, copied one by one: spreading every field of
 * 100,000 transactions cost seconds.
 */
export function* ruleTransactions(r: BudgetReplica) {
  for (const tx of r.transactions.values()) {
    if (tx.deleted) continue;
    const lines = r.lines.get(tx.id);
    let split = false;
    if (lines) for (const l of lines.values()) if (!l.deleted) split = true;
    const payee = tx.payee_id ? r.payees.get(tx.payee_id) : undefined;
    yield {
      tx,
      subject: {
        account_id: tx.account_id,
        amount: tx.amount,
        payee_id: tx.payee_id ?? null,
        payee_name: payee?.name ?? null,
        import_payee_name: tx.import_payee_name ?? null,
        import_payee_name_original: tx.import_payee_name_original ?? null,
        category_id: tx.category_id ?? null,
        memo: tx.memo ?? null,
        flag_color: tx.flag_color ?? null,
        approved: tx.approved,
        transfer_account_id: tx.transfer_account_id ?? null,
        split,
      },
    };
  }
}
