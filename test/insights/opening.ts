/**
 * Opening balances in the API's raw data (issue 57 item 1), written out apart from src/insights:
 * a transaction of the "Starting Balance" payee, not a transfer, is an account's opening balance.
 * On a budget account it is categorized to Ready to Assign, and the API's month counts it in
 * `income` (a cash account's whole amount; a card's only when positive, since a card's opening
 * debt is debt, not income): that part is what the tools set apart from income.
 */
import type { Raw } from './raw.js';

const CREDIT = new Set(['creditCard', 'lineOfCredit']);

/** The opening balances the API's month `month` (YYYY-MM-01) counts as income. */
export function openingIncome(r: Raw, month: string): number {
  let total = 0;
  for (const t of r.transactions) {
    const a = r.account.get(t.account_id);
    if (t.payee_name !== 'Starting Balance' || t.transfer_account_id || !a?.on_budget || t.category_id !== r.rta) continue;
    if (t.date.slice(0, 7) !== month.slice(0, 7)) continue;
    total += CREDIT.has(a.type) ? Math.max(0, t.amount) : t.amount;
  }
  return total;
}

/** A month's income without its opening balances, from the API's month. */
export function incomeOf(r: Raw, month: string): number {
  const m = r.months.find((x: any) => x.month === month);
  return (m?.income ?? 0) - openingIncome(r, month);
}

/** An amount as the budget's currency format writes it ("$1,234.56", "1.234,56€"), from the API's currency_format. */
export function moneyText(r: Raw, milliunits: number): string {
  const f = r.budget.currency_format;
  const minor = Math.round(Math.abs(milliunits) / 10 ** (3 - f.decimal_digits));
  const whole = String(Math.floor(minor / 10 ** f.decimal_digits)).replace(/\B(?=(\d{3})+(?!\d))/g, f.group_separator);
  const digits = f.decimal_digits ? `${f.decimal_separator}${String(minor % 10 ** f.decimal_digits).padStart(f.decimal_digits, '0')}` : '';
  const n = `${whole}${digits}`;
  const text = f.display_symbol ? (f.symbol_first ? `${f.currency_symbol}${n}` : `${n}${f.currency_symbol}`) : n;
  return `${milliunits < 0 && minor > 0 ? '-' : ''}${text}`;
}
