/** A budget copy's transactions as the rules matcher takes them (src/rules/match.ts). */
import type { BudgetReplica } from '../sync/replica.js';

/** Every live transaction of the copy, with its payee's name and whether it is a split looked up. */
export function* ruleTransactions(r: BudgetReplica) {
  for (const tx of r.transactions.values()) {
    if (tx.deleted) continue;
    const lines = r.lines.get(tx.id);
    let split = false;
    if (lines) for (const l of lines.values()) if (!l.deleted) split = true;
    yield { tx, subject: { ...tx, payee_name: tx.payee_id ? (r.payees.get(tx.payee_id)?.name ?? null) : null, split } };
  }
}
