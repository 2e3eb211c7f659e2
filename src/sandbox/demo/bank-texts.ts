/**
 * How a few merchants' bank texts read, unlike their payee names, as real statements spell them:
 * a card processor's prefix, a store number, a marketplace reference. The demo's imported
 * transactions carry them as `import_payee_name_original` while their payee is the clean name,
 * so suggest_rules has renames to find ("SHELL OIL 57442" is always Shell). The texts match what
 * `ynab-mcp sandbox statement` writes for these merchants (src/commands/statement-bank.ts).
 */
import type { BudgetRec } from '../store/records.js';

const TEXTS: Readonly<Record<string, (ref: number) => string>> = {
  Shell: (ref) => `SHELL OIL ${57000 + (ref % 1000)}`,
  Amazon: (ref) => `AMZN MKTP US*${(ref * 7919).toString(36).toUpperCase()}`,
  'Blue Bottle Coffee': () => 'SQ *BLUE BOTTLE COFFEE',
};

/** The bank text of `name` when it is one of these merchants (`ref`: the statement's number, if it had one). */
export function bankText(name: string, ref: number | undefined): string | undefined {
  return TEXTS[name]?.(ref ?? 442);
}

/**
 * The household's card purchases from these merchants as a file import leaves them: the bank's
 * text kept as `import_payee_name_original`, the payee renamed to the clean name. Run once the
 * history is made; it changes no amount, date or category, so no figure moves.
 */
export function giveBankTexts(rec: BudgetRec): void {
  for (const t of rec.transactions.values()) {
    const payee = t.payee_id ? rec.payees.get(t.payee_id) : undefined;
    if (!payee || t.deleted || t.transfer_account_id || t.import_payee_name_original || rec.accounts.get(t.account_id)?.type === 'cash') continue;
    const text = bankText(payee.name, 100 + (parseInt(t.id.slice(0, 6), 16) % 9900));
    if (!text) continue;
    t.import_payee_name = payee.name;
    t.import_payee_name_original = text;
  }
}
