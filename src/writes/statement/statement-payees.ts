/**
 * The payee a statement row's bank text names, for import_statement, from the budget's copy
 * alone (no request). The evidence is what review_transactions reads a payee from, tried in
 * order, the first that answers wins:
 *  1. earlier imports of that text: transactions whose bank text (import_payee_name_original, or
 *     import_payee_name) is the same once store numbers and references are left out
 *     (cleanPayeeName), and the payee they were given; the payee most of them have;
 *  2. payee history: a payee with transactions whose name the text names (every word of the
 *     name in the text, as statement-match.ts reads a bank's text against a payee), or whose name
 *     is the text's cleaned name, or which is the merchant the text names by a descriptor
 *     ("WHOLEFDS …" for "Whole Foods Market": src/statements/merchant-names.ts); the one naming the
 *     most words, then with the most history.
 * A house rule goes before all of these (statement-rules.ts, at import_statement's plan).
 * Never matched: a transfer payee (an import would make a transfer), a deleted payee, one without
 * history, YNAB's own payees for balances. A row nothing matches gets a new payee of the cleaned
 * name, never the raw text.
 */
import { cleanPayeeName, knownMerchant } from '../../statements/payee-text.js';
import { foldText } from '../../shared/text.js';
import type { BudgetView } from '../../insights/core/view.js';
import { payeeWords } from '../pipeline/duplicates.js';
import { bankTextNames } from './statement-match.js';

/** The payee a bank text is created with: an existing one (id) with what it rests on, or a new name. */
export type RowPayee = { id: string; name: string; basis: string } | { id?: undefined; name: string; basis: 'new payee' | `rule ${string}` };

/** One kind of evidence: the payee a bank text names, or undefined. `cleaned`: cleanPayeeName of it. */
export type PayeeSource = (text: string, cleaned: string) => { id: string; basis: string } | undefined;

/** YNAB's own payees of balances and adjustments: no bank text names them. */
const OWN = new Set(['starting balance', 'manual balance adjustment', 'reconciliation balance adjustment']);

const key = (text: string) => foldText(cleanPayeeName(text)).trim();

/** 1. The payee earlier imports of the same text were given: the one most of them have. */
function earlierImports(view: BudgetView, usable: (id: string) => boolean): PayeeSource {
  const byText = new Map<string, Map<string, number>>();
  for (const t of view.replica.transactions.values()) {
    if (t.deleted || !t.payee_id || !usable(t.payee_id)) continue;
    const texts = new Set([t.import_payee_name_original, t.import_payee_name].filter((x): x is string => !!x?.trim()).map(key));
    for (const k of texts) {
      const votes = byText.get(k) ?? new Map<string, number>();
      votes.set(t.payee_id, (votes.get(t.payee_id) ?? 0) + 1);
      byText.set(k, votes);
    }
  }
  return (text) => {
    const votes = [...(byText.get(key(text))?.entries() ?? [])].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const all = votes.reduce((n, [, c]) => n + c, 0);
    const [top] = votes;
    // A text imported under several payees names the one most of its imports have, or none.
    if (!top || top[1] * 2 <= all) return undefined;
    return { id: top[0], basis: `earlier imports: ${top[1]} of ${all}` };
  };
}

/** 2. A payee with history whose name the text names; the one naming most words, then with most history. */
function payeeNames(view: BudgetView, lines: Map<string, number>): PayeeSource {
  const candidates = [...lines.keys()].map((id) => ({ id, name: view.replica.payees.get(id)!.name })).filter((p) => payeeWords(p.name).join('').length >= 3);
  const merchants = new Map(candidates.map((p) => [p.id, knownMerchant(p.name)]));
  return (text, cleaned) => {
    const exact = foldText(cleaned).trim();
    const merchant = knownMerchant(text);
    const found = candidates
      .filter(
        (p) =>
          foldText(p.name).trim() === exact ||
          bankTextNames(p.name, text) ||
          bankTextNames(p.name, cleaned) ||
          (merchant !== undefined && merchants.get(p.id) === merchant),
      )
      .sort((a, b) => payeeWords(b.name).length - payeeWords(a.name).length || lines.get(b.id)! - lines.get(a.id)! || (a.id < b.id ? -1 : 1));
    return found[0] ? { id: found[0].id, basis: 'payee name' } : undefined;
  };
}

/** Built once per plan: the payee each bank text is created with (see the header). */
export function rowPayees(view: BudgetView): (bankText: string) => RowPayee {
  const r = view.replica;
  const usable = (id: string) => {
    const p = r.payees.get(id);
    return !!p && !p.deleted && !p.transfer_account_id && !OWN.has(p.name.trim().toLowerCase());
  };
  // Payee history: lines of each usable payee, transfers and starting balances aside.
  const lines = new Map<string, number>();
  for (const l of view.lines)
    if (l.payee_id && l.kind !== 'transfer' && l.kind !== 'starting_balance' && usable(l.payee_id)) lines.set(l.payee_id, (lines.get(l.payee_id) ?? 0) + 1);
  const sources: PayeeSource[] = [earlierImports(view, (id) => lines.has(id)), payeeNames(view, lines)];
  return (bankText) => {
    const text = bankText.trim();
    const cleaned = cleanPayeeName(text).slice(0, 200);
    for (const source of sources) {
      const found = source(text, cleaned);
      if (found) return { id: found.id, name: r.payees.get(found.id)!.name, basis: found.basis };
    }
    return { name: cleaned, basis: 'new payee' };
  };
}
