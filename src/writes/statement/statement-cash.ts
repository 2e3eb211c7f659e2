/**
 * Two kinds of statement row a category vote gets wrong (import_statement):
 *  - a cash withdrawal (an outflow whose text or memo says ATM or cash withdrawal, or whose kind
 *    the bank gives apart says so: Schwab's Type "ATM" beside the ATM's bank as the text): the
 *    money moved to the wallet, it was not spent. It gets no category by vote: the preview suggests a
 *    transfer to the budget's cash account where there is one, else leaves it uncategorized;
 *  - a refund (an inflow from a payee the account has paid): the category of the purchase it
 *    refunds, the latest of that payee of the same amount (set), else the payee's latest
 *    purchase's (suggested only).
 */
import type * as E from '../../api/schemas/entities.js';
import type { BudgetView } from '../../insights/core/view.js';
import type { RowMatch } from './statement-match.js';

const CASH = /\b(?:atm|cash withdrawal|cash wdl|withdrawal at|geldautomat|bargeld|retrait)\b/i;
/**
 * The bank's kind of row for cash out: what CASH finds (Schwab's "ATM", OFX's TRNTYPE ATM), and
 * Lloyds' CPT (cash point). Not OFX's CASH: banks write it for direct debits too.
 */
const CASH_KIND = /^cpt$/i;

const isCash = (row: RowMatch['row']) =>
  row.amount < 0 && (CASH.test(row.payee) || CASH.test(row.memo ?? '') || (row.kind !== undefined && (CASH.test(row.kind) || CASH_KIND.test(row.kind.trim()))));

export type Special =
  | { kind: 'cash'; suggestion: { transfer_to?: string; category: null; why: string } }
  | { kind: 'refund'; category?: { id: string; name: string }; suggestion?: { category: string; confidence: string; why: string } };

export function specialRows(view: BudgetView, account: E.AccountBase): (m: RowMatch, payeeId: string | undefined) => Special | undefined {
  const r = view.replica;
  const wallet = [...r.accounts.values()].find((a) => a.type === 'cash' && a.on_budget && !a.closed && !a.deleted && a.id !== account.id);
  return (m, payeeId) => {
    if (isCash(m.row)) {
      // Where only the bank's kind says it, the answer says so (the text names the ATM's bank).
      const by = CASH.test(m.row.payee) || CASH.test(m.row.memo ?? '') ? '' : ` (the bank's type ${JSON.stringify(m.row.kind)})`;
      return {
        kind: 'cash',
        suggestion: wallet
          ? {
              transfer_to: wallet.name,
              category: null,
              why: `a cash withdrawal${by}: money moved to ${JSON.stringify(wallet.name)}, not spent (create_transfer, or set its payee to that account in YNAB)`,
            }
          : {
              category: null,
              why: `a cash withdrawal${by}: left uncategorized, since the cash is spent later (no cash account in the budget to transfer it to)`,
            },
      };
    }
    if (m.row.amount <= 0 || !payeeId) return undefined;
    const bought = [...r.transactions.values()]
      .filter(
        (t) =>
          !t.deleted &&
          t.payee_id === payeeId &&
          t.amount < 0 &&
          t.category_id &&
          t.date <= m.row.date &&
          r.categories.get(t.category_id) &&
          !r.categories.get(t.category_id)!.deleted,
      )
      .sort((a, b) => b.date.localeCompare(a.date) || a.id.localeCompare(b.id));
    const same = bought.find((t) => t.amount === -m.row.amount);
    const of = same ?? bought[0];
    if (!of) return undefined;
    const name = r.categories.get(of.category_id!)!.name;
    const why = `a refund: the category of ${view.payeeName(of.payee_id ?? null)}'s latest purchase, of ${of.date} (none of the same amount)`;
    return same ? { kind: 'refund', category: { id: of.category_id!, name } } : { kind: 'refund', suggestion: { category: name, confidence: 'medium', why } };
  };
}
