/**
 * The bank's side of a sandbox account, for `ynab-mcp sandbox statement`: the account's
 * transactions in a period as a bank lists them, with the differences a real statement has from
 * a budget (rows the budget does not have yet, one amount that differs, one cleared budget row
 * the bank never had), and the bank's closing balance. Deterministic for the same budget, seed
 * and dates.
 */
import { createHash } from 'node:crypto';
import { Random } from '../sandbox/demo/random.js';
import type { AccountRec, BudgetRec, TransactionRec } from '../sandbox/store/records.js';
import type { StatementToWrite } from '../statements/index.js';

export interface BankView {
  statement: StatementToWrite;
  /** What differs from the budget, for the report. */
  discrepancies: {
    new_rows: { date: string; amount: number; payee: string }[];
    differing: { transaction_id: string; budget_amount: number; bank_amount: number } | null;
    missing: { transaction_id: string; date: string; amount: number } | null;
  };
}

const NEW_PAYEES: Record<string, readonly string[]> = {
  USD: ['SQ *BLUE BOTTLE COFFEE', 'AMZN MKTP US*2K4LM19', 'SHELL OIL 57442', 'TRADER JOE S #552', 'UBER *TRIP HELP.UBER', 'CVS/PHARMACY #08821'],
  EUR: ['REWE SAGT DANKE 4471', 'DB VERTRIEB GMBH', 'LIDL DIENSTL 1123', 'ROSSMANN 2208', 'BVG TICKET APP', 'DM DROGERIE 0312'],
};

const hex = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex');

/** The bank's text for a budget payee: the imported original where there is one, an ATM withdrawal for cash taken to a wallet, else the name upper-cased with a store number. */
function bankPayee(t: TransactionRec, budget: BudgetRec): string {
  if (t.import_payee_name_original) return t.import_payee_name_original.slice(0, 32);
  const payee = t.payee_id ? budget.payees.get(t.payee_id) : undefined;
  if (t.transfer_account_id) {
    const to = budget.accounts.get(t.transfer_account_id);
    // Cash taken to a wallet is an ATM withdrawal at the bank, which names no account: the import
    // matches it to the budget's "Transfer : Wallet" by its amount and day alone.
    if (t.amount < 0 && to?.type === 'cash') return `ATM WITHDRAWAL ${String((parseInt(hex(t.id).slice(0, 6), 16) % 900000) + 100000)}`;
    const other = to?.name ?? 'ACCOUNT';
    return `ONLINE TRANSFER ${t.amount < 0 ? 'TO' : 'FROM'} ${other.toUpperCase()}`.slice(0, 32);
  }
  const name = (payee?.name ?? 'POS PURCHASE').toUpperCase();
  const store = t.amount < 0 ? ` #${(parseInt(hex(t.id).slice(0, 6), 16) % 9000) + 1000}` : '';
  return `${name.slice(0, 32 - store.length)}${store}`;
}

function addDays(iso: string, days: number): string {
  return new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The statement of `account` from `from` to `to`. The closing balance is the sum of every budget
 * transaction of the account dated up to `to` (the bank has booked them all), less the budget row
 * the bank never had, plus the new rows and the differing row's difference: exactly what the rows
 * the file holds carry the balance to from the bank's opening balance.
 */
export function bankView(budget: BudgetRec, account: AccountRec, opts: { from: string; to: string; seed: string; discrepancies: number }): BankView {
  const rand = new Random(`statement:${opts.seed}:${account.id}:${opts.from}:${opts.to}`);
  const all = [...budget.transactions.values()].filter((t) => !t.deleted && t.account_id === account.id && t.date <= opts.to);
  all.sort((a, b) => (a.date === b.date ? a.seq - b.seq : a.date < b.date ? -1 : 1));
  const inPeriod = all.filter((t) => t.date >= opts.from);
  const currency = budget.currency_format?.iso_code ?? 'USD';
  const rows: (StatementToWrite['rows'][number] & { seq: number })[] = inPeriod.map((t) => ({
    date: t.date,
    amount: t.amount,
    payee: bankPayee(t, budget),
    bank_id: `FIT${hex(t.id).slice(0, 12).toUpperCase()}`,
    seq: t.seq,
  }));
  let balance = all.reduce((s, t) => s + t.amount, 0);
  const d: BankView['discrepancies'] = { new_rows: [], differing: null, missing: null };
  const candidates = rows.map((r, i) => i).filter((i) => !inPeriod[i]!.transfer_account_id && inPeriod[i]!.amount < 0);
  if (opts.discrepancies > 0 && candidates.length >= 2) {
    // One amount differs (a tip added when the card was settled: 15 % of the bill, at least 1.00).
    const di = candidates[rand.int(0, candidates.length - 1)]!;
    const tip = Math.max(Math.round((-rows[di]!.amount * 15) / 100 / 10) * 10, 1000);
    d.differing = { transaction_id: inPeriod[di]!.id, budget_amount: rows[di]!.amount, bank_amount: rows[di]!.amount - tip };
    rows[di]!.amount -= tip;
    balance -= tip;
    // One budget row the bank never had (entered twice, or never went through), one YNAB shows
    // cleared: so it is in YNAB's cleared balance, and a reconciliation has it to explain (an
    // uncleared one the bank lacks may yet come through, and a statement does not settle it).
    const rest = candidates.filter((i) => i !== di);
    const cleared = rest.filter((i) => inPeriod[i]!.cleared !== 'uncleared');
    const pool = cleared.length ? cleared : rest;
    const mi = pool[rand.int(0, pool.length - 1)]!;
    d.missing = { transaction_id: inPeriod[mi]!.id, date: rows[mi]!.date, amount: inPeriod[mi]!.amount };
    balance -= inPeriod[mi]!.amount;
    rows.splice(mi, 1);
  }
  const payees = NEW_PAYEES[currency] ?? NEW_PAYEES['USD']!;
  const span = Math.max(0, Math.round((Date.parse(opts.to) - Date.parse(opts.from)) / 86_400_000));
  for (let n = 0; n < opts.discrepancies; n++) {
    const row = {
      date: addDays(opts.from, rand.int(0, span)),
      amount: -rand.cents(3, 85),
      payee: payees[n % payees.length]!,
      bank_id: `FITNEW${hex(opts.seed, account.id, String(n)).slice(0, 10).toUpperCase()}`,
      seq: Number.MAX_SAFE_INTEGER - opts.discrepancies + n,
    };
    d.new_rows.push({ date: row.date, amount: row.amount, payee: row.payee });
    rows.push(row);
    balance += row.amount;
  }
  rows.sort((a, b) => (a.date === b.date ? a.seq - b.seq : a.date < b.date ? -1 : 1));
  const card = account.type === 'creditCard' || account.type === 'lineOfCredit';
  const number = `${parseInt(hex(account.id).slice(0, 8), 16)}`.padStart(10, '0');
  return {
    statement: {
      account: { name: account.name, number: currency === 'EUR' ? `DE89370400440${number.slice(0, 9)}` : number, currency, card },
      rows: rows.map(({ seq: _seq, ...r }) => r),
      balance,
      from: opts.from,
      to: opts.to,
    },
    discrepancies: d,
  };
}
